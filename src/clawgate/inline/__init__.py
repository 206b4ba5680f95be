"""Inline code read for what it does: Python through its syntax tree (``python.py``), the other
scripting languages through their tokens (``tokens.py``). Both say it in one shape
(``effects.Effects``): the shell commands that do the same as the code's literal actions
(processes started, files written, deleted or read), and what cannot be read (payloads and
targets computed at run time, decoded code, sockets, whole-environment dumps).

Importing this package costs nothing; ``python.py`` imports ``ast`` and is imported only when
inline Python is seen.
"""
