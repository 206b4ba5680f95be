"""The bubblewrap sandbox's system-call filter against the real ``bwrap`` and real system calls:
what it refuses is refused and recorded, ordinary work runs unchanged and unrecorded."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from clawgate.errors import SandboxUnavailable
from clawgate.executors import BwrapExecutor, ExecRequest, SpawnLimiter, seccomp_notify
from clawgate.executors import bwrap as bwrap_module
from clawgate.executors.seccomp_filter import DENIED, build_program
from clawgate.executors.seccomp_notify import KEEP, SyscallWatch
from clawgate.executors.settings import executor_from_settings

pytestmark = pytest.mark.bwrap

EPERM, ENOSYS = 1, 38
# Calls the raw system call NR with integer ARGS and prints "result errno".
SYSCALL = ("import ctypes, sys; l = ctypes.CDLL(None, use_errno=True); "
           "l.syscall.restype = ctypes.c_long; "
           "r = l.syscall(*map(int, sys.argv[1:])); print(r, ctypes.get_errno())")
LOADER = Path(seccomp_notify.__file__).with_name("seccomp_loader.py")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox's toolchain cache in the test's directory, not the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def syscall(*numbers: int) -> str:
    return shlex.join(["python3", "-c", SYSCALL, *map(str, numbers)])


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> BwrapExecutor:
    return BwrapExecutor(workspace=tmp_path_factory.mktemp("seccomp-ws"),
                         limiter=SpawnLimiter(5))


# (the call, as a command line; the name the refusal is recorded under)
REFUSED = [
    (syscall(DENIED["unshare"], 0x10000000), "unshare"),  # CLONE_NEWUSER
    (syscall(DENIED["setns"], 0, 0), "setns"),
    (syscall(56, 0x10000000 | 17, 0, 0, 0, 0), "clone"),  # clone(CLONE_NEWUSER | SIGCHLD)
    (syscall(56, 0x40000000 | 17, 0, 0, 0, 0), "clone"),  # clone(CLONE_NEWNET | SIGCHLD)
    (syscall(DENIED["mount"], 0, 0, 0, 0, 0), "mount"),
    (syscall(DENIED["umount2"], 0, 0), "umount2"),
    (syscall(DENIED["pivot_root"], 0, 0), "pivot_root"),
    (syscall(DENIED["ptrace"], 16, 1, 0, 0), "ptrace"),  # PTRACE_ATTACH
    (syscall(DENIED["kexec_load"], 0, 0, 0, 0), "kexec_load"),
    (syscall(DENIED["kexec_file_load"], 0, 0, 0, 0, 0), "kexec_file_load"),
    (syscall(DENIED["bpf"], 0, 0, 0), "bpf"),
    (syscall(DENIED["keyctl"], 0, 0, 0, 0, 0), "keyctl"),
    (syscall(DENIED["add_key"], 0, 0, 0, 0, 0), "add_key"),
    (syscall(DENIED["request_key"], 0, 0, 0, 0), "request_key"),
    (syscall(DENIED["init_module"], 0, 0, 0), "init_module"),
    (syscall(DENIED["finit_module"], 0, 0, 0), "finit_module"),
    (syscall(DENIED["delete_module"], 0, 0), "delete_module"),
    (syscall(DENIED["reboot"], 0, 0, 0, 0), "reboot"),
    (syscall(DENIED["swapon"], 0, 0), "swapon"),
    (syscall(DENIED["open_by_handle_at"], 0, 0, 0), "open_by_handle_at"),
    (syscall(DENIED["perf_event_open"], 0, 0, 0, 0, 0), "perf_event_open"),
    (syscall(DENIED["userfaultfd"], 0), "userfaultfd"),
    (syscall(DENIED["io_uring_setup"], 0, 0), "io_uring_setup"),
    (syscall(41, 17, 3, 0), "socket"),  # socket(AF_PACKET, SOCK_RAW)
    (syscall(41, 2, 3, 1), "socket"),  # socket(AF_INET, SOCK_RAW, ICMP)
    (syscall(41, 10, 3 | 0o2000000, 58), "socket"),  # AF_INET6, SOCK_RAW | SOCK_CLOEXEC
]


@pytest.mark.parametrize(("command", "name"), REFUSED)
def test_a_refused_call_fails_with_eperm_and_is_recorded(sandbox: BwrapExecutor, command: str,
                                                         name: str) -> None:
    done = sandbox.run(ExecRequest(command))
    assert (done.exit_code, done.stdout) == (0, f"-1 {EPERM}\n"), done.stderr
    assert done.refusal_counts == ((name, "denied", 1),)
    assert [(r.name, r.kind) for r in done.refusals] == [(name, "denied")]


def test_unshare_r_fails_and_is_recorded(sandbox: BwrapExecutor) -> None:
    done = sandbox.run(ExecRequest("unshare -r true"))
    assert done.exit_code == 1
    assert "Operation not permitted" in done.stderr
    assert done.refusal_counts == (("unshare", "denied", 1),)
    assert done.refusals[0].args[0] == 0x10000000  # CLONE_NEWUSER, as the filter saw it


def test_ptrace_attach_of_a_sibling_fails(sandbox: BwrapExecutor) -> None:
    attach = ("import ctypes, sys; l = ctypes.CDLL(None, use_errno=True); "
              "print(l.ptrace(16, int(sys.argv[1]), 0, 0), ctypes.get_errno())")
    done = sandbox.run(ExecRequest(f"sleep 30 & python3 -c {shlex.quote(attach)} $!; "
                                   "kill $!"))
    assert done.stdout == f"-1 {EPERM}\n", done.stderr
    assert done.refusal_counts == (("ptrace", "denied", 1),)


def test_strace_p_cannot_attach(sandbox: BwrapExecutor) -> None:
    done = sandbox.run(ExecRequest("sleep 30 & strace -p $! true; echo rc=$?; kill $!"))
    if "not found" in done.stderr:
        pytest.skip("strace is not installed")
    assert "rc=1" in done.stdout
    assert {name for name, _kind, _count in done.refusal_counts} == {"ptrace"}


@pytest.mark.parametrize(("command", "stdout"), [
    (syscall(500), f"-1 {ENOSYS}\n"),  # past the table: newer than the filter
    (syscall(0x40000000 | 39), f"-1 {ENOSYS}\n"),  # the x32 ABI's getpid
])
def test_an_unknown_call_gets_enosys_and_is_recorded_as_unknown(
        sandbox: BwrapExecutor, command: str, stdout: str) -> None:
    done = sandbox.run(ExecRequest(command))
    number = int(command.rsplit(maxsplit=1)[-1])
    assert done.stdout == stdout, done.stderr
    assert done.refusal_counts == ((f"syscall#{number}", "unknown", 1),)


def test_clone3_gets_enosys_unrecorded(sandbox: BwrapExecutor) -> None:
    """Its flags are out of the filter's sight; libc falls back to clone, which is checked."""
    done = sandbox.run(ExecRequest(syscall(435, 0, 0)))
    assert (done.stdout, done.refusal_counts) == (f"-1 {ENOSYS}\n", ())


ORDINARY = [
    ("python3 -c 'print(6 * 7)'", "42\n"),
    ("for i in 1 2 3; do echo $i; done", "1\n2\n3\n"),
    ("python3 -c 'import threading; t = threading.Thread(target=print, args=(\"t\",)); "
     "t.start(); t.join()'", "t\n"),
    ("sleep 0.1 & wait; echo waited", "waited\n"),
    ("python3 -c 'import socket; s = socket.socket(); s.close(); "
     "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.close(); print(\"sockets\")'",
     "sockets\n"),
    ("python3 -c 'import subprocess; print(subprocess.run([\"true\"]).returncode)'", "0\n"),
]


@pytest.mark.parametrize(("command", "stdout"), ORDINARY)
def test_ordinary_work_runs_unchanged_and_unrecorded(sandbox: BwrapExecutor, command: str,
                                                     stdout: str) -> None:
    done = sandbox.run(ExecRequest(command))
    assert (done.exit_code, done.stdout, done.refusals, done.refusal_counts) == \
        (0, stdout, (), ()), done.stderr


def test_git_and_pip_run_unchanged(repo: Path) -> None:
    sandbox = BwrapExecutor(workspace=repo, limiter=SpawnLimiter(5))
    status = sandbox.run(ExecRequest("git status --short"))
    pip = sandbox.run(ExecRequest("python3 -m pip --version"))
    assert (status.exit_code, status.refusal_counts) == (0, ()), status.stderr
    assert (pip.exit_code, pip.refusal_counts) == (0, ()), pip.stderr
    assert pip.stdout.startswith("pip ")


def test_a_loop_is_answered_every_time_and_kept_bounded(sandbox: BwrapExecutor) -> None:
    done = sandbox.run(ExecRequest(
        "n=0; for i in $(seq 100); do unshare -r true 2>/dev/null || n=$((n+1)); done; "
        "echo $n"))
    assert done.stdout == "100\n"
    assert done.refusal_counts == (("unshare", "denied", 100),)
    assert len(done.refusals) == KEEP


def test_the_refusals_reach_policy_run_json(sandbox: BwrapExecutor) -> None:
    shown = sandbox.run(ExecRequest("unshare -r true")).as_dict()
    assert shown["refused_syscalls"] == {
        "calls": [{"syscall": "unshare", "nr": DENIED["unshare"], "kind": "denied",
                   "pid": shown["refused_syscalls"]["calls"][0]["pid"],  # type: ignore[index]
                   "args": shown["refused_syscalls"]["calls"][0]["args"]}],  # type: ignore[index]
        "counts": [{"syscall": "unshare", "kind": "denied", "count": 1}]}
    assert "refused_syscalls" not in sandbox.run(ExecRequest("true")).as_dict()


def test_the_policy_can_turn_the_filter_off(workspace: Path) -> None:
    """Only explicitly: then nothing is refused by it and nothing recorded."""
    default = executor_from_settings({"kind": "bwrap"}, workspace=workspace)
    off = executor_from_settings({"kind": "bwrap", "seccomp": {"enabled": False}},
                                 workspace=workspace)
    assert (getattr(default, "seccomp", None), getattr(off, "seccomp", None)) == (True, False)
    done = off.run(ExecRequest(syscall(DENIED["unshare"], 0x10000000)))
    assert (done.stdout, done.refusal_counts) == ("0 0\n", ())


def test_a_machine_the_filter_is_not_written_for_refuses_to_run(
        workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bwrap_module, "supported_machine", lambda: False)
    with pytest.raises(SandboxUnavailable, match=r"x86_64.*seccomp\.enabled: false"):
        BwrapExecutor(workspace=workspace)
    assert BwrapExecutor(workspace=workspace, seccomp=False).seccomp is False


def test_a_filter_that_cannot_be_installed_runs_nothing(
        workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = BwrapExecutor(workspace=workspace, limiter=SpawnLimiter(5))
    monkeypatch.setattr(seccomp_notify, "build_program", lambda: b"not bpf")
    with pytest.raises(SandboxUnavailable, match=r"could not be installed: .*whole BPF"):
        sandbox.run(ExecRequest("touch ran"))
    assert not (workspace / "ran").exists()


def test_the_loader_reports_its_failure_and_does_not_exec(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with SyscallWatch(program=b"\x06\x00") as watch:
        done = subprocess.run([sys.executable, "-I", "-S", str(LOADER), str(watch.child_fd),
                               "touch", str(marker)], pass_fds=(watch.child_fd,),
                              capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 125
    assert "the command was not run" in done.stderr
    assert watch.report.failure is not None and "whole BPF" in watch.report.failure
    assert (watch.report.installed, marker.exists()) == (False, False)


def test_the_program_is_whole_instructions_and_checks_the_architecture_first() -> None:
    program = build_program()
    assert len(program) % 8 == 0
    assert program[:8] == bytes.fromhex("2000000004000000")  # ld [4]: seccomp_data.arch
