"""What real bash does with a line, for labelling ``bashfuscator/corpus.jsonl``: the line runs
in bubblewrap where every program is the real one (decoders decode, ``perl`` and ``gunzip``
run, ``mkdir`` makes directories) except the dangerous programs below, each replaced by a
stub that records its argv. Nothing real is reachable: the system is read-only, ``/tmp`` and
``/home`` are empty tmpfs, the home a scratch directory with a fake key and shell files, every
namespace unshared (no network).

``effects(line)`` says what the line did: the dangerous programs it ran (argv), the files of
the home it changed, the ``/dev/tcp`` connections bash tried; ``reproduces(plain, line)``
whether a line did all that its plain command does.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

RECORDED = ("rm", "sudo", "curl", "wget", "nc", "ncat", "dd", "mkfs.ext4", "chmod", "chown",
            "reboot", "shutdown", "shred", "scp", "tar", "find", "mv", "git")
HOME = "/home/user"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
BIN_DIRS = ("/usr/bin", "/usr/sbin", "/usr/local/bin")
_FIELD, _RECORD = "\x1f", "\x1e"
_STUB = """#!/usr/bin/dash
r=$(printf '%s\\037' "${0##*/}" "$@"; printf x)
printf '%s\\036' "${r%x}" >> /tmp/.oracle/log
"""
_NOT_FOUND = ("() { r=$(printf '%s\\037' \"$@\"; printf x); "
              "printf '%s\\036' \"${r%x}\" >> /tmp/.oracle/log; return 127; }")
Effects = dict[str, list[str]]


class OracleError(RuntimeError):
    """The sandbox could not be made."""


def _home(home: Path) -> None:
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("FAKE KEY\n")
    (home / ".bashrc").write_text("# rc\n")
    (home / ".bash_history").write_text("ls\n")


def _files(home: Path) -> dict[str, str]:
    return {str(p.relative_to(home)): p.read_text(errors="replace")
            for p in sorted(home.rglob("*")) if p.is_file()}


def _argv(base: Path, home: Path, log: Path, line: str) -> list[str]:
    argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--dir", "/tmp/.oracle", "--dir", "/tmp/work",
            "--bind", str(log), "/tmp/.oracle/log",
            "--ro-bind", str(base / "env"), "/tmp/.oracle/env",
            "--tmpfs", "/home", "--bind", str(home), HOME]
    for name in RECORDED:
        for directory in BIN_DIRS:
            if os.path.exists(f"{directory}/{name}"):  # a link's target: bwrap binds files
                argv += ["--ro-bind", str(base / "stub"),
                         os.path.realpath(f"{directory}/{name}")]
    return [*argv, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--chdir", "/tmp/work", "--clearenv", "--setenv", "HOME", HOME,
            "--setenv", "PATH", PATH,
            "--setenv", "BASH_FUNC_command_not_found_handle%%", _NOT_FOUND,
            "--setenv", "BASH_ENV", "/tmp/.oracle/env",
            "/usr/bin/bash", "--noprofile", "--norc", "-c", line]


def effects(line: str, timeout_s: float = 30.0) -> Effects:
    """What ``line`` did under real bash: ``ran`` (the recorded argv, words joined by
    spaces), ``wrote`` (home files changed), ``connected`` (``/dev/tcp`` paths bash tried)."""
    with tempfile.TemporaryDirectory(prefix="clawgate-obf-oracle-") as tmp:
        base = Path(tmp)
        home = base / "home"
        home.mkdir()
        _home(home)
        before = _files(home)
        (base / "stub").write_text(_STUB)
        (base / "stub").chmod(0o755)
        (base / "env").write_text("trap wait EXIT\n")  # background jobs run to their end
        log = base / "log"
        log.write_text("")
        try:
            done = subprocess.run(_argv(base, home, log, line), capture_output=True,
                                  timeout=timeout_s, stdin=subprocess.DEVNULL, check=False)
            said = done.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired:
            said = ""
        if said.startswith("bwrap:"):
            raise OracleError(said.strip())
        records = [r for r in log.read_text(errors="replace").split(_RECORD) if r]
        after = _files(home)
    return {"ran": [" ".join(r.split(_FIELD)[:-1]) for r in records],
            "wrote": sorted(k for k in after if before.get(k) != after[k]),
            "connected": sorted({w.rstrip(":") for w in said.split()
                                 if w.startswith("/dev/tcp/")})}


def reproduces(plain: Effects, line: Effects) -> bool:
    """Whether ``line`` did everything ``plain`` did."""
    return all(set(plain[key]) <= set(line[key]) for key in plain)
