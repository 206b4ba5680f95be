"""Real bash as the judge of what a line runs: every program is a recorder stub.

``Oracle().ran(line)`` runs ``line`` with ``bash -c`` inside bubblewrap and returns the argv of
every program bash executed, in order; ``unjudged(line, engine)`` the ones the engine never put
to its validators. Nothing real runs and nothing of the machine is reachable:

- the system is read-only, ``/tmp`` and the home are empty tmpfs, the cwd is a scratch
  directory on that tmpfs, every namespace is unshared (no network);
- every directory of ``PATH`` (``/usr/bin``, ``/usr/sbin``, ``/usr/local/bin``,
  ``/usr/local/sbin``; ``/bin`` and ``/sbin`` link into ``/usr``) is replaced by a directory
  holding one recorder stub for each name it held, so a program named by its name or by its
  absolute path runs the stub; a name found nowhere is recorded by bash's
  ``command_not_found_handle``;
- a stub appends its argv to a log and exits 0, reading nothing; builtins (``eval``,
  ``source``, functions, arithmetic, ``exec`` of a stub) run as bash runs them; bash waits
  for its background jobs and coprocesses before it exits (an EXIT trap set through
  ``BASH_ENV``, which a line that sets its own EXIT trap replaces).

One sandbox serves many lines: a driver inside it (``_oracle_driver.py``, run by the
interpreter running this) runs each line in a fresh bash, on a fresh scratch directory and
home, kills whatever the line left running, and hands back its log. A line still running at
its bound (``bound_s``), or having run a few hundred programs (a loop: stubs always succeed),
is stopped and what it ran by then is its answer (``Run.timed_out``); a loop of builtins ends
after ``STEPS`` simple commands (a ``DEBUG`` trap set through ``BASH_ENV``).
Bash, the stubs' interpreter (dash), the driver and its interpreter are bound in at
``/tmp/.oracle`` before the directories are replaced. The argv's first word is the basename of
the program as run.

This is a tool for tests (a policy's, or the reader's): it needs bubblewrap, bash and dash.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO

from clawgate.records import record
from clawgate.testing import _oracle_driver

ORACLE = "/tmp/.oracle"
WORK = "/tmp/work"
HOME = "/home/oracle"
BIN_DIRS = ("/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin")
_FIELD, _RECORD = "\x1f", "\x1e"
# One write per execution (O_APPEND), so that the stages of a pipeline do not interleave.
_RECORDER = f"""#!{ORACLE}/dash
r=$(printf '%s\\037' "${{0##*/}}" "$@"; printf x)
printf '%s\\036' "${{r%x}}" >> {ORACLE}/log
"""
# printf -v, not $( ): a subshell would run the line's DEBUG trap into the record
_NOT_FOUND = ("() { printf -v r '%s\\037' \"$@\"; "
              f"printf '%s\\036' \"$r\" >> {ORACLE}/log; return 0; }}")
# Background jobs run to their end too; a loop of builtins ends after STEPS simple commands
# (stubs exit 0: `while true; do :; done` and `while ls; do :; done` would not end). Not in
# functions and subshells (set -T would hand them the line's own DEBUG trap too, which bash
# does not). A line that sets its own traps replaces these.
STEPS = 5000
_STARTUP = f"""trap wait EXIT
__oracle_steps=0
trap '((++__oracle_steps > {STEPS})) && exit 0' DEBUG
"""
_SCRATCH = ("/tmp", "/home", "/root")  # emptied in the sandbox
_ANSWER_SLACK_S = 30.0  # beyond the line's bound: the driver is stuck, a hang guard


class OracleError(RuntimeError):
    """The sandbox did not start, died, or a line cannot be handed to bash."""


@record(frozen=True, slots=True)
class Run:
    """What bash ran for one line: every program's argv in order; ``timed_out`` if the line
    was still running at its bound (then ``argvs`` is what it ran until then)."""

    argvs: tuple[tuple[str, ...], ...]
    timed_out: bool


def available() -> str | None:
    """Why the oracle cannot run here, or None."""
    for program in ("bwrap", "bash", "dash"):
        if shutil.which(program) is None:
            return f"{program} is missing"
    try:
        ran("true")
    except OracleError as exc:
        return str(exc)
    return None


def ran(line: str) -> list[tuple[str, ...]]:
    """The argv of every program bash ran for ``line``, in order (a sandbox of its own)."""
    with Oracle() as oracle:
        return list(oracle.run(line).argvs)


class Oracle:
    """One sandbox, many lines: ``with Oracle() as o: o.run(line)``. A sandbox that dies is
    started again at the next line."""

    def __init__(self, bound_s: float = 5.0) -> None:
        self.bound_s = bound_s
        self._dir = tempfile.TemporaryDirectory(prefix="clawgate-bashoracle-")
        self._root = Path(self._dir.name)
        self._log = self._root / "log"
        _lay_out(self._root)
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._stop()
        self._dir.cleanup()

    def run(self, line: str) -> Run:
        """What bash ran for ``line``. A NUL cannot be handed to ``bash -c``: OracleError."""
        if "\0" in line:
            raise OracleError("a NUL cannot be passed to bash -c")
        data = line.encode("utf-8", "surrogateescape")
        process = self._started()
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(struct.pack(">I", len(data)) + data)
            process.stdin.flush()
            head = _read(process.stdout, 5, self.bound_s + _ANSWER_SLACK_S)
            size, status = struct.unpack(">IB", head)
            logged = _read(process.stdout, size, _ANSWER_SLACK_S)
        except (OSError, EOFError, TimeoutError) as exc:
            said = self._stop()
            raise OracleError(f"the oracle's sandbox failed: {said or exc}") from exc
        return Run(tuple(_records(logged)), status == 1)

    def runs(self, lines: Iterable[str]) -> list[Run]:
        return [self.run(line) for line in lines]

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        self._stop()
        self._log.write_bytes(b"")
        try:
            with (self._root / "stderr").open("wb") as stderr:
                self._process = subprocess.Popen(
                    _command(self._root, self.bound_s), stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=stderr, env={}, start_new_session=True)
        except OSError as exc:
            raise OracleError(f"bwrap could not start: {exc}") from exc
        return self._process

    def _stop(self) -> str:
        """End the sandbox (it dies with its parent too); what it said on stderr."""
        process, self._process = self._process, None
        if process is None:
            return ""
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()
        path = self._root / "stderr"
        return path.read_text(errors="replace").strip()[-2000:] if path.exists() else ""


def _read(stream: IO[bytes], size: int, timeout_s: float) -> bytes:
    import select

    fd = stream.fileno()
    data = b""
    while len(data) < size:
        if not select.select([fd], [], [], timeout_s)[0]:
            raise TimeoutError("no answer from the oracle's driver")
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise EOFError("the oracle's driver ended")
        data += chunk
    return data


def _records(logged: bytes) -> list[tuple[str, ...]]:
    text = logged.decode("utf-8", "surrogateescape")
    return [tuple(r.split(_FIELD)[:-1]) for r in text.split(_RECORD) if r]


def _lay_out(root: Path) -> None:
    """The recorder, the start-up file and a stub directory per bin directory, each holding a
    stub for every name the real one holds."""
    recorder = root / "recorder"
    recorder.write_text(_RECORDER)
    recorder.chmod(0o755)
    (root / "env").write_text(_STARTUP)
    (root / "log").write_bytes(b"")
    for directory in BIN_DIRS:
        mirror = root / directory.strip("/").replace("/", "_")
        mirror.mkdir()
        names = os.listdir(directory) if os.path.isdir(directory) else []
        for name in names:
            (mirror / name).symlink_to(f"{ORACLE}/recorder")


def _command(root: Path, bound_s: float) -> list[str]:
    def real(program: str) -> str:
        return os.path.realpath(shutil.which(program) or program)

    python_home = sys.base_prefix
    argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for place in _SCRATCH:
        argv += ["--tmpfs", place]
    if any(python_home == p or python_home.startswith(p + "/") for p in _SCRATCH):
        argv += ["--ro-bind", python_home, python_home]  # the driver's standard library
    argv += ["--dir", HOME, "--dir", WORK, "--dir", ORACLE,
             "--ro-bind", real("bash"), f"{ORACLE}/bash",
             "--ro-bind", real("dash"), f"{ORACLE}/dash",
             "--ro-bind", os.path.realpath(sys.executable), f"{ORACLE}/python",
             "--ro-bind", os.path.realpath(_oracle_driver.__file__), f"{ORACLE}/driver.py",
             "--ro-bind", str(root / "recorder"), f"{ORACLE}/recorder",
             "--ro-bind", str(root / "env"), f"{ORACLE}/env",
             "--bind", str(root / "log"), f"{ORACLE}/log"]
    for directory in BIN_DIRS:
        if os.path.isdir(directory):
            argv += ["--ro-bind", str(root / directory.strip("/").replace("/", "_")), directory]
    return [*argv, "--unshare-all", "--die-with-parent", "--new-session", "--chdir", WORK,
            "--clearenv", "--setenv", "PYTHONHOME", python_home,
            f"{ORACLE}/python", "-s", "-S", "-B", f"{ORACLE}/driver.py", ORACLE, WORK, HOME,
            str(bound_s), ":".join(BIN_DIRS), _NOT_FOUND]
