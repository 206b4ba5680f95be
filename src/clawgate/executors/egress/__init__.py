"""Egress by domain for sandboxed runs: a sandbox has no network of its own, and its only way
out is clawgate's proxy (``proxy.py``), which listens inside the sandbox's network namespace
(``netns.py``; for bubblewrap, before the command starts: ``opening.py``) or, where this
process may not join it, is reached through a bridge inside the sandbox (``bridge.py``),
judging each connection by host name against ``executor.network`` (``clawgate.egressrules``)
and auditing it."""

from __future__ import annotations

from clawgate.egressrules import DEFAULT_ALLOWED_DOMAINS, EgressRules, Verdict
from clawgate.executors.egress.proxy import Connection, EgressProxy, Lane, system_resolver

__all__ = ["DEFAULT_ALLOWED_DOMAINS", "Connection", "EgressProxy", "EgressRules", "Lane",
           "Verdict", "system_resolver"]
