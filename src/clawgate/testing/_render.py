"""Writing one argv word as shell text in many ways that bash reads back as the same value.

Every renderer here is exact under bash (not ``sh``): quote splitting, backslashes, ``$'…'``
escapes, empty quotes, line continuations, variables -- plain or indirect -- set in a
preamble, the default of a variable nobody sets (``"${_cg1:-rm}"``) and a command
substitution that prints the value (``"$(printf %s rm)"``).
``tests/testing/test_harness_rewrites.py`` runs them through a real ``bash -c`` with
``printf '%s\\n'`` as the program and compares the argv it prints.
"""

from __future__ import annotations

import itertools
import shlex
from dataclasses import dataclass, field

from hypothesis import strategies as st

from clawgate.testing._grammar import RESERVED

_SAFE_ASCII = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,")
STYLES = ("plain", "backslash", "split", "ansi-c", "empty-quotes", "continuation", "variable",
          "indirect", "default", "substitution")
# Characters a value may hold to stand as the default of ``"${name:-value}"`` unchanged.
_DEFAULT_SAFE = _SAFE_ASCII - frozenset("%")


@dataclass
class Preamble:
    """Statements that must run before the command (variable definitions), with fresh names."""

    statements: list[str] = field(default_factory=list)
    counter: int = 0

    def fresh(self) -> str:
        self.counter += 1
        return f"_cg{self.counter}"


def bare(piece: str, *, unsafe: str = "") -> str:
    """``piece`` outside quotes: safe characters as they are, every other one after a backslash
    (a newline cannot be escaped that way -- it would join lines -- so it is quoted)."""
    out = []
    for ch in piece:
        if ch == "\n":
            out.append("'\n'")
        elif ch in _SAFE_ASCII and ch not in unsafe:
            out.append(ch)
        else:
            out.append("\\" + ch)
    return "".join(out)


def single(piece: str) -> str:
    return "'" + piece.replace("'", "'\\''") + "'"


def double(piece: str) -> str:
    return '"' + "".join("\\" + c if c in '"$`\\' else c for c in piece) + '"'


def ansi_c(piece: str) -> str:
    """``$'…'`` with every byte not alphanumeric as a ``\\xHH`` escape (UTF-8 bytes)."""
    out = []
    for ch in piece:
        if ch.isascii() and ch.isalnum():
            out.append(ch)
        else:
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogateescape"))
    return "$'" + "".join(out) + "'"


_PIECE = {"bare": bare, "single": single, "double": double, "ansi-c": ansi_c}


def _cut(draw: st.DrawFn, value: str) -> list[str]:
    """``value`` cut into one to four non-empty pieces."""
    if len(value) < 2:
        return [value]
    points = sorted(set(draw(st.lists(st.integers(1, len(value) - 1), max_size=3))))
    bounds = [0, *points, len(value)]
    return [value[a:b] for a, b in itertools.pairwise(bounds)]


def _piece(draw: st.DrawFn, piece: str, unsafe: str) -> str:
    kind = draw(st.sampled_from(sorted(_PIECE)))
    return bare(piece, unsafe=unsafe) if kind == "bare" else _PIECE[kind](piece)


def render_word(draw: st.DrawFn, value: str, style: str, pre: Preamble, *,
                command_word: bool = False, unsafe: str = "") -> str:
    """``value`` written in ``style``. ``command_word``: never let it read as an assignment or a
    reserved word. ``unsafe``: characters that must not stand bare (``,{}`` inside braces)."""
    if command_word:
        unsafe += "="
        if value in RESERVED:  # bare or joined by a continuation it would read as a keyword
            return single(value)
    if value == "":
        return draw(st.sampled_from(["''", '""', "$''"]))
    if style == "plain":
        quoted = shlex.quote(value)
        clean = quoted.startswith("'") or not any(c in quoted for c in unsafe)
        return quoted if clean else single(value)
    if style == "backslash":
        return "".join("'\n'" if c == "\n" else "\\" + c for c in value)
    if style == "ansi-c":
        return ansi_c(value)
    if style in ("default", "substitution") and "{" in unsafe:
        style = "plain"  # a "${…}" or "$(…)" inside a brace expansion: not followed here
    if style == "default" and set(value) <= _DEFAULT_SAFE:
        # the default of a variable no one sets (the harness's own names): its value
        return f'"${{{pre.fresh()}{draw(st.sampled_from([":-", "-", ":=", "="]))}{value}}}"'
    if style == "substitution" and not value.endswith("\n"):
        # computed by a command substitution (which drops trailing newlines only)
        return f'"$(printf %s {single(value)})"'
    if style in ("default", "substitution"):
        return single(value)
    if style == "plain":
        quoted = shlex.quote(value)
        clean = quoted.startswith("'") or not any(c in quoted for c in unsafe)
        return quoted if clean else single(value)
    pieces = _cut(draw, value)
    if style == "split":
        return "".join(_piece(draw, p, unsafe) for p in pieces)
    if style == "empty-quotes":
        glue = draw(st.sampled_from(["''", '""']))
        return glue.join(bare(p, unsafe=unsafe) for p in pieces)
    if style == "continuation":
        return "\\\n".join(bare(p, unsafe=unsafe) for p in pieces)
    name = pre.fresh()
    pre.statements.append(f"{name}={single(value)}")
    if style == "variable":
        return draw(st.sampled_from([f'"${name}"', f'"${{{name}}}"']))
    pointer = pre.fresh()
    pre.statements.append(f"{pointer}={name}")
    return f'"${{!{pointer}}}"'


def render_argv(draw: st.DrawFn, argv: tuple[str, ...], pre: Preamble) -> tuple[str, list[str]]:
    """The words of ``argv`` joined by spaces, by ``${IFS}`` or grouped in a brace expansion;
    returns (how they were joined, the rendered words as they stand in the command)."""
    nonempty = all(argv)
    joiner = draw(st.sampled_from(["space", "space", "ifs", "brace"] if nonempty else ["space"]))
    unsafe = ",{} \t" if joiner == "brace" else ""
    styles = draw(st.lists(st.sampled_from(STYLES), min_size=len(argv), max_size=len(argv)))
    words = [render_word(draw, value, style, pre, command_word=(i == 0), unsafe=unsafe)
             for i, (value, style) in enumerate(zip(argv, styles, strict=True))]
    if joiner == "ifs" and len(words) > 1:
        return joiner, ["${IFS}".join(words)]
    if joiner == "brace" and len(words) > 1:
        start = draw(st.integers(0, len(words) - 2))
        stop = draw(st.integers(start + 2, len(words)))
        group = "{" + ",".join(words[start:stop]) + "}"
        return joiner, [*words[:start], group, *words[stop:]]
    return "space", words
