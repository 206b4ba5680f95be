"""What ``policy serve`` does behind its HTTP API: decide, queue what must be asked, audit.

No second implementation of any check: a command goes through the same ``Engine`` as
``policy check``, a tool call through the Guard's own steps (``serve.decide``). The workspace of
an agent is its token's, else the service's (``--workspace``, else the policy's): a request
cannot name another one, nor a ``cwd`` outside it. What is added is where the state lives:
approvals, grants, audit records and rate counters are in the database (``clawgate.serve.db``),
so several replicas act as one.

Every decision is made off the event loop under a time limit (``clawgate.serve.deciders``: past
it, a DENY) and audited before it is answered. Audit records are written by one writer
thread per process in batches (one transaction for whatever arrived meanwhile), and each
request waits until its record is committed: the chain stays one, and a burst costs one
commit, not one per request (``clawgate.serve.auditwriter``). On PostgreSQL the batch is handed
in to the chain's intake, and one replica, the chain's leader, links every replica's records
into the chain (``clawgate.serve.intake``).
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
from clawgate.integrations.gate import INTERNAL_ID, PATH_ID, refused
from clawgate.policy.policy import Policy
from clawgate.serve.auditwriter import AuditWriter
from clawgate.serve.chain import Chain, Entry
from clawgate.serve.decide import Decider, too_deep, too_deep_refusal
from clawgate.serve.deciders import Deciders, TooSlow
from clawgate.serve.intake import Intake, Linker
from clawgate.serve.queue import Answered, Asked, Queue, QueueFull
from clawgate.tools.checks import describe
from clawgate.tools.scrub import Scrubber

SLOW_ID = "CG-SERVE-001"
RECENT = 4096  # decisions of command lines remembered on the event loop
QUEUE_FULL_ID = "CG-SERVE-002"


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
        self.workspace = os.path.realpath(workspace or policy.engine_settings().workspace
                                          or os.getcwd())
        self.scrubber = MemoScrubber(env=os.environ)
        # On PostgreSQL records are handed in, and the replica leading the chain links them.
        self.linker = Linker(chain.engine, chain.key) if chain.settles else None
        self.audit = AuditWriter(chain, intake=Intake(chain.engine) if chain.settles else None)
        self.deciders = deciders or Deciders()  # the worker threads decisions are made on
        self._by_workspace: OrderedDict[str, Decider] = OrderedDict()
        self._recent: OrderedDict[tuple[str, str, str], Decision] = OrderedDict()  # the loop's
        self._bodies: OrderedDict[tuple[object, ...], tuple[Decision, dict[str, Any]]] = \
            OrderedDict()  # audit bodies of the decisions remembered
        self._lock = threading.Lock()

    def leading(self) -> bool:
        """Whether this process links the audit intake into the chain (PostgreSQL)."""
        return self.linker is not None and self.linker.leading

    @property
    def engine(self) -> Engine:
        """The engine of the service's own workspace (an agent's whose token names none)."""
        return self.decider(self.workspace).setup.engine

    def warm(self) -> None:
        """Build what the first decision would build lazily (the parser, the program catalog,
        the scrubber's detectors), so that it is part of the start-up heap."""
        from clawgate.preload import preload

        preload()
        for command in WARM:
            decision = self.engine.check(command, cwd=self.workspace)
            self.scrubber.scrub_value({"command": command,
                                       "reasons": [r.as_dict() for r in decision.reasons]})

    def decider(self, workspace: str) -> Decider:
        """The decider of a workspace (a bounded cache)."""
        with self._lock:
            decider = self._by_workspace.get(workspace)
            if decider is None:
                decider = self._by_workspace[workspace] = Decider(self.policy, workspace)
                if len(self._by_workspace) > 64:
                    self._by_workspace.popitem(last=False)
            self._by_workspace.move_to_end(workspace)
            return decider

    def home(self, token_workspace: str | None) -> str:
        """An agent's workspace: its token's (kept as a real path), else the service's."""
        return token_workspace or self.workspace

    async def check(self, command: str, cwd: str | None, agent: str,
                    session: str, home: str | None = None) -> Verdict:
        """Decide a command of ``agent`` in its workspace, judged as the Guard judges
        ``exec_shell``'s (the engine of that workspace; ``cwd`` inside it)."""
        root = self.home(home)
        place = os.path.normpath(os.path.join(root, cwd)) if cwd else root
        try:
            decision = self._misplaced(command, agent, root, None, place) or \
                await self._command(agent, command, place, root)
        except Exception as exc:  # fail closed, answered and audited like any decision
            decision = refused(command, INTERNAL_ID, f"clawgate failed ({type(exc).__name__}: "
                               f"{exc}); failing closed")
        asked = Asked(agent, session, root, "exec_shell", {"command": command}, decision,
                      cwd=place)
        return await self._conclude(asked, {"command": command, "cwd": cwd})

    async def call(self, tool: str, args: dict[str, Any], agent: str, session: str,
                   workspace: str | None, cwd: str | None, *,
                   request_key: str | None = None, home: str | None = None) -> Verdict:
        """Decide a tool call of ``agent`` in its workspace (``home``, its token's, else the
        service's); ``workspace`` is what the request said, refused unless it is the same."""
        root = self.home(home)
        place = os.path.normpath(os.path.join(root, cwd)) if cwd else root
        if too_deep(args):  # answered and audited without them: they cannot be shown
            asked = Asked(agent, session, root, tool, {}, too_deep_refusal(tool), cwd=place)
            return await self._conclude(asked, {"tool": tool, "args": "(too deep)", "cwd": cwd,
                                                "workspace": workspace})
        ctx = CallContext(session=session, agent=agent)
        decision = self._misplaced(describe(tool, args), agent, root, workspace, place) or \
            await self._decide(agent, describe(tool, args), lambda: self.decider(root).decide(
                tool, args, ctx, place))
        asked = Asked(agent, session, root, tool, args, decision, request_key, cwd=place)
        return await self._conclude(asked, {"tool": tool, "args": args, "cwd": cwd,
                                            "workspace": workspace})

    def _misplaced(self, summary: str, agent: str, root: str, workspace: str | None,
                   place: str) -> Decision | None:
        """A DENY for a request that names a workspace other than the agent's, or a ``cwd``
        outside it: where an agent works is the service's to say, never the request's."""
        if workspace is not None and os.path.realpath(workspace) != root:
            return refused(summary, PATH_ID, f"the workspace of agent {agent!r} is {root}; a "
                           f"request cannot choose another ({workspace!r})",
                           hint="leave context.workspace out")
        if place == root:
            return None
        real = os.path.realpath(place)
        if real != root and not real.startswith(root.rstrip("/") + "/"):
            return refused(summary, PATH_ID, f"cwd {place!r} is outside the workspace {root}",
                           hint=f"stay inside the workspace {root}")
        return None

    async def _command(self, agent: str, command: str, cwd: str, root: str) -> Decision:
        """The engine's decision: one made already is answered at once (agents send the same
        lines again and again, and a hand-over to a thread costs more than such an answer);
        any other is made on a worker thread under the time limit."""
        key = (command, cwd, root)
        known = self._recent.get(key)
        if known is not None:
            self._recent.move_to_end(key)
            return known
        engine = self.decider(root).setup.engine
        decision = await self._decide(agent, command, lambda: engine.check(command, cwd=cwd))
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
        await self.audit.write(Entry(asked.agent, asked.session, asked.tool, verdict.outcome,
                                     rule, self._audit_body(verdict, shown)))
        return verdict

    def _audit_body(self, verdict: Verdict, shown: dict[str, Any]) -> dict[str, Any]:
        """The scrubbed audit body of a decision. Agents send the same lines again and again,
        and the engine answers a line it decided with the very same ``Decision``: the body of
        a decision that opened no request, shown as plain text, is kept (bounded) and not
        scrubbed again; scrubbing is a pure function of the text here."""
        decision = verdict.decision
        plain = verdict.approval_id is None and not verdict.granted and all(
            value is None or isinstance(value, str) for value in shown.values())
        key = (id(decision), *shown.items()) if plain else None
        if key is not None:
            with self._lock:
                known = self._bodies.get(key)
            if known is not None and known[0] is decision:
                return known[1]
        body = self.scrubber.scrub_value({**shown, "risk": decision.risk.label,
                                          "reasons": [r.as_dict() for r in decision.reasons],
                                          "approval": verdict.approval_id,
                                          "granted": verdict.granted})
        assert isinstance(body, dict)
        if key is not None:
            with self._lock:
                self._bodies[key] = (decision, body)  # the decision held: its id stays its own
                if len(self._bodies) > RECENT:
                    self._bodies.popitem(last=False)
        return body

    async def answer(self, request_id: str, allow: bool, always: bool, by: str,
                     note: str | None) -> Answered | None:
        """Answer a request and audit the answer; None if there is no such request. Only
        the first answer counts: a later one changes nothing, and is audited as refused
        (outcome ``conflict``) with what it said and what stands."""
        answered = await asyncio.to_thread(self.approvals.answer, request_id, allow, always,
                                           by, note)
        if answered is None:
            return None
        request = answered.request
        said: dict[str, Any] = {"approval": request["id"], "answer": "allow" if allow else "deny",
                                "scope": "always" if always and allow else "once",
                                "note": note, "status": request["status"],
                                "summary": request["summary"], "agent": request["agent"]}
        outcome = request["outcome"]
        if not answered.first:
            said.update(refused="the request was answered already; the first answer stands",
                        answered_by=request["answered_by"])
            outcome = "conflict"
        body = self.scrubber.scrub_value(said)
        assert isinstance(body, dict)
        await self.audit.write(Entry(by, request["session"], "approval", outcome, "", body))
        return answered

    def close(self) -> None:
        self.audit.close()
        if self.linker is not None:
            self.linker.close()
        self.deciders.close()


def _refused(command: str, reason: Reason, was: Decision | None = None) -> Decision:
    """A DENY for a reason of the service's own, before the reasons of what was decided."""
    return Decision(command, Outcome.DENY, was.risk if was is not None else Risk.HIGH,
                    (reason, *(was.reasons if was is not None else ())))
