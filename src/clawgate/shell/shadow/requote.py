"""An execution written back as a command line: what bash would have run, plainly."""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.shell.shadow.records import Descriptor, Execution

_SAFE = lazy_pattern(r"^[A-Za-z0-9_@%+=:,./-]+$")
_PRINTABLE = lazy_pattern(r"^[^\x00-\x1f\x7f]*$")
# descriptors that say nothing of where a program reads or writes
_INERT_TARGETS = ("pipe:", "socket:", "anon_inode:", "/dev/null", "/dev/pts/", "/dev/tty",
                  "/proc/", "/.clawgate-shadow/", "/dev/zero", "/dev/urandom", "/dev/random")


def quote(word: str) -> str:
    """``word`` as one bash word: bare when safe, single-quoted when printable, else an ANSI-C
    string (a newline or a control character is never written raw)."""
    if word and _SAFE.match(word):
        return word
    if _PRINTABLE.match(word):
        return "'" + word.replace("'", "'\\''") + "'"
    escaped = "".join(_escape(c) for c in word)
    return f"$'{escaped}'"


def _escape(char: str) -> str:
    if char in "\\'":
        return "\\" + char
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    return char


def redirections(fds: tuple[Descriptor, ...]) -> list[str]:
    """The descriptors open to files, as redirections (``>/path``, ``2>>/path``, ``</path``)."""
    found = []
    for d in fds:
        if not d.target.startswith("/") or d.target.startswith(_INERT_TARGETS):
            continue
        if d.writes:
            op = ">>" if d.appends else ">"
            found.append(f"{'' if d.fd == 1 else d.fd}{op}{quote(d.target)}")
        else:
            found.append(f"{'' if d.fd == 0 else d.fd}<{quote(d.target)}")
    return found


def requote(execution: Execution) -> str:
    """The execution as one line: its environment changes, argv and redirections."""
    env = [f"{name}={quote(value)}" for name, value in execution.env
           if name.isidentifier()]
    words = [quote(w) for w in execution.argv]
    if env:
        words = ["env", *env, *words]
    return " ".join([*words, *redirections(execution.fds)])
