"""Syscall anomalies: what the Guard makes of the system calls the sandbox's filter refused.

The kinds, the windows and the cooldown follow ZeroClaw's detector (zeroclaw-labs/zeroclaw,
``src/security/syscall_anomaly.rs`` and ``docs/syscall-anomaly-detection.md``):

- ``unknown_syscall``: a call outside the known set (here: a number the filter's table does
  not know, answered ENOSYS);
- ``denied_syscall``: a denied call (ZeroClaw raises it in ``strict_mode``; here always: a
  refused call in this sandbox is never noise);
- ``denied_rate_exceeded``: more than ``max_denied_per_minute`` denied calls in a rolling
  60-second window (ZeroClaw's ``max_denied_events_per_minute``, default 5);
- ``event_rate_exceeded``: more than ``max_events_per_minute`` events in that window
  (``max_total_events_per_minute``, default 120);
- at most ``max_alerts_per_minute`` alerts in the window (default 30), and none again for the
  same (kind, system call, program: the command's first word) within ``cooldown_s`` of the last
  (``alert_cooldown_secs``, default 20): a loop does not flood the audit.

Where this differs: ZeroClaw reads seccomp and audit lines out of a command's output, which a
command can forge or leave out; the events here are the refusals the supervisor outside the
sandbox answered (``executors/seccomp_notify.py``). Every refusal is an event; a denied one
(answered EPERM) also counts as a denial, an unknown one does not. State is kept per session,
so one session's loop neither ends another session nor hides its anomalies.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from clawgate.decision import Reason
from clawgate.errors import ToolError, ToolErrorKind

WINDOW_S = 60.0  # ZeroClaw's RATE_WINDOW
SAMPLE_CHARS = 240  # ZeroClaw's MAX_ALERT_SAMPLE_CHARS


class AnomalyKind(StrEnum):
    UNKNOWN_SYSCALL = "unknown_syscall"
    DENIED_SYSCALL = "denied_syscall"
    DENIED_RATE_EXCEEDED = "denied_rate_exceeded"
    EVENT_RATE_EXCEEDED = "event_rate_exceeded"


RULES = {AnomalyKind.UNKNOWN_SYSCALL: "CG-SYS-001", AnomalyKind.DENIED_SYSCALL: "CG-SYS-002",
         AnomalyKind.DENIED_RATE_EXCEEDED: "CG-SYS-003",
         AnomalyKind.EVENT_RATE_EXCEEDED: "CG-SYS-004"}


@dataclass(frozen=True, slots=True)
class AnomalyLimits:
    """The ``executor.seccomp`` keys the detector reads (ZeroClaw's defaults)."""

    max_denied_per_minute: int = 5
    max_events_per_minute: int = 120
    max_alerts_per_minute: int = 30
    cooldown_s: float = 20.0
    end_session: bool = False  # on_anomaly: end-session

    @classmethod
    def from_settings(cls, seccomp: Any) -> AnomalyLimits:
        return cls(seccomp.max_denied_per_minute, seccomp.max_events_per_minute,
                   seccomp.max_alerts_per_minute, seccomp.cooldown_s,
                   seccomp.on_anomaly == "end-session")


@dataclass(frozen=True, slots=True)
class Refused:
    """One refused system call of a run, with how often the run made it."""

    syscall: str
    kind: str  # "denied" | "unknown"
    count: int = 1
    sample: str = ""


@dataclass(frozen=True, slots=True)
class Anomaly:
    kind: AnomalyKind
    command: str
    syscall: str | None
    denied_last_minute: int
    events_last_minute: int
    sample: str

    @property
    def reason(self) -> Reason:
        what = self.kind.value.replace("_", " ")
        said = f"{what}: {self.syscall}" if self.syscall else \
            f"{what}: {self.denied_last_minute} denied, {self.events_last_minute} refused " \
            "system calls in the last minute"
        return Reason(RULES[self.kind], f"sandbox {said}", command=self.command)

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.kind.value, "syscall": self.syscall,
                "denied_events_last_minute": self.denied_last_minute,
                "total_events_last_minute": self.events_last_minute, "sample": self.sample}


def refused_in(result: Mapping[str, Any]) -> list[Refused]:
    """The refusals a command tool's result carries (``ExecResult.refused_syscalls``)."""
    shown = result.get("refused_syscalls")
    if not isinstance(shown, Mapping):
        return []
    samples: dict[str, str] = {}
    for call in shown.get("calls") or ():
        name = str(call.get("syscall"))
        samples.setdefault(name, f"{name}({', '.join(call.get('args') or ())}) "
                                 f"pid {call.get('pid')}"[:SAMPLE_CHARS])
    return [Refused(str(c["syscall"]), str(c["kind"]), int(c["count"]),
                    samples.get(str(c["syscall"]), "")) for c in shown.get("counts") or ()]


@dataclass
class _Session:
    events: deque[tuple[float, int, int]] = field(default_factory=deque)  # at, denied, total
    alerts: deque[float] = field(default_factory=deque)
    last_alert: dict[tuple[AnomalyKind, str | None, str], float] = field(default_factory=dict)

    def prune(self, now: float, cooldown_s: float) -> None:
        while self.events and now - self.events[0][0] > WINDOW_S:
            self.events.popleft()
        while self.alerts and now - self.alerts[0] > WINDOW_S:
            self.alerts.popleft()
        for key in [k for k, at in self.last_alert.items() if now - at > max(WINDOW_S, cooldown_s)]:
            del self.last_alert[key]

    def counts(self) -> tuple[int, int]:
        return sum(e[1] for e in self.events), sum(e[2] for e in self.events)


class SyscallAnomalyDetector:
    """Turns each run's refusals into anomalies; thread-safe, state per session."""

    def __init__(self, limits: AnomalyLimits | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits or AnomalyLimits()
        self._clock = clock
        self._sessions: dict[str, _Session] = {}
        self._ended: dict[str, str] = {}
        self._lock = threading.Lock()

    def observe(self, session: str, command: str, refused: Sequence[Refused]) -> list[Anomaly]:
        """The anomalies to record for one run of ``command`` (after cooldown and the cap);
        with ``end_session``, any of them ends ``session``."""
        if not refused:
            return []
        with self._lock:
            state = self._sessions.setdefault(session, _Session())
            now = self._clock()
            state.prune(now, self.limits.cooldown_s)
            raised = self._raise(state, now, command, refused)
            emitted = [a for a in raised if self._emit(state, now, a)]
            if emitted and self.limits.end_session:
                self._ended.setdefault(session, emitted[0].reason.message)
            return emitted

    def require_open(self, session: str) -> None:
        """Raise PermissionDenied if an anomaly ended ``session``."""
        with self._lock:
            why = self._ended.get(session)
        if why is not None:
            raise ToolError(ToolErrorKind.PERMISSION_DENIED,
                            f"this session was ended by a syscall anomaly ({why}); the policy's "
                            "executor.seccomp.on_anomaly is end-session")

    def _raise(self, state: _Session, now: float, command: str,
               refused: Sequence[Refused]) -> list[Anomaly]:
        out: list[Anomaly] = []
        for one in refused:
            denied = one.count if one.kind == "denied" else 0
            state.events.append((now, denied, one.count))
            kind = AnomalyKind.DENIED_SYSCALL if denied else AnomalyKind.UNKNOWN_SYSCALL
            out.append(Anomaly(kind, command, one.syscall, *state.counts(), one.sample))
        denied_now, total_now = state.counts()
        first_denied = next((r.sample for r in refused if r.kind == "denied"), "")
        if denied_now > self.limits.max_denied_per_minute:
            out.append(Anomaly(AnomalyKind.DENIED_RATE_EXCEEDED, command, None, denied_now,
                               total_now, first_denied))
        if total_now > self.limits.max_events_per_minute:
            out.append(Anomaly(AnomalyKind.EVENT_RATE_EXCEEDED, command, None, denied_now,
                               total_now, refused[0].sample))
        return out

    def _emit(self, state: _Session, now: float, anomaly: Anomaly) -> bool:
        """ZeroClaw's ``should_emit_alert``: under the per-minute cap, and not within the
        cooldown of the same (kind, system call, program)."""
        if len(state.alerts) >= self.limits.max_alerts_per_minute:
            return False
        key = (anomaly.kind, anomaly.syscall, program_of(anomaly.command))
        last = state.last_alert.get(key)
        if last is not None and now - last < self.limits.cooldown_s:
            return False
        state.alerts.append(now)
        state.last_alert[key] = now
        return True


def program_of(command: str) -> str:
    """ZeroClaw's ``command_identity``: the first word, lower-cased, at most 64 characters."""
    words = command.split()
    return (words[0] if words else "-").lower()[:64]
