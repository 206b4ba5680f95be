"""What a piece of inline code does, as far as reading it can tell, in one shape for every
language; and the shell commands that do the same as its literal file actions."""

from __future__ import annotations

import shlex

from clawgate.records import record


@record(frozen=True, slots=True)
class Effects:
    """``commands``: shell lines that do what the code's literal actions do (processes it starts
    with a literal payload, files it writes, deletes or reads); the engine checks them as
    commands. ``opaque``: actions whose payload or target is only known at run time, described.
    """

    commands: tuple[str, ...] = ()
    opaque: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()  # files read, as shell words: with the network, maybe sent
    spawns: bool = False  # starts a process (literal payload or not)
    descriptors: bool = False  # rewires file descriptors (dup2): with a socket, a remote shell
    network: bool = False
    privilege: bool = False
    native: bool = False
    decoded: bool = False  # evaluates text decoded or fetched at run time
    evaluates: bool = False  # evaluates text only known at run time
    env_dump: bool = False
    syntax_error: bool = False


def word(path: str) -> str:
    """A path as a shell word that means the same path (``~/x`` keeps its tilde)."""
    if path == "~" or path.startswith("~/"):
        return "~" + (shlex.quote(path[1:]) if len(path) > 1 else "")
    return shlex.quote(path)


def expanding_word(text: str) -> str:
    """``text`` in double quotes: its ``$NAME`` expand as they did in the word it came from,
    nothing else does."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`")
    return f'"{escaped}"'


def line(argv: list[str]) -> str:
    """An argv as a shell line. An element that is home or under it (``~``, ``~/x``: what
    the readers make of ``os.path.expanduser('~')``, ``os.homedir()``) keeps its tilde, so the
    line names home as the program is given it (a literal ``~`` argument is read the same
    way: the stricter of the two readings)."""
    return " ".join(word(a) for a in argv)


# A file action as the shell command that does the same: (verb, path, other path).
def action(verb: str, path: str, other: str | None = None, *, expanding: bool = False,
           glob: bool = False) -> str:
    """The shell command doing ``verb`` on ``path``: ``write`` ``append`` ``read`` ``delete``
    ``rmtree`` ``rmdir`` ``mkdir`` ``touch`` ``move`` ``copy`` ``link`` ``symlink`` or
    ``chmod``/``chown``/``truncate`` (``other`` the mode, owner or size, or the destination).
    ``expanding``: ``path`` is text the shell expands before the program sees it
    (``$HOME/.bashrc`` inside a double-quoted word): its parameters stay parameters.
    ``glob``: ``path`` is a glob pattern the code expands as the shell would (Perl's ``glob
    "*.bak"``): it stays a pattern (inline/tokens.py's glob_pattern allows no other text)."""
    target = path if glob else expanding_word(path) if expanding else word(path)
    if verb == "write":
        return f": > {target}"
    if verb == "append":
        return f": >> {target}"
    if verb in _SIMPLE:
        return f"{_SIMPLE[verb]} {target}"
    second = word(other) if other is not None else "''"
    if verb in _TWO_PATHS:
        return f"{_TWO_PATHS[verb]} {target} {second}"
    size = "-s " if verb == "truncate" else ""
    return f"{verb} {size}{shlex.quote(other or '')} {target}"


_SIMPLE = {"read": "cat", "delete": "rm -f", "rmtree": "rm -rf", "rmdir": "rmdir",
           "mkdir": "mkdir -p", "touch": "touch"}
_TWO_PATHS = {"move": "mv", "copy": "cp -r", "link": "ln", "symlink": "ln -s"}


def upload(read: str) -> str:
    """What reading a file in code that also reaches the network may amount to: sending it
    (``curl -T F``), so that the rules on sending credentials decide."""
    return f"curl -T {read} https://inline-code.invalid/"
