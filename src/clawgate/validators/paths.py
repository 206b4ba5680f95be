"""Path arguments resolved against where the command runs: ``~``, ``$HOME``, ``${HOME}``,
``$PWD``, relative paths, ``..``, globs, and what a path becomes when a variable is unset.

``rm -rf "$BUILD/"*`` deletes ``/*`` when ``BUILD`` is unset: ``if_unset`` is that reading.
"""

from __future__ import annotations

import posixpath
import re

from clawgate import fsfacts
from clawgate.lazyre import lazy_pattern
from clawgate.records import record
from clawgate.shell.model import COMMAND, GLOB, INDIRECT, PROCESS, TILDE, Word
from clawgate.shell.words import decode_ansi_c
from clawgate.validators.base import Context

_VAR = lazy_pattern(r"\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?P<op>[^}]*)\}"
                    r"|(?P<plain>[A-Za-z_][A-Za-z0-9_]*))")
_OPAQUE = frozenset({COMMAND, PROCESS, INDIRECT})
# The shell's process id, the last status and the count of arguments: special parameters no
# command can assign, always a decimal number (``/tmp/build-$$``: a name of digits, never a
# ``/``, never empty). Which number does not change what the path means; one stands in.
_NUMBERS = lazy_pattern(r"\$(?:\{[$?#]\}|[$?#])")
NUMBER_STAND_IN = "4242"
# An ANSI-C quoted part of a word with expansions (``"$HOME"/$'\x2e'ssh``): its value, decoded,
# is part of the path as much as the variable is.
_ANSI_C = lazy_pattern(r"\$'((?:[^'\\]|\\.)*)'", re.S)
_GLOB_CHARS = frozenset("*?[")
# macOS keeps $TMPDIR under /var/folders (and /tmp is /private/tmp)
TEMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/private/tmp", "/private/var/tmp", "/var/folders",
             "/private/var/folders")
QUIET_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero",
                           "/dev/full", "/dev/random", "/dev/urandom", "/dev/fd/0", "/dev/fd/1",
                           "/dev/fd/2"})


@record(frozen=True, slots=True)
class PathArg:
    """``path``: absolute and normalised, None when it depends on something unknown.
    ``if_unset``: the path when every unknown variable expands to nothing.
    ``contents``: a glob stood in place of a component; ``path`` is the directory before it.
    ``pattern``: then the last component, when the glob is in it (``bins-*`` of
    ``"$src"/bins-*``: only names that start with ``bins-``); None when a glob is higher up."""

    path: str | None
    if_unset: str | None = None
    contents: bool = False
    pattern: str | None = None


_UNKNOWN = PathArg(None)


def resolve(word: Word, ctx: Context) -> PathArg:
    """Where ``word`` points when used as a path by a command running in ``ctx``."""
    if word.expansions & _OPAQUE:
        return _UNKNOWN
    if word.value is not None:
        raw = word.value
        if TILDE in word.expansions:
            if raw.partition("/")[0] == "~-":
                return _UNKNOWN  # $OLDPWD: where the shell was before, not known here
            raw = _tilde(raw, ctx.home)
        return _finish(raw, None, ctx, glob=GLOB in word.expansions)
    text = ansi_c_decoded(word.text).replace('"', "").replace("'", "")
    if text.startswith("~"):
        if text.partition("/")[0] == "~-":
            return _UNKNOWN
        text = _tilde(text, ctx.home)
    known, unset = _expand(text, ctx)
    return _finish(known, unset, ctx, glob=GLOB in word.expansions)


def ansi_c_decoded(text: str) -> str:
    """``text`` with each ``$'…'`` part replaced by its value."""
    return _ANSI_C.sub(lambda m: decode_ansi_c(m.group(1)), text) if "$'" in text else text


def under(path: str, root: str) -> bool:
    """``path`` is ``root`` or inside it (both absolute and normalised)."""
    return root in (path, "/") or path.startswith(root + "/")


def in_temp(path: str) -> bool:
    """Inside a temporary directory (not the directory itself)."""
    return any(path.startswith(t + "/") for t in TEMP_DIRS)


def in_scratch(path: str, ctx: Context) -> bool:
    """Inside the workspace or a temporary directory, or a device that keeps nothing."""
    return (under(path, ctx.workspace) or path in QUIET_DEVICES or path.startswith("/dev/fd/")
            or any(under(path, t) for t in TEMP_DIRS))


def own_stream(path: str) -> bool:
    """``path`` names a stream of the process that opens it: its standard input, output or
    error or another descriptor it holds (``/dev/stdout``, ``/dev/fd/3``, ``/proc/self/fd/2``),
    or a device that keeps nothing. Where such a path leads depends on the process, not on
    the file system the checker sees."""
    return (path in QUIET_DEVICES or path.startswith(("/dev/fd/", "/proc/self/fd/",
                                                      "/proc/thread-self/fd/")))


def _tilde(text: str, home: str) -> str:
    head, slash, rest = text.partition("/")
    if head == "~":
        return home + slash + rest
    if head == "~+":
        return "." + slash + rest  # $PWD: relative to the cwd below
    if head == "~-":
        return text  # $OLDPWD: resolve() has it unknown
    return posixpath.join(posixpath.dirname(home), head[1:]) + slash + rest


def _expand(text: str, ctx: Context) -> tuple[str | None, str | None]:
    """(value when every variable is known, value when unknown ones are unset or None)."""
    text = _NUMBERS.sub(NUMBER_STAND_IN, text) if "$" in text else text
    unknown = False
    guarded = False

    def known(match: re.Match[str]) -> str:
        nonlocal unknown, guarded
        name = match.group("braced") or match.group("plain")
        op = match.group("op") or ""
        if name == "HOME":
            return ctx.home
        if name == "PWD":
            return ctx.cwd
        for placed, value in ctx.state_env:  # $CLAWGATE_STATE_HOME/keys: the state itself
            if name == placed:
                return value
        unknown = True
        if op[:2] in (":?", "?") or op[:1] == "?":
            guarded = True  # ${X:?} stops the shell when X is unset
        return "\0"

    expanded = _VAR.sub(known, text)
    if "$" in expanded:
        return None, None
    if not unknown:
        return expanded, None
    unset = None if guarded else _with_defaults(text, ctx)
    return None, unset


def _with_defaults(text: str, ctx: Context) -> str:
    def empty(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("plain")
        op = match.group("op") or ""
        if name == "HOME":
            return ctx.home
        if name == "PWD":
            return ctx.cwd
        if op[:2] in (":-", ":=") or op[:1] in ("-", "="):
            return op.lstrip(":")[1:]
        return ""

    return _VAR.sub(empty, text)


def _finish(raw: str | None, unset: str | None, ctx: Context, *, glob: bool) -> PathArg:
    contents = False
    pattern = None
    if glob:
        given = raw if raw is not None else unset
        last = given.rstrip("/").rsplit("/", 1)[-1] if given else ""
        raw, cut = _before_glob(raw)
        unset, cut_unset = _before_glob(unset)
        contents = cut or cut_unset
        head = given.rstrip("/")[: -len(last) or None] if given else ""
        pattern = last if contents and last and not _GLOB_CHARS & set(head) else None
    return PathArg(_absolute(raw, ctx.cwd), _absolute(unset, ctx.cwd), contents, pattern)


def _before_glob(raw: str | None) -> tuple[str | None, bool]:
    if raw is None:
        return None, False
    parts = raw.split("/")
    for index, part in enumerate(parts):
        if _GLOB_CHARS & set(part):
            head = "/".join(parts[:index])
            return (head or ("/" if raw.startswith("/") else ".")), True
    return raw, False


def _absolute(raw: str | None, cwd: str) -> str | None:
    if raw is None:
        return None
    joined = posixpath.join(cwd, raw or ".")
    if "/.." in joined:
        joined = _physical_parents(joined)
    path = posixpath.normpath(joined)
    return "/" + path.lstrip("/") if path.startswith("//") else path


_MAX_COMPONENTS = 256


def _physical_parents(path: str) -> str:
    """``path`` with each ``..`` taken as the kernel takes it: the parent of where the
    components before it lead, through symbolic links (``link/../cache`` is the ``cache``
    beside the link's target, not the one beside the link). Text normalisation alone is
    right only where no link comes before a ``..``."""
    parts = path.split("/")
    if len(parts) > _MAX_COMPONENTS:
        return path
    here = ""
    for part in parts:
        if part in ("", "."):
            continue
        if part == "..":
            if here and fsfacts.islink(here):
                here = fsfacts.realpath(here)
            here = posixpath.dirname(here) if here not in ("", "/") else ""
            continue
        here = f"{here}/{part}"
    return here or "/"
