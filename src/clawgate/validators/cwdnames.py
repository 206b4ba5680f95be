"""Write targets whose every value is one name in the directory the command runs in.

``for f in src/*.md; do pandoc "$f" > "$(basename "$f" .md).html"; done``: the target is
known only when the line runs, but ``basename`` prints no ``/`` unless its operand is all
slashes, and a loop variable over literal words and globs (no expansion) holds one of them or
one of their matches, each with a character other than ``/``. So the target is a name in the
command's directory, matching a pattern read from the word (``*.html``). It may still be a
protected name there, or ``..``: the pattern is matched against both, and against every
component of the protected-path patterns (a bracket expression as any one character: bash's
classes, ``[[:alpha:]]``, and ``[^…]`` are none of fnmatch's); the directory (each one a
``cd`` may leave the command in) must be inside the workspace and not protected itself.
``basename`` must be the program: no function, alias or hash entry of that name, no ``PATH``
set, no file sourced nor text evaluated (either may define any of those).

Only a word whose substitutions are double-quoted (unquoted, the value is split and globbed:
a file named ``a .envrc b`` makes three targets) and whose ``basename`` operand is one
double-quoted loop variable (unquoted, ``a / b`` hands it ``/``); the loop the only one
setting that name (a loop over the positional parameters, ``for f; do``, is one too), with
no other means of setting it on the line, and the command inside its body. ``> "$TARGET"``
and ``"$(basename "$X").txt"`` with X from elsewhere stay unknown.
"""

from __future__ import annotations

import re
import shlex
from fnmatch import fnmatchcase

from clawgate.lazyre import lazy_pattern
from clawgate.protectedpaths import DEFAULT_PROTECTED, protected_reason
from clawgate.shell import clobbers
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.validators.base import Context
from clawgate.validators.paths import under

_BASENAME = lazy_pattern(r'\s*basename\s+(--\s+)?"\$(?:\{(\w+)\}|(\w+))"(?:\s+([\w.+-]+))?\s*')
# What GNU basename takes for --help or --version (abbreviated as getopt allows): it prints
# text with slashes in it (a URL) instead of a name.
_PRINTS_TEXT = tuple(f"--{o[:n]}" for o in ("help", "version") for n in range(1, len(o) + 1))
# What may make ``basename`` another program: a function of that name, an alias, a hash
# entry, a builtin loaded, PATH changed.
# A file the line sources or text it evaluates may define any of those.
_OTHER_BASENAME = lazy_pattern(r"\bbasename\s*\(\s*\)|\bfunction\s+basename\b|"
                               r"\b(?:alias|hash|enable|PATH|source|eval)\b")
_SOURCING = frozenset({".", "source", "eval"})
_HEADER = r"\b(?:for|select)\s+{name}\s+in\s+([^;\n]*)"
# Any loop setting the name, with a word list or over the positional parameters (``for f;
# do``, ``select f do``: ``set --`` chose those).
_ANY_LOOP = r"\b(?:for|select)\s+{name}(?![\w])"
_KEYWORD = lazy_pattern(r"(?:^|[;\n&|])[ \t]*(do|done)(?=[\s;]|$)")
_QUOTED = lazy_pattern(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"|#[^\n]*")
_FNMATCH_SPECIAL = str.maketrans({"*": "[*]", "?": "[?]", "[": "[[]"})
# A bracket expression of bash's patterns: ``[^…]`` negates as ``[!…]`` does, and classes
# (``[[:alpha:]]``, ``[[=e=]]``, ``[[.e.]]``) match letters, none of which Python's fnmatch
# knows. Each is matched as any one character (``?``): a name it can match is never missed.
_BRACKET = lazy_pattern(r"\[[!^]?\]?(?:\[:\w+:\]|\[=[^\]]=\]|\[\.[^\]]\.\]|[^\]])*\]")
_COMPONENTS = frozenset(part for pattern, _ in DEFAULT_PROTECTED for part in pattern.split("/"))


def name_patterns(word: Word, cmd: SimpleCommand, parsed: ParsedLine) -> tuple[str, ...]:
    """Patterns each value of ``word`` matches one of, when each is one name (no ``/``) and
    the word's only substitutions are ``basename`` of a loop variable (see the module), else
    none."""
    text = word.text
    if "<<" in parsed.source or not text.startswith('"') or not text.endswith('"') or \
            _OTHER_BASENAME.search(parsed.source) or \
            any(c.program in _SOURCING for c in parsed.commands):
        return ()
    out: list[str] = [""]
    i, quoted = 0, False
    while i < len(text):
        ch = text[i]
        if ch == '"':
            quoted, i = not quoted, i + 1
            continue
        if not quoted or ch in "\\`'/~":
            return ()
        if text.startswith("$(", i):
            end = text.find(")", i)
            found = _BASENAME.fullmatch(text, i + 2, end) if end > 0 else None
            name = found and (found.group(2) or found.group(3))
            words = name and _loop_words(name, cmd, parsed)
            if found is None or not words or (not found.group(1) and any(
                    fnmatchcase(o, w) for o in _PRINTS_TEXT for w in words)):
                return ()
            last = {"*" if found.group(4) else w.rstrip("/").rsplit("/", 1)[-1]
                    for w in words}  # a suffix taken off: any name
            out = [o + p for o in out for p in sorted(last)]
            i = end + 1
        elif ch == "$":
            return ()  # a value not read here (a loop variable's is CG-PROG-002's own)
        else:
            out = [o + ch.translate(_FNMATCH_SPECIAL) for o in out]
            i += 1
    return tuple(out) if out != [""] else ()


def _loop_words(name: str, cmd: SimpleCommand, parsed: ParsedLine) -> list[str] | None:
    """The words of the one loop that sets ``name``, as patterns, when nothing else on the
    line sets it and ``cmd`` is inside that loop's body."""
    source = parsed.source
    headers = list(re.finditer(_HEADER.format(name=name), source))
    if len(headers) != 1 or len(re.findall(_ANY_LOOP.format(name=name), source)) != 1 or \
            _set_otherwise(name, parsed):
        return None
    header = headers[0]
    try:
        words = shlex.split(header.group(1))
    except ValueError:
        return None
    if not words or any(c in w for w in words for c in "$`{~\\") or \
            any(not w.strip("/") for w in words):
        return None
    start = len(source[: header.end()].encode("utf-8", "surrogateescape"))
    end = _body_end(source, header.end())
    if end is None or not start <= cmd.offset < end:
        return None
    return words


def _set_otherwise(name: str, parsed: ParsedLine) -> bool:
    """``name`` gets a value on the line other than from its loop."""
    named = clobbers.clobbered(parsed, loops=False)
    return name in named or clobbers.EVERY in named or any(
        a.name.partition("[")[0] == name for c in parsed.commands for a in c.assignments)


def _body_end(source: str, after: int) -> int | None:
    """Where (in bytes) the ``done`` closing the loop whose header ends at ``after`` stands:
    ``do`` and ``done`` counted where bash takes them for keywords, quotes and comments left
    out."""
    blank = _QUOTED.sub(lambda found: " " * len(found.group(0)), source)
    depth = 0
    for found in _KEYWORD.finditer(blank, after):
        depth += 1 if found.group(1) == "do" else -1
        if depth == 0:
            return len(source[: found.start(1)].encode("utf-8", "surrogateescape"))
        if depth < 0:
            return None
    return None


def harmless_here(patterns: tuple[str, ...], directories: tuple[str, ...], ctx: Context) -> bool:
    """A name matching any of ``patterns`` in each of ``directories`` is inside the
    workspace and not a protected path: the directory is neither, and no pattern can be
    ``.`` or ``..``, nor any component of a protected-path pattern."""
    if not patterns or not directories:
        return False
    extra = {part.lower() for p in ctx.protected for part in p.strip("/").split("/")}
    if any(c in part for part in extra for c in "*?["):
        return False
    for pattern in patterns:
        lowered = _BRACKET.sub("?", pattern.lower())
        if any(fnmatchcase(part, lowered) for part in (".", "..", *_COMPONENTS, *extra)):
            return False
    return all(under(d, ctx.workspace) and
               protected_reason(d, ctx.workspace, ctx.protected) is None
               for d in directories)
