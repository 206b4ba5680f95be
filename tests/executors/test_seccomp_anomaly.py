"""The syscall-anomaly detector: ZeroClaw's kinds, rolling windows, cap and cooldown, over the
refusals of runs (a clock of the test's own: the windows are read, never timed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.executors import ExecResult
from clawgate.executors.seccomp_notify import SyscallRefusal
from clawgate.policy.loader import load_policy
from clawgate.syscall_anomaly import (
    AnomalyKind,
    AnomalyLimits,
    Refused,
    SyscallAnomalyDetector,
    refused_in,
)

K = AnomalyKind
UNSHARE = Refused("unshare", "denied", 1, "unshare(0x10000000) pid 7")
PTRACE = Refused("ptrace", "denied", 1, "ptrace(0x10, 0x1) pid 8")
UNKNOWN = Refused("syscall#500", "unknown", 1, "syscall#500() pid 9")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def detector(clock: Clock, **limits: object) -> SyscallAnomalyDetector:
    return SyscallAnomalyDetector(AnomalyLimits(**limits), clock=clock)  # type: ignore[arg-type]


def kinds(found: list[object]) -> list[tuple[str, str | None]]:
    return [(a.kind.value, a.syscall) for a in found]  # type: ignore[attr-defined]


def test_a_denied_call_is_a_denied_syscall(clock: Clock) -> None:
    (found,) = detector(clock).observe("s", "unshare -r true", [UNSHARE])
    assert found.as_dict() == {"kind": "denied_syscall", "syscall": "unshare",
                               "denied_events_last_minute": 1, "total_events_last_minute": 1,
                               "sample": "unshare(0x10000000) pid 7"}
    assert (found.reason.rule_id, found.reason.message, found.reason.command) == \
        ("CG-SYS-002", "sandbox denied syscall: unshare", "unshare -r true")


def test_an_unknown_call_is_an_unknown_syscall_and_no_denial(clock: Clock) -> None:
    (found,) = detector(clock).observe("s", "./probe", [UNKNOWN])
    assert (found.kind, found.syscall, found.denied_last_minute, found.events_last_minute) == \
        (K.UNKNOWN_SYSCALL, "syscall#500", 0, 1)
    assert found.reason.rule_id == "CG-SYS-001"


@pytest.mark.parametrize(("count", "expected"), [
    (5, [("denied_syscall", "ptrace")]),
    (6, [("denied_syscall", "ptrace"), ("denied_rate_exceeded", None)]),
])
def test_denied_rate_exceeded_above_the_limit(clock: Clock, count: int,
                                              expected: list[tuple[str, str | None]]) -> None:
    found = detector(clock).observe("s", "gdb -p 1", [Refused("ptrace", "denied", count)])
    assert kinds(found) == expected


def test_the_denied_rate_adds_up_runs_in_the_window_and_forgets_older_ones(clock: Clock) -> None:
    watch = detector(clock, max_denied_per_minute=2)
    assert kinds(watch.observe("s", "a", [UNSHARE])) == [("denied_syscall", "unshare")]
    clock.now += 30
    assert kinds(watch.observe("s", "b", [UNSHARE])) == [("denied_syscall", "unshare")]
    clock.now += 29
    found = watch.observe("s", "c", [UNSHARE])
    assert kinds(found) == [("denied_syscall", "unshare"), ("denied_rate_exceeded", None)]
    assert found[1].denied_last_minute == 3
    clock.now += 32  # the first two runs are out of the window: 2 denials, at the limit
    assert kinds(watch.observe("s", "d", [UNSHARE])) == [("denied_syscall", "unshare")]


def test_event_rate_exceeded_counts_unknown_calls_too(clock: Clock) -> None:
    found = detector(clock).observe("s", "./fuzz", [Refused("syscall#500", "unknown", 121)])
    assert kinds(found) == [("unknown_syscall", "syscall#500"), ("event_rate_exceeded", None)]
    assert (found[1].denied_last_minute, found[1].events_last_minute) == (0, 121)
    assert found[1].reason.rule_id == "CG-SYS-004"


def test_the_cooldown_holds_back_the_same_anomaly_of_the_same_program(clock: Clock) -> None:
    watch = detector(clock, cooldown_s=20)
    assert len(watch.observe("s", "unshare -r true", [UNSHARE])) == 1
    clock.now += 5
    assert watch.observe("s", "unshare -m true", [UNSHARE]) == []  # same program: held back
    assert kinds(watch.observe("s", "python3 x.py", [UNSHARE])) == [("denied_syscall", "unshare")]
    assert kinds(watch.observe("s", "unshare -r true", [PTRACE])) == [("denied_syscall", "ptrace")]
    clock.now += 16  # 21 s after the first
    assert kinds(watch.observe("s", "unshare -r true", [UNSHARE])) == \
        [("denied_syscall", "unshare")]


def test_a_loop_in_one_run_writes_one_line_per_kind(clock: Clock) -> None:
    watch = detector(clock)
    found = watch.observe("s", "sh loop.sh", [Refused("unshare", "denied", 10_000)])
    assert kinds(found) == [("denied_syscall", "unshare"), ("denied_rate_exceeded", None),
                            ("event_rate_exceeded", None)]
    assert found[1].denied_last_minute == 10_000
    clock.now += 1
    assert watch.observe("s", "sh loop.sh", [Refused("unshare", "denied", 10_000)]) == []


def test_no_more_than_max_alerts_per_minute(clock: Clock) -> None:
    watch = detector(clock, max_alerts_per_minute=2)
    programs = ["a", "b", "c"]
    assert [len(watch.observe("s", p, [UNSHARE])) for p in programs] == [1, 1, 0]
    clock.now += 61
    assert len(watch.observe("s", "d", [UNSHARE])) == 1


def test_sessions_are_apart(clock: Clock) -> None:
    watch = detector(clock, max_denied_per_minute=1)
    watch.observe("loop", "x", [Refused("unshare", "denied", 50)])
    assert kinds(watch.observe("other", "x", [UNSHARE])) == [("denied_syscall", "unshare")]


def test_end_session_ends_only_the_session_with_the_anomaly(clock: Clock) -> None:
    watch = detector(clock, end_session=True)
    watch.observe("quiet", "true", [])
    watch.require_open("quiet")
    watch.observe("bad", "unshare -r true", [UNSHARE])
    with pytest.raises(ToolError) as caught:
        watch.require_open("bad")
    assert caught.value.kind is ToolErrorKind.PERMISSION_DENIED
    assert "ended by a syscall anomaly (sandbox denied syscall: unshare)" in str(caught.value)
    watch.require_open("quiet")


def test_recording_only_never_ends_a_session(clock: Clock) -> None:
    watch = detector(clock)
    watch.observe("s", "unshare -r true", [Refused("unshare", "denied", 500)])
    watch.require_open("s")


def test_the_refusals_of_a_result_are_read_back() -> None:
    result = ExecResult(1, refusals=(SyscallRefusal(7, 272, "unshare", (0x10000000, 0), "denied"),),
                        refusal_counts=(("unshare", "denied", 3), ("syscall#500", "unknown", 1)))
    assert refused_in({"refused_syscalls": result.refused_syscalls()}) == [
        Refused("unshare", "denied", 3, "unshare(0x10000000, 0x0) pid 7"),
        Refused("syscall#500", "unknown", 1, "")]
    assert refused_in({"exit_code": 0}) == []


@pytest.mark.parametrize(("locked", "later", "expected"), [
    ("{enabled: true}", "{enabled: false}", ("enabled", True)),
    ("{on_anomaly: end-session}", "{on_anomaly: record}", ("on_anomaly", "end-session")),
    ("{on_anomaly: record}", "{on_anomaly: end-session}", ("on_anomaly", "end-session")),
    ("{max_denied_per_minute: 5}", "{max_denied_per_minute: 50}",
     ("max_denied_per_minute", 5)),
    ("{max_denied_per_minute: 5}", "{max_denied_per_minute: 1}",
     ("max_denied_per_minute", 1)),
])
def test_a_locked_layer_takes_only_a_stricter_setting(tmp_path: Path, locked: str, later: str,
                                                       expected: tuple[str, object]) -> None:
    admin, project = tmp_path / "admin.yaml", tmp_path / "project.yaml"
    admin.write_text(f"version: 1\nlocked: true\nexecutor: {{seccomp: {locked}}}\n")
    project.write_text(f"version: 1\nexecutor: {{seccomp: {later}}}\n")
    seccomp = load_policy(admin, project).executor.seccomp
    assert getattr(seccomp, expected[0]) == expected[1]
