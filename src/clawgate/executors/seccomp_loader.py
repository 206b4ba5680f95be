"""Run inside the sandbox, after bubblewrap has built it: install the system-call filter, hand
its listener to the supervisor outside, then exec the command.

    python -I -S seccomp_loader.py FD COMMAND [ARG]...
    python -I -S seccomp_loader.py FD --python-file FILE [ARG]...


FD is this end of a Unix socket pair the supervisor made. The filter program comes over it (the
supervisor builds it: ``seccomp_filter.py``), the listener of ``SECCOMP_FILTER_FLAG_NEW_LISTENER``
goes back over it (``SCM_RIGHTS``), and only then does the command run: it can make no call the
filter has not seen. When the filter cannot be installed (a kernel without seccomp or without
user notification, a filter with a listener already above us), the reason goes to the
supervisor and to stderr and the command is not run: exit 125. With ``--python-file``, FILE
runs in this interpreter once the filter is on (the egress bridge: one interpreter start-up
for both, not two).

Standard library only, and no clawgate import: this file runs under ``-I -S`` in the sandbox,
on the system's Python where there is one (of any version since 3.7).
"""

from __future__ import annotations

import _ctypes  # not ``ctypes``: its own module (types, struct) is a fifth of the start-up
import _socket  # not ``socket``: its imports (enum, selectors) would double the start-up
import os
import sys

SYS_SECCOMP, SYS_PRCTL = 317, 157
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
PR_SET_NO_NEW_PRIVS = 38
NOT_INSTALLED = 125
MAX_PROGRAM = 65536
PYTHON_FILE = "--python-file"


class CLong(_ctypes._SimpleCData):  # type: ignore[type-arg]  # ctypes.c_long, from its base
    _type_ = "l"


class CUShort(_ctypes._SimpleCData):  # type: ignore[type-arg]  # ctypes.c_ushort
    _type_ = "H"


class CCharP(_ctypes._SimpleCData):  # type: ignore[type-arg]  # ctypes.c_char_p
    _type_ = "z"


class SockFprog(_ctypes.Structure):
    _fields_ = (("len", CUShort), ("filter", CCharP))  # (a pointer to the instructions)


class Syscall(_ctypes.CFuncPtr):
    """libc's ``syscall``, errno kept (ctypes.CDLL(None, use_errno=True).syscall)."""

    _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
    _restype_ = CLong


class Libc:
    """This process's own symbols (ctypes.CDLL(None)), as ``CFuncPtr`` looks them up."""

    _handle = _ctypes.dlopen(None, _ctypes.RTLD_LOCAL)  # type: ignore[arg-type]


def install(program: bytes) -> int:
    """Install ``program`` on this process (inherited by all it starts) and return the
    listener fd. Raises OSError."""
    syscall = Syscall(("syscall", Libc()))  # type: ignore[arg-type]
    if syscall(SYS_PRCTL, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(_ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if not program or len(program) % 8:
        raise OSError(22, "the filter program is not whole BPF instructions")
    prog = SockFprog(len(program) // 8, program)  # the field points into ``program``
    fd = syscall(SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                 _ctypes.byref(prog))
    if fd < 0:
        raise OSError(_ctypes.get_errno(), "seccomp(SECCOMP_SET_MODE_FILTER, NEW_LISTENER)")
    return int(fd)


def main(argv: list[str]) -> int:
    channel = _socket.socket(fileno=int(argv[1]))
    command = argv[2:]
    try:
        listener = install(channel.recv(MAX_PROGRAM))
    except OSError as exc:
        why = f"{exc.strerror or exc} ({exc.filename})" if exc.filename else str(exc)
        channel.send(f"error: {why}".encode())
        sys.stderr.write(f"clawgate: the sandbox's system-call filter could not be installed: "
                         f"{why}; the command was not run\n")
        return NOT_INSTALLED
    # the fd as a C int (not ``array``: it imports ``collections``, a tenth of the start-up)
    channel.sendmsg([b"ok"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS,
                               listener.to_bytes(4, sys.byteorder, signed=True))])
    os.close(listener)
    channel.close()
    if command[:1] == [PYTHON_FILE]:
        return run_python(command[1:])
    try:
        os.execvp(command[0], command)
    except OSError as exc:  # what a shell says: 127 not found, 126 not executable
        sys.stderr.write(f"{command[0]}: {exc.strerror}\n")
        return 127 if isinstance(exc, FileNotFoundError) else 126


def run_python(argv: list[str]) -> int:
    """Run the Python file ``argv[0]`` here, as its own ``__main__`` with ``argv`` as
    ``sys.argv``; its exit status is what it exits with (0 if it returns)."""
    sys.argv = argv
    with open(argv[0], "rb") as source:
        code = compile(source.read(), argv[0], "exec")
    exec(code, {"__name__": "__main__", "__file__": argv[0]})  # clawgate's own file
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
