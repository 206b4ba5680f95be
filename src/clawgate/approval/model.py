"""What an approval is: a request, the three answers, and the simplest approvers.

Every failure to get an answer is a deny: an exception, a wrong type, a timeout.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from clawgate.decision import Reason


class ApprovalAnswer(StrEnum):
    ALLOW_ONCE = "allow-once"
    ALLOW_ALWAYS = "allow-always"
    DENY = "deny"

    @property
    def allowed(self) -> bool:
        return self is not ApprovalAnswer.DENY


def _normal(value: object) -> object:
    """Strings trimmed at the ends (inner spacing can change meaning), keys sorted by dumps."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, Mapping):
        return {str(k).strip(): _normal(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normal(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A call that needs a person's yes. ``summary`` is what they read (the command line)."""

    tool: str
    args: Mapping[str, object]
    summary: str = ""
    reasons: tuple[Reason, ...] = ()
    session: str | None = None
    agent: str | None = None

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def key(self) -> str:
        """The normalised request (tool + arguments) an allow-always answer is bound to."""
        return json.dumps({"tool": self.tool.strip().lower(), "args": _normal(self.args)},
                          sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @property
    def id(self) -> str:
        return request_digest(self)[:12]


class Approver(Protocol):
    def approve(self, request: ApprovalRequest) -> ApprovalAnswer: ...


def keeps_grants(approver: Approver) -> bool:
    """Whether ``approver`` keeps allow-always grants itself (the approval service does): then
    no local grant file answers for it, and none is written for its answers. An approver says
    so with a true ``keeps_grants`` attribute."""
    return bool(getattr(approver, "keeps_grants", False))


def can_approve(approver: Approver) -> bool:
    """Whether ``approver`` could answer yes now. An approver says it cannot with a false
    ``can_approve`` attribute or property; one that does not say is taken to be able."""
    return bool(getattr(approver, "can_approve", True))


class DenyAllApprover:
    """For unattended runs: every ASK becomes a deny, remembered grants included."""

    can_approve = False

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer.DENY


class CallbackApprover:
    """Asks ``fn``. An exception, a wrong type, or no answer within ``timeout_s`` is a deny."""

    def __init__(self, fn: Callable[[ApprovalRequest], ApprovalAnswer],
                 timeout_s: float | None = None) -> None:
        self.fn = fn
        self.timeout_s = timeout_s

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        box: list[object] = []

        def run() -> None:
            try:
                box.append(self.fn(request))
            except Exception:  # fail closed: a broken approver approves nothing
                box.append(None)

        if self.timeout_s is None:
            run()
        else:
            worker = threading.Thread(target=run, daemon=True, name="clawgate-approval")
            worker.start()
            worker.join(self.timeout_s)
        answer = box[0] if box else None
        return answer if isinstance(answer, ApprovalAnswer) else ApprovalAnswer.DENY



def request_digest(request: ApprovalRequest) -> str:
    return hashlib.sha256(request.key.encode("utf-8", "surrogatepass")).hexdigest()
