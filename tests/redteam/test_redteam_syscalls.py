"""Red team: system calls an approved (or misread) command has no business making inside the
bubblewrap sandbox. Each must fail in the command and leave a syscall anomaly in the audit that
names the call. Before the filter, tracing a sibling process and making user namespaces
succeeded, and a raw socket failed without a trace."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from redteam_support import EXECUTORS, guard_for

from clawgate.approval import CallbackApprover
from clawgate.approval.model import ApprovalAnswer

pytestmark = pytest.mark.bwrap

CTYPES = "import ctypes, sys; l = ctypes.CDLL(None, use_errno=True); "
EPERM_LINE = "-1 1\n"  # the call's result and errno, as the snippets print them


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox's toolchain cache in the test's directory, not the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def snippet(body: str) -> str:
    return "python3 -c " + shlex.quote(CTYPES + body)


ATTACKS = [
    # attach to a process of the same sandbox and user: read its memory, steer it
    ("ptrace-attach", "sleep 30 & " + snippet(
        "print(l.ptrace(16, int(sys.argv[1]), 0, 0), ctypes.get_errno())") + " $!; kill $!",
     "ptrace", EPERM_LINE),
    # a user namespace of its own: full capabilities over fresh namespaces, the kernel's
    # largest attack surface
    ("unshare-userns", snippet("print(l.unshare(0x10000000), ctypes.get_errno())"),
     "unshare", EPERM_LINE),
    ("clone-newuser", snippet(
        "r = l.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)\n"
        "if r == 0: sys.exit(0)\n"
        "print(r, ctypes.get_errno())"), "clone", EPERM_LINE),
    ("unshare-r", "unshare -r true 2>/dev/null; echo $?", "unshare", "1\n"),
    ("mount-in-new-ns", "unshare -rm mount -t tmpfs none /tmp 2>/dev/null; echo $?",
     "unshare", "1\n"),
    # a raw or packet socket: forge packets, sniff the namespace's traffic
    ("raw-socket", snippet("import socket\ntry: socket.socket(socket.AF_INET, socket.SOCK_RAW, 1)"
                           "\nexcept PermissionError as e: print(-1, e.errno)"),
     "socket", EPERM_LINE),
    ("packet-socket", snippet("import socket\ntry: socket.socket(socket.AF_PACKET, "
                              "socket.SOCK_RAW)\nexcept PermissionError as e: print(-1, e.errno)"),
     "socket", EPERM_LINE),
    ("bpf", snippet("print(l.syscall(321, 5, 0, 0), ctypes.get_errno())"), "bpf", EPERM_LINE),
]


@pytest.mark.parametrize(("attack", "command", "syscall", "stdout"), ATTACKS,
                         ids=[a[0] for a in ATTACKS])
def test_the_call_fails_and_is_audited(tmp_path: Path, attack: str, command: str, syscall: str,
                                       stdout: str) -> None:
    yes = CallbackApprover(lambda _request: ApprovalAnswer.ALLOW_ONCE)
    with guard_for(tmp_path, EXECUTORS["bwrap"], approver=yes, audit=True) as guard:
        done = guard.call("exec_shell", {"command": command})
        assert done["stdout"] == stdout, (attack, done["stderr"])
        audit = Path(guard.audit_path or "")
    records = [json.loads(line) for line in audit.read_text(encoding="utf-8").splitlines()]
    found = [(r["result"]["kind"], r["result"]["syscall"]) for r in records
             if r["decision"]["outcome"] == "anomaly"]
    assert found == [("denied_syscall", syscall)], attack
