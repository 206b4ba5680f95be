"""The bubblewrap sandbox's system-call filter: which calls it refuses, as a classic BPF program.

The program checks the architecture first (anything but x86_64, such as the i386 ``int 0x80``
entry, kills the process: the numbers below mean nothing there), then refuses, through
``SECCOMP_RET_USER_NOTIF`` so that the supervisor outside the sandbox records each refusal and
answers it (``seccomp_notify.py``):

- ``DENIED``: calls a command has no business making in the sandbox (tracing other processes,
  mounting, loading kernels, modules and BPF programs, the kernel keyring, namespace changes,
  rebooting, swap, handles to files outside the view, performance counters, userfaultfd,
  io_uring, whose operations seccomp cannot see); answered ``EPERM``;
- ``clone`` asking for a new namespace (``CLONE_NEW*`` in its flags) and ``socket`` asking for a
  packet socket or a raw IPv4/IPv6 socket; answered ``EPERM``;
- a number above ``HIGHEST_KNOWN`` or with the x32 bit: a call this table does not know, newer
  than it or of another ABI; answered ``ENOSYS``, as a kernel without it would.

``clone3`` passes its flags in memory a filter cannot read, so it gets ``ENOSYS`` at once,
unrecorded: the C libraries fall back to ``clone``, whose flags are checked (what Docker and
Flatpak do). Every other call is allowed. The numbers are the x86_64 ones
(``arch/x86/entry/syscalls/syscall_64.tbl``).
"""

from __future__ import annotations

import functools
import platform
import struct
from collections.abc import Mapping

AUDIT_ARCH_X86_64 = 0xC000003E
X32_BIT = 0x40000000
HIGHEST_KNOWN = 470  # the last number of the table this filter was written against (Linux 6.18)
EPERM, ENOSYS = 1, 38

# What each refused call would let a command do, by name; the numbers follow.
DENIED: Mapping[str, int] = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,  # other processes
    "mount": 165, "umount2": 166, "pivot_root": 155, "open_tree": 428, "move_mount": 429,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    "unshare": 272, "setns": 308,  # namespaces
    "kexec_load": 246, "kexec_file_load": 320, "reboot": 169,  # the kernel
    "init_module": 175, "finit_module": 313, "delete_module": 176, "bpf": 321,
    "add_key": 248, "request_key": 249, "keyctl": 250,  # the keyring
    "swapon": 167, "swapoff": 168, "acct": 163, "iopl": 172, "ioperm": 173,
    "open_by_handle_at": 304,  # a file by handle, around the mount view
    "perf_event_open": 298, "userfaultfd": 323,  # side channels, exploit primitives
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
}
CLONE, CLONE3, SOCKET = 56, 435, 41
CLONE_NEW_FLAGS = 0x7E020000  # NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
AF_INET, AF_INET6, AF_PACKET, SOCK_RAW, SOCK_TYPE_MASK = 2, 10, 17, 3, 0xF
NAMES: Mapping[int, str] = {number: name for name, number in DENIED.items()}

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_USER_NOTIF = 0x7FC00000
SECCOMP_RET_ALLOW = 0x7FFF0000

# Classic BPF opcodes (linux/filter.h): load a word of seccomp_data, jumps, an AND, a return.
LD_ABS_W, JEQ_K, JGE_K, JGT_K, JSET_K, AND_K, RET_K = 0x20, 0x15, 0x35, 0x25, 0x45, 0x54, 0x06
NR, ARCH, ARG0, ARG1 = 0, 4, 16, 24  # offsets in struct seccomp_data (low words, little end)


class _Program:
    """Instructions with symbolic jump targets, resolved to the 8-bit relative offsets BPF
    wants when the program is packed."""

    def __init__(self) -> None:
        self.code: list[tuple[int, str | None, str | None, int]] = []
        self.labels: dict[str, int] = {}

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def load(self, offset: int) -> None:
        self.code.append((LD_ABS_W, None, None, offset))

    def jump(self, op: int, k: int, true: str | None, false: str | None = None) -> None:
        self.code.append((op, true, false, k))

    def op(self, op: int, k: int) -> None:
        self.code.append((op, None, None, k))

    def packed(self) -> bytes:
        out = bytearray()
        for index, (op, true, false, k) in enumerate(self.code):
            out += struct.pack("<HBBI", op, self._offset(index, true), self._offset(index, false),
                               k)
        return bytes(out)

    def _offset(self, index: int, label: str | None) -> int:
        if label is None:
            return 0
        offset = self.labels[label] - index - 1
        if not 0 <= offset <= 255:
            raise ValueError(f"BPF jump to {label!r} out of range ({offset})")
        return offset


@functools.cache
def build_program() -> bytes:
    """The filter, packed as ``struct sock_filter[]`` for ``seccomp(SET_MODE_FILTER)``; built
    once per process (it depends on nothing but this module)."""
    p = _Program()
    p.load(ARCH)
    p.jump(JEQ_K, AUDIT_ARCH_X86_64, None, "kill")
    p.load(NR)
    p.jump(JGE_K, X32_BIT, "unknown")
    p.jump(JGT_K, HIGHEST_KNOWN, "unknown")
    p.jump(JEQ_K, CLONE3, "enosys")
    for number in sorted(NAMES):
        p.jump(JEQ_K, number, "notify")
    p.jump(JEQ_K, CLONE, "clone")
    p.jump(JEQ_K, SOCKET, "socket", "allow")
    p.label("clone")
    p.load(ARG0)
    p.jump(JSET_K, CLONE_NEW_FLAGS, "notify", "allow")
    p.label("socket")
    p.load(ARG0)
    p.jump(JEQ_K, AF_PACKET, "notify")
    p.jump(JEQ_K, AF_INET, "socket_type")
    p.jump(JEQ_K, AF_INET6, "socket_type", "allow")
    p.label("socket_type")
    p.load(ARG1)
    p.op(AND_K, SOCK_TYPE_MASK)
    p.jump(JEQ_K, SOCK_RAW, "notify", "allow")
    for label, action in (("allow", SECCOMP_RET_ALLOW), ("notify", SECCOMP_RET_USER_NOTIF),
                          ("unknown", SECCOMP_RET_USER_NOTIF),
                          ("enosys", SECCOMP_RET_ERRNO | ENOSYS),
                          ("kill", SECCOMP_RET_KILL_PROCESS)):
        p.label(label)
        p.op(RET_K, action)
    return p.packed()


def known(number: int) -> bool:
    """Whether the filter knows ``number`` (else its refusal is an unknown system call)."""
    return 0 <= number <= HIGHEST_KNOWN


def name_of(number: int) -> str:
    """The name of a refused call, ``syscall#N`` for a number the table does not name."""
    if number in NAMES:
        return NAMES[number]
    return {CLONE: "clone", SOCKET: "socket"}.get(number, f"syscall#{number}")


def supported_machine() -> bool:
    """The filter's numbers are x86_64's."""
    return platform.machine() in ("x86_64", "AMD64")
