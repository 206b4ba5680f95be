"""What ``policy serve`` does behind its HTTP API: decide, queue what must be asked, audit.

No second implementation of any check: a command goes through the same ``Engine`` as
``policy check``, a tool call through the same ``Gate`` as the hooks and the MCP proxy. What is
added is where the state lives: approvals, grants, audit records and rate counters are in the
database (``clawgate.serve.db``), so several replicas act as one.

Every decision is made off the event loop under a time limit (``clawgate.serve.deciders``: past
it, a DENY) and audited before it is answered. Audit records are written by one writer
thread per process in batches (one transaction for whatever arrived meanwhile), and each
request waits until its record is committed: the chain stays one, and a burst costs one
commit, not one per request (``clawgate.serve.auditwriter``).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from clawgate.decision import Decision, Outcome, Reason, Risk
from clawgate.engine import Engine
from clawgate.guard import CallContext
from clawgate.integrations.calls import Call, Kind
from clawgate.integrations.gate import Gate
from clawgate.policy.policy import Policy
from clawgate.serve.auditwriter import AuditWriter
from clawgate.serve.chain import Chain, Entry
from clawgate.serve.deciders import Deciders, TooSlow
from clawgate.serve.queue import Asked, Queue, QueueFull
from clawgate.tools.scrub import Scrubber

_BUILTIN_KEYS: dict[str, tuple[str, str]] = {
    "exec_shell": ("commands", "command"), "spawn": ("commands", "command"),
    "read_file": ("reads", "path"), "list_directory": ("reads", "path"),
    "glob": ("reads", "path"), "grep": ("reads", "path"), "memory_read": ("reads", "path"),
    "write_file": ("writes", "path"), "edit_file": ("writes", "path"),
    "memory_write": ("writes", "path"), "web_fetch": ("urls", "url"),
}
SLOW_ID = "CG-SERVE-001"
RECENT = 4096  # decisions of command lines remembered on the event loop
QUEUE_FULL_ID = "CG-SERVE-002"


def call_of(tool: str, args: Mapping[str, Any], cwd: str | None) -> Call:
    """A built-in tool's Call from its documented argument; anything else read as an MCP
    tool's arguments (commands, paths and URLs found by key and value)."""
    known = _BUILTIN_KEYS.get(tool)
    if known is None:
        from clawgate.integrations.arguments import mcp_call

        return mcp_call(tool, args)
    field, key = known
    value = args.get(key)
    values: tuple[str, ...] = (value,) if isinstance(value, str) else ()
    return Call(tool, args, kind=Kind.TOOL, cwd=cwd,
                commands=values if field == "commands" else (),
                reads=values if field == "reads" else (),
                writes=values if field == "writes" else (),
                urls=values if field == "urls" else ())


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the API answers: the decision, and the request a person must answer, if any."""

    decision: Decision
    approval_id: str | None = None
    granted: bool = False

    @property
    def outcome(self) -> str:
        if self.granted:
            return "allow"
        return self.decision.outcome.label


class MemoScrubber(Scrubber):
    """A scrubber that remembers what it made of short strings: agents check the same commands
    again and again, and the audit body of each decision (its reasons, hints, command) is
    scrubbed before it is written. Scrubbing is a pure function of the text here (the detectors
    and the environment are fixed when the service starts); the memory is bounded."""

    MAX_TEXT = 4096
    MAX_ENTRIES = 8192

    def __init__(self, env: Mapping[str, str]) -> None:
        super().__init__(env=env)
        self._memo: OrderedDict[str, str] = OrderedDict()
        self._memo_lock = threading.Lock()

    def scrub(self, text: str) -> str:
        if len(text) > self.MAX_TEXT:
            return super().scrub(text)
        with self._memo_lock:
            done = self._memo.get(text)
        if done is None:
            done = super().scrub(text)
            with self._memo_lock:
                self._memo[text] = done
                if len(self._memo) > self.MAX_ENTRIES:
                    self._memo.popitem(last=False)
        return done


WARM = ("git status", "ls -la src | head -20", "make test > /dev/null 2>&1")


class Service:
    """One policy, one database: decisions, the approval queue and the audit chain."""

    def __init__(self, policy: Policy, chain: Chain, approvals: Queue,
                 workspace: str | None = None, deciders: Deciders | None = None) -> None:
        self.policy = policy
        self.chain = chain
        self.approvals = approvals
        self.workspace = os.path.abspath(workspace or policy.engine_settings().workspace
                                         or os.getcwd())
        self.engine = Engine(policy.engine_settings())
        self.scrubber = MemoScrubber(env=os.environ)
        self.audit = AuditWriter(chain)
        self.deciders = deciders or Deciders()
        self._gates: OrderedDict[str, Gate] = OrderedDict()
        self._recent: OrderedDict[tuple[str, str], Decision] = OrderedDict()  # the loop's own
        self._lock = threading.Lock()

    def warm(self) -> None:
        """Build what the first decision would build lazily (the parser, the program catalog,
        the scrubber's detectors), so that it is part of the start-up heap."""
        for command in WARM:
            decision = self.engine.check(command, cwd=self.workspace)
            self.scrubber.scrub_value({"command": command,
                                       "reasons": [r.as_dict() for r in decision.reasons]})

    def gate(self, workspace: str) -> Gate:
        """A gate per workspace (a bounded cache)."""
        with self._lock:
            gate = self._gates.get(workspace)
            if gate is None:
                gate = Gate(self.policy, workspace=workspace)
                self._gates[workspace] = gate
                if len(self._gates) > 64:
                    self._gates.popitem(last=False)
            self._gates.move_to_end(workspace)
            return gate

    async def check(self, command: str, cwd: str | None, agent: str,
                    session: str) -> Verdict:
        decision = await self._command(agent, command, cwd or self.workspace)
        asked = Asked(agent, session, cwd or self.workspace, "exec_shell",
                      {"command": command}, decision)
        return await self._conclude(asked, {"command": command, "cwd": cwd})

    async def call(self, tool: str, args: dict[str, Any], agent: str, session: str,
                   workspace: str | None, cwd: str | None, *,
                   request_key: str | None = None) -> Verdict:
        where = os.path.abspath(workspace or self.workspace)
        ctx = CallContext(session=session, agent=agent)
        decision = await self._decide(agent, tool, lambda: self.gate(where).decide(
            call_of(tool, args, cwd), ctx))
        asked = Asked(agent, session, where, tool, args, decision, request_key)
        return await self._conclude(asked, {"tool": tool, "args": args})

    async def _command(self, agent: str, command: str, cwd: str) -> Decision:
        """The engine's decision: one made already is answered at once (agents send the same
        lines again and again, and a hand-over to a thread costs more than such an answer);
        any other is made on a worker thread under the time limit."""
        key = (command, cwd)
        known = self._recent.get(key)
        if known is not None:
            self._recent.move_to_end(key)
            return known
        decision = await self._decide(agent, command, lambda: self.engine.check(command,
                                                                                 cwd=cwd))
        if not any(r.rule_id == SLOW_ID for r in decision.reasons):
            self._recent[key] = decision
            if len(self._recent) > RECENT:
                self._recent.popitem(last=False)
        return decision

    async def _decide(self, agent: str, what: str,
                      decide: Callable[[], Decision]) -> Decision:
        """``decide()`` on a worker thread; a DENY past the time limit."""
        try:
            return await self.deciders.run(agent, decide)
        except TooSlow as exc:
            return _refused(what, Reason(SLOW_ID, f"{exc}; failing closed",
                                               hint="split the work into smaller commands"))

    async def _conclude(self, asked: Asked, shown: dict[str, Any]) -> Verdict:
        decision = asked.decision
        verdict = Verdict(decision)
        if decision.outcome is Outcome.ASK:
            if await asyncio.to_thread(self.approvals.granted, asked):
                verdict = Verdict(decision, granted=True)
            else:
                try:
                    verdict = Verdict(decision,
                                      await asyncio.to_thread(self.approvals.open, asked))
                except QueueFull as exc:
                    decision = _refused(decision.command, Reason(
                        QUEUE_FULL_ID, f"not queued for a person: {exc}",
                        hint="wait for the answers to this agent's requests"), decision)
                    verdict = Verdict(decision)
        rule = decision.reasons[0].rule_id if decision.reasons else ""
        body = self.scrubber.scrub_value({**shown, "risk": decision.risk.label,
                                          "reasons": [r.as_dict() for r in decision.reasons],
                                          "approval": verdict.approval_id,
                                          "granted": verdict.granted})
        assert isinstance(body, dict)
        await self.audit.write(Entry(asked.agent, asked.session, asked.tool, verdict.outcome,
                                     rule, body))
        return verdict

    async def record_answer(self, request: dict[str, Any], by: str) -> None:
        """An answer is audited like a decision."""
        body = self.scrubber.scrub_value({"approval": request["id"], "status": request["status"],
                                          "scope": request["scope"], "note": request["note"],
                                          "summary": request["summary"]})
        assert isinstance(body, dict)
        await self.audit.write(Entry(by, request["session"], "approval", request["outcome"],
                                     "", body))

    def close(self) -> None:
        self.audit.close()
        self.deciders.close()


def _refused(command: str, reason: Reason, was: Decision | None = None) -> Decision:
    """A DENY for a reason of the service's own, before the reasons of what was decided."""
    return Decision(command, Outcome.DENY, was.risk if was is not None else Risk.HIGH,
                    (reason, *(was.reasons if was is not None else ())))
