"""The driver inside the bash oracle's sandbox: runs many lines, one after another, each in a
fresh ``bash -c`` (run as a script there, with the standard library only: ``python -s -S``).

Protocol on stdin/stdout, one exchange per line: the parent writes a 4-byte big-endian length
and the line's bytes; the driver answers a 4-byte length, one status byte (``0`` ended, ``1``
stopped: at the bound, or having run ``MAX_RAN`` programs) and the bytes the recorder stubs
logged. A length of 0 ends the driver.

Before each line the scratch places (``/tmp`` but the oracle's own directory, the home) are
emptied and the working directory made again; after it, every process of the sandbox but the
driver and its init is killed (background jobs the line left, whatever group or session they
moved to), then the log is read and emptied.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import time

MAX_LOG = 1 << 20
MAX_RAN = 40  # programs run after which a line is stopped
POLL_S = 0.02


class Driver:
    """``argv``: the oracle's directory, the working directory, the home, the bound in
    seconds, ``PATH`` and the ``command_not_found_handle`` function's body."""

    def __init__(self, argv: list[str]) -> None:
        self.oracle, self.work, self.home = argv[0], argv[1], argv[2]
        self.bound_s = float(argv[3])
        self.log = os.path.join(self.oracle, "log")
        self.env = {"HOME": self.home, "PATH": argv[4],
                    "BASH_ENV": os.path.join(self.oracle, "env"),
                    "BASH_FUNC_command_not_found_handle%%": argv[5]}

    def fresh_places(self) -> None:
        for place, keep in (("/tmp", os.path.basename(self.oracle)), (self.home, "")):
            with os.scandir(place) as found:
                for entry in found:
                    if entry.name == keep:
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path, ignore_errors=True)
                    else:
                        os.unlink(entry.path)
        os.makedirs(self.home, exist_ok=True)
        os.makedirs(self.work, exist_ok=True)

    def _wait(self, pid: int) -> bool:
        """Whether the line ended by itself: before its bound, and before it logged
        ``MAX_RAN`` programs (a loop of programs, each run alike, tells no more)."""
        pidfd = os.pidfd_open(pid)
        deadline = time.monotonic() + self.bound_s
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or self._logged() > MAX_RAN:
                    return False
                if select.select([pidfd], [], [], min(left, POLL_S))[0]:
                    return True
        finally:
            os.close(pidfd)

    def _logged(self) -> int:
        with open(self.log, "rb") as log:
            return log.read(MAX_LOG).count(b"\x1e")

    def run(self, line: bytes) -> tuple[int, bytes]:
        self.fresh_places()
        process = subprocess.Popen(
            [os.path.join(self.oracle, "bash"), "--noprofile", "--norc", "-c", line],
            cwd=self.work, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        ended = self._wait(process.pid)
        _kill_the_rest()
        process.wait()
        with open(self.log, "rb+") as log:
            logged = log.read(MAX_LOG)
            log.truncate(0)
        return (0 if ended else 1), logged


def _exact(fd: int, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _kill_the_rest() -> None:
    me = os.getpid()
    for _ in range(3):  # a process may fork while the list is read: look again
        others = [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) not in (1, me)]
        if not others:
            return
        for pid in others:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in others:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def main() -> None:
    if os.getpid() != 2:  # pid 1 is bwrap's reaper: anything else is not this sandbox
        sys.exit("the oracle's driver runs only as pid 2 of its own pid namespace")
    driver = Driver(sys.argv[1:])
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    while True:
        try:
            (size,) = struct.unpack(">I", _exact(stdin, 4))
            if size == 0:
                return
            status, logged = driver.run(_exact(stdin, size))
        except EOFError:
            return
        answer = struct.pack(">IB", len(logged), status) + logged
        while answer:
            answer = answer[os.write(stdout, answer):]


if __name__ == "__main__":
    main()
