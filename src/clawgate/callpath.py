"""The one call path the Guard and the adapters share: decide → approve → scrub → audit.

``CallPath`` holds what every guarded call is judged with (the policy's engine, the workspace,
the URL policy), who may say yes to an ASK (the approver and the keyed allow-always store),
the scrubber (detectors and the caller's secret environment values) and the audit log. The
Guard (``guard.py``, wired in ``guard_setup.py``) adds registry lookup, schema validation, the
rate limits and execution around it; the adapters' ``Gate`` (``integrations/gate.py``) stops
before execution (the agent or the wrapped MCP server runs what is allowed). A fix to any of
these steps lands here, once.

Step 4 has two front doors: ``decide_tool`` for a Guard tool (whose refusals of a path or URL
are ToolErrors the caller sees) and ``decide_effects`` for what an adapter's call would touch
(every refusal a DENY decision naming a ``CG-ADAPT-*`` rule).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from clawgate.approval import ApprovalRequest, ApprovalStore, Approver, seek_approval
from clawgate.audit import AuditLog, AuditRecord
from clawgate.auditplace import audit_log_for
from clawgate.decision import Decision, Outcome, Reason, Risk
from clawgate.engine import Engine
from clawgate.errors import ToolError
from clawgate.githooks import hooks_patterns
from clawgate.policy.settings import Autonomy, EngineSettings
from clawgate.policy.visibility import ToolContext
from clawgate.records import replace
from clawgate.statedir import check_state_home
from clawgate.tools.checks import READONLY_ID, WRITE_TOOLS, decide_call, describe
from clawgate.tools.paths import STATE_REFUSAL, Workspace
from clawgate.tools.scrub import Scrubber, cap_strings
from clawgate.tools.urls import UrlPolicy, check_url

if TYPE_CHECKING:
    from clawgate.guard import CallContext
    from clawgate.policy.policy import Policy

INTERNAL_ID = "CG-ADAPT-002"
PATH_ID = "CG-ADAPT-005"
URL_ID = "CG-ADAPT-006"
APPROVAL_ID = "CG-ADAPT-007"
TRUSTED_ID = "CG-ADAPT-008"
STATE_ID = "CG-TOOL-002"
AUDIT_CUT = 200  # characters of each result string an audit line keeps


class Effects(Protocol):
    """What a call would do, as an adapter sees it (``integrations.calls.Call``)."""

    @property
    def commands(self) -> tuple[str, ...]: ...
    @property
    def reads(self) -> tuple[str, ...]: ...
    @property
    def writes(self) -> tuple[str, ...]: ...
    @property
    def urls(self) -> tuple[str, ...]: ...
    @property
    def cwd(self) -> str | None: ...


def refused(summary: str, rule_id: str, message: str, hint: str | None = None,
            risk: Risk = Risk.HIGH) -> Decision:
    """A DENY naming ``rule_id``, about ``summary``."""
    return Decision(summary, Outcome.DENY, risk, (Reason(rule_id, message, hint, summary),))


class CallPath:
    """Decides, approves, scrubs and audits calls under one policy for one workspace.

    ``approver`` None means nobody can be asked: ``approve`` turns an ASK into a DENY.
    ``env`` is the environment whose secret-named values are scrubbed wherever they appear
    (the caller's, ``os.environ``, unless given).
    """

    def __init__(self, policy: Policy, root: str, *, engine: Engine | None = None,
                 approver: Approver | None = None, approvals: ApprovalStore | None = None,
                 audit_log: AuditLog | str | os.PathLike[str] | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        settings = policy.engine_settings()
        check_state_home(root)
        self.policy = policy
        self.root = root
        self.engine = engine or engine_for(settings, root, in_container=False,
                                           policy_files=state_files(policy, root))
        self.workspace = Workspace(root, forbidden=settings.forbidden_paths,
                                   guarded=_own_state(approvals, audit_log))
        self.readonly = settings.autonomy is Autonomy.READONLY
        # paths.protected and the repository's own hooks directory, for every write
        self.protected = (*settings.protected_paths, *hooks_patterns(root))
        self.urls = UrlPolicy(allowed_domains=tuple(policy.web.allowed_domains),
                              blocked_domains=tuple(policy.web.blocked_domains))
        self.approver = approver
        self.approvals = approvals
        self.scrubber = Scrubber(env=os.environ if env is None else env)
        audit_log = audit_log_for(audit_log, root)  # never inside the workspace
        self.audit = audit_log if isinstance(audit_log, AuditLog) or audit_log is None \
            else AuditLog(audit_log, self.scrubber)
        self.trusted = policy.hooks.trusted
        self.max_result_bytes = policy.hooks.budgets.max_result_bytes
        self.state = frozenset(state_files(policy, root))

    # -- step 2: the tool policy ------------------------------------------------------------

    def visible(self, names: Sequence[str], ctx: CallContext,
                universe: Iterable[str] | None = None) -> list[str]:
        """Which of ``names`` the tool policy lets ``ctx`` see (``universe``: every tool
        that exists, for globs and groups; ``names`` by default), in their order."""
        tool_ctx = ToolContext(agent=ctx.agent, provider=ctx.provider,
                               subagent_depth=ctx.subagent_depth, group=ctx.group)
        known = list(names) if universe is None else list(universe)
        seen = set(self.policy.visible_tools(known, tool_ctx).tools)
        return [n for n in names if n in seen and not self.policy.hooks.denies(n)]

    # -- step 4: the checks -----------------------------------------------------------------

    def decide_tool(self, tool: Any, name: str, args: Mapping[str, Any],
                    cwd: str | None = None) -> Decision:
        """A Guard tool's call: its commands through the engine (run in ``cwd``, the
        workspace by default), its path through containment, its URL through the SSRF check
        (a refused path or URL raises). A write to one of the policy's own files is a DENY."""
        path = args.get("path")
        if name in WRITE_TOOLS and isinstance(path, str) and self.writes_state(path):
            return self._state_refusal(describe(name, args))
        return decide_call(tool, name, args, engine=self.engine, workspace=self.workspace,
                           urls=self.urls, readonly=self.readonly, cwd=cwd,
                           protected=self.protected)

    def decide_effects(self, call: Effects, summary: str) -> Iterator[Decision]:
        """One decision per thing an adapter's call would touch; refusals are DENYs."""
        for path in (*call.reads, *call.writes):
            try:
                self.workspace.resolve(path)
            except ToolError as exc:
                yield refused(summary, PATH_ID, exc.message, hint=None if STATE_REFUSAL in
                              exc.message else f"stay inside the workspace {self.root}")
        if any(self.writes_state(path) for path in call.writes):
            yield self._state_refusal(summary)
        if call.writes and self.readonly:
            yield refused(summary, READONLY_ID, "this agent may only read (autonomy readonly "
                          "or no write permission)", risk=Risk.MEDIUM)
        for url in call.urls:
            try:
                check_url(url.strip(), self.urls)
            except ToolError as exc:
                yield refused(summary, URL_ID, exc.message)
        cwd = call.cwd or self.root
        for line in call.commands:
            yield self.engine.check(line, cwd=cwd)
        if not call.commands:  # outward is high, writes medium, reads low; opaque medium
            risk = Risk.HIGH if call.urls else Risk.MEDIUM if call.writes or not call.reads \
                else Risk.LOW
            yield Decision(summary, Outcome.ALLOW, risk)

    def writes_state(self, path: str) -> bool:
        """Whether ``path`` is one of the loaded policy files inside the workspace."""
        try:
            real = os.path.realpath(self.workspace.resolve(path))
        except ToolError:
            return False  # refused as a path already
        return real in self.state

    def _state_refusal(self, summary: str) -> Decision:
        return refused(summary, STATE_ID, "the file is a policy this guard loaded: a call "
                       "must not rewrite the rules it is judged by",
                       hint="change the policy outside the agent's session")

    # -- step 5: approval -------------------------------------------------------------------

    def approve(self, tool: str, args: Mapping[str, Any], ctx: CallContext,
                decision: Decision, hint: str | None = None) -> Decision:
        """ALLOW or DENY for an ASK: a trusted policy, a remembered allow-always (only when
        the approver could say yes itself), or the approver's answer (none: DENY). Other
        outcomes are returned as they are."""
        if decision.outcome is not Outcome.ASK:
            return decision
        if self.trusted:
            return replace(decision, outcome=Outcome.ALLOW, reasons=(*decision.reasons, Reason(
                TRUSTED_ID, "allowed without asking: the policy sets hooks.trusted")))
        request = ApprovalRequest(tool=tool, args=dict(args), summary=decision.command,
                                  reasons=decision.reasons, session=ctx.session,
                                  agent=ctx.agent)
        if self.approver is not None and seek_approval(request, self.approver,
                                                       self.approvals).allowed:
            return replace(decision, outcome=Outcome.ALLOW)
        why = "a person must approve and did not" if self.approver is not None else \
            "a person must approve, and no approver is configured"
        detail = getattr(self.approver, "last_error", None)  # ServerApprover says why
        if isinstance(detail, str) and detail:
            why = f"{why}: {detail}"
        return replace(decision, outcome=Outcome.DENY, reasons=(
            Reason(APPROVAL_ID, why, hint, decision.command), *decision.reasons))

    # -- step 8: what the model sees --------------------------------------------------------

    def clean(self, value: Any) -> Any:
        """Credentials scrubbed from every string, each string capped (head and tail)."""
        limit = self.max_result_bytes
        return cap_strings(self.scrubber.scrub_value(value, limit), limit)

    def clean_error(self, error: ToolError) -> ToolError:
        """``error`` with its message and reasons scrubbed and its message capped: an
        exception's text (a tool's, a schema validator's echo of the input) reaches the model
        too. The same object, so its class and kind stay."""
        message = self.scrubber.scrub_capped(error.message, self.max_result_bytes)
        error.message = message
        error.args = (f"{error.kind.value}: {message}",)
        error.reasons = tuple(self._scrub_reason(r) for r in error.reasons)
        return error

    def _scrub_reason(self, reason: Reason) -> Reason:
        def scrub(text: str | None) -> str | None:
            return None if text is None else self.scrubber.scrub(text)
        return replace(reason, message=self.scrubber.scrub(reason.message),
                       hint=scrub(reason.hint), command=scrub(reason.command))

    # -- step 9: the audit line -------------------------------------------------------------

    def record(self, tool: str, args: Mapping[str, Any], ctx: CallContext, outcome: str,
               reasons: Sequence[Reason], result: Mapping[str, Any] | None = None,
               started: float | None = None) -> None:
        """One audit line (when there is a log), scrubbed with this path's scrubber (the
        caller's secret environment values too) before it is cut and written."""
        if self.audit is None:
            return
        scrubbed = self.scrubber.scrub_value(dict(result or {}))
        assert isinstance(scrubbed, dict)
        summary = {k: (v[:AUDIT_CUT] if isinstance(v, str) else v) for k, v in scrubbed.items()}
        elapsed = 0.0 if started is None else (time.monotonic() - started) * 1000
        shown = self.scrubber.scrub_value(dict(args))
        assert isinstance(shown, dict)
        self.audit.append(AuditRecord(
            session=ctx.session, agent=ctx.agent or "", tool=tool, args=shown,
            outcome=outcome, reasons=tuple(self._scrub_reason(r) for r in reasons),
            result=summary, duration_ms=round(elapsed, 3)))


def _own_state(approvals: ApprovalStore | None,
               audit_log: AuditLog | str | os.PathLike[str] | None) -> tuple[str, ...]:
    """Where this call path keeps state of its own beyond the state root: its approval store's
    file, lock and keys (not the whole directory, which may hold the workspace), its audit log
    and the log's anchor."""
    found: list[str] = []
    if approvals is not None:
        store = approvals.path
        found += [os.fspath(store), os.fspath(store.with_suffix(".lock")),
                  os.fspath(store.parent / "keys")]
    if isinstance(audit_log, AuditLog):
        found += [os.fspath(audit_log.path), os.fspath(audit_log.anchor_path)]
    elif audit_log is not None:
        found.append(os.fspath(audit_log))
    return tuple(found)


def state_files(policy: Policy, workspace: str | os.PathLike[str]) -> tuple[str, ...]:
    """The loaded policy files (a project's ``.clawgate.yaml`` or ``pyproject.toml``) that lie
    inside ``workspace``, as real paths: file tools may not write them, and a sandbox mounts
    them read-only, so nothing the guard runs rewrites the policy the next load reads."""
    root = os.path.realpath(workspace)
    found = (os.path.realpath(layer.path) for layer in policy.layers if layer.path)
    return tuple(p for p in found if p != root and p.startswith(root.rstrip("/") + "/"))


class ContainerEngine(Engine):
    """Judges commands as they run in a Docker container, where the workspace is mounted at
    ``/workspace``: that path is the workspace for the checks, and a host ``cwd`` inside the
    workspace is read as the same place under it (``/work/repo/src`` is ``/workspace/src``)."""

    def __init__(self, settings: EngineSettings, root: str, mount: str) -> None:
        self.root, self.mount = os.path.abspath(root), mount
        forbidden = tuple(self.inside(p) if os.path.isabs(p) else p  # relative: to the mount
                          for p in settings.forbidden_paths)
        super().__init__(replace(settings, workspace=mount, forbidden_paths=forbidden))

    def inside(self, path: str | None) -> str:
        """``path`` (absolute, on the host) as the container sees it; None is the workspace."""
        if path is None:
            return self.mount
        relative = os.path.relpath(os.path.abspath(path), self.root)
        if relative == os.curdir:
            return self.mount
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return path  # not under the mount: the executor refuses such a cwd anyway
        return os.path.join(self.mount, relative)

    def check(self, command: str, *, cwd: str | None = None) -> Decision:
        return super().check(command, cwd=self.inside(cwd))


def engine_for(settings: EngineSettings, root: str, *, in_container: bool,
               policy_files: Sequence[str] = ()) -> Engine:
    """The engine for a workspace: as the host sees it, or as a Docker container does.
    ``policy_files``: the loaded policy files inside the workspace (``state_files``), added to
    the protected paths, so a command that writes one, or writes a new file where a renamed
    one was, needs a person (the file tools may not write them at all)."""
    mount: str | None = None
    if in_container:
        from clawgate.executors.docker_exec import WORKSPACE

        mount = WORKSPACE
    if policy_files:
        import glob

        real = os.path.realpath(root)  # policy_files are real paths inside it (state_files)
        seen = [os.path.join(mount, os.path.relpath(p, real)) if mount else p
                for p in policy_files]
        pinned = tuple(glob.escape(p) for p in seen)
        settings = replace(settings, protected_paths=(*settings.protected_paths, *pinned))
    if mount is not None:
        return ContainerEngine(settings, root, mount)
    return Engine(replace(settings, workspace=root))
