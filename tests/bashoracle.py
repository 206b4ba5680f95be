"""Real bash as the judge of what a line runs, for tests: every program is a recorder stub.

``ran(line)`` runs ``line`` with ``bash -c`` inside bubblewrap and returns the argv of every
program bash executed, in order. Nothing real runs and nothing of the machine is reachable:

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
  ``BASH_ENV``, which a line that sets its own EXIT trap replaces);
- a run that does not end within its bound is killed with its sandbox (a hang guard).

Bash and the stubs' interpreter (dash) are bound in at ``/tmp/.oracle`` before the
directories are replaced. The argv's first word is the basename of the program as run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings
from clawgate.shell.model import BRACE, GLOB, TILDE, SimpleCommand
from clawgate.validators.base import Context

ORACLE = "/tmp/.oracle"
LOG = f"{ORACLE}/log"
_BIN_DIRS = ("/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin")
_FIELD, _RECORD = "\x1f", "\x1e"
# One write per execution (O_APPEND), so that the stages of a pipeline do not interleave.
_RECORDER = f"""#!{ORACLE}/dash
r=$(printf '%s\\037' "${{0##*/}}" "$@"; printf x)
printf '%s\\036' "${{r%x}}" >> {LOG}
"""
_NOT_FOUND = ("() { r=$(printf '%s\\037' \"$@\"; printf x); "
              f"printf '%s\\036' \"${{r%x}}\" >> {LOG}; return 0; }}")
_HANG_GUARD_S = 20.0
_ANY_WORDS = frozenset({GLOB, BRACE, TILDE})


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


class OracleError(RuntimeError):
    """The sandbox did not start or bash could not be run."""


@cache
def _stubs() -> Path:
    """A directory per bin directory, each holding a stub for every name the real one holds."""
    root = Path(tempfile.mkdtemp(prefix="clawgate-bashoracle-"))
    recorder = root / "recorder"
    recorder.write_text(_RECORDER)
    recorder.chmod(0o755)
    (root / "env").write_text("trap wait EXIT\n")  # background jobs run to their end too
    for directory in _BIN_DIRS:
        mirror = root / directory.strip("/").replace("/", "_")
        mirror.mkdir()
        names = os.listdir(directory) if os.path.isdir(directory) else []
        for name in names:
            (mirror / name).symlink_to(f"{ORACLE}/recorder")
    return root


def _command(line: str, log: Path) -> list[str]:
    root = _stubs()
    argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--tmpfs", "/home", "--tmpfs", "/root",
            "--dir", "/home/oracle", "--dir", "/tmp/work", "--dir", ORACLE,
            "--ro-bind", os.path.realpath(shutil.which("bash") or "bash"), f"{ORACLE}/bash",
            "--ro-bind", os.path.realpath(shutil.which("dash") or "dash"), f"{ORACLE}/dash",
            "--ro-bind", str(root / "recorder"), f"{ORACLE}/recorder",
            "--ro-bind", str(root / "env"), f"{ORACLE}/env",
            "--bind", str(log), LOG]
    for directory in _BIN_DIRS:
        if os.path.isdir(directory):
            argv += ["--ro-bind", str(root / directory.strip("/").replace("/", "_")), directory]
    argv += ["--unshare-all", "--die-with-parent", "--new-session", "--chdir", "/tmp/work",
             "--clearenv", "--setenv", "HOME", "/home/oracle",
             "--setenv", "PATH", ":".join(_BIN_DIRS),
             "--setenv", "BASH_FUNC_command_not_found_handle%%", _NOT_FOUND,
             "--setenv", "BASH_ENV", f"{ORACLE}/env",
             f"{ORACLE}/bash", "--noprofile", "--norc", "-c", line]
    return argv


def ran(line: str) -> list[tuple[str, ...]]:
    """The argv of every program bash ran for ``line``, in order (stubs and names not found).
    A line holding a NUL cannot be handed to ``bash -c``: OracleError."""
    if "\0" in line:
        raise OracleError("a NUL cannot be passed to bash -c")
    with tempfile.NamedTemporaryFile(prefix="clawgate-oracle-log-") as log:
        try:
            done = subprocess.run(_command(line, Path(log.name)), capture_output=True,
                                  timeout=_HANG_GUARD_S, check=False)
        except subprocess.TimeoutExpired:
            done = None
        except OSError as exc:
            raise OracleError(f"bwrap could not start: {exc}") from exc
        if done is not None and done.returncode != 0 and b"bwrap:" in done.stderr:
            raise OracleError(done.stderr.decode(errors="replace").strip())
        text = Path(log.name).read_bytes().decode("utf-8", "surrogateescape")
    records = [r for r in text.split(_RECORD) if r]
    return [tuple(r.split(_FIELD)[:-1]) for r in records]


def unjudged(line: str, engine: Engine | None = None) -> list[tuple[str, ...]]:
    """The argv bash ran for ``line`` that the engine judged no command for: none whose
    program is the one bash ran and whose known words are the words bash passed (a word known
    only at run time, a glob, a brace or a tilde stands for any words)."""
    seen = _judged(line, engine or Engine())
    return [argv for argv in ran(line) if not any(_matches(argv, cmd) for cmd in seen)]


def _judged(line: str, engine: Engine) -> list[SimpleCommand]:
    """Every simple command the engine put to its validators while deciding ``line``."""
    seen: list[SimpleCommand] = []
    recording = _Recording(engine.settings, seen)
    recording.check(line, cwd="/tmp/work")
    return seen


class _Recording(Engine):
    """An engine that notes each simple command it judges (the real one; nothing replaced)."""

    def __init__(self, settings: EngineSettings, seen: list[SimpleCommand]) -> None:
        super().__init__(settings, cache_size=0)
        self._seen = seen

    def _check_command(self, cmd: SimpleCommand, ctx: Context, run: Any, depth: int,
                       exact: bool = False) -> None:
        self._seen.append(cmd)
        super()._check_command(cmd, ctx, run, depth, exact)


def _matches(argv: tuple[str, ...], cmd: SimpleCommand) -> bool:
    if not cmd.words or (cmd.program is not None and cmd.program != argv[0]):
        return False
    if any(w.value is None or w.expansions & _ANY_WORDS for w in cmd.words):
        return True
    return tuple(w.value for w in cmd.words[1:]) == argv[1:]
