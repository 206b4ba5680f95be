"""The resident decider: one warm process per user that answers ``policy check``, ``policy
explain`` and the agent hooks in a fraction of the time a fresh interpreter takes to import the
engine.

The client (``client``) is what runs per call: it imports nothing of the engine, sends the
call's words, working directory, environment and standard input over a Unix socket, and prints
what comes back. The server (``server``) holds the engine warm and answers each call in a fork
of itself that runs the very same ``policy`` command line in process (``clawgate.cli``), so the
answers, the audit records and the errors are those of the in-process path: one implementation.
A client that cannot reach the server, or gets no answer in time, decides in process instead.

This package's ``__init__`` imports nothing: the client's start-up is the point.
"""
