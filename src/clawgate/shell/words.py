"""Quote removal: the static value of a word as tree-sitter-bash sees it."""

from __future__ import annotations

import re

from clawgate.lazyre import lazy_pattern
from clawgate.shell import model as m

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from tree_sitter import Node

_GLOB = lazy_pattern(r"[*?\[]")
_BRACE = lazy_pattern(r"\{[^{}\s]*(,|\.\.)[^{}\s]*\}")
_ANSI = lazy_pattern(
    r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)", re.S)
_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
                "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_UNQUOTED_ESCAPE = lazy_pattern(r"\\(.)", re.S)
_DOUBLE_ESCAPE = lazy_pattern(r'\\([$`"\\\n])')
_EXPANSION_KINDS = {
    "simple_expansion": m.VARIABLE,
    "expansion": m.VARIABLE,
    "command_substitution": m.COMMAND,
    "process_substitution": m.PROCESS,
    "arithmetic_expansion": m.ARITHMETIC,
    "brace_expression": m.BRACE,
}


def text_of(node: Node, src: bytes) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")


def unescape_unquoted(text: str) -> str:
    """Backslash removal outside quotes: ``\\x`` is ``x``; a backslash-newline vanishes."""
    return _UNQUOTED_ESCAPE.sub(_escaped, text)


def unescape_double(text: str) -> str:
    """Inside double quotes a backslash escapes only ``$ ` " \\`` and newline."""
    return _DOUBLE_ESCAPE.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    return "" if match.group(1) == "\n" else match.group(1)


def decode_ansi_c(body: str) -> str:
    """The value of ``$'...'`` (body without the quotes). ``\\xHH`` and octal escapes are
    bytes, as in bash: ``$'\\xc2\\xb2'`` is the UTF-8 character ``²``, not ``Â²``. Bytes that
    form no UTF-8 character stay as surrogate escapes (as the line's own invalid bytes do)."""
    raw = False

    def byte(value: int) -> str:
        nonlocal raw
        if value < 0x80:
            return chr(value)
        raw = True
        return chr(0xDC00 + value)  # the surrogate escape of that byte

    def one(match: re.Match[str]) -> str:
        esc = match.group(1)
        head = esc[0]
        if head == "x":  # bash keeps ``\x`` without hex digits as written
            return byte(int(esc[1:], 16)) if len(esc) > 1 else "\\" + esc
        if head in "uU":
            return chr(min(int(esc[1:], 16), 0x10FFFF)) if len(esc) > 1 else "\\" + esc
        if head in "01234567":
            return byte(int(esc, 8) & 0xFF)
        if head == "c" and len(esc) == 2:
            return chr(ord(esc[1]) & 0x1F)
        return _ANSI_SIMPLE.get(esc, "\\" + esc)

    value = _ANSI.sub(one, body)
    if raw:
        try:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a character no UTF-8 holds (a lone surrogate): as it is
            return value
    return value


def _indirect(text: str) -> bool:
    return text.startswith("${!") or "@P}" in text or "@E}" in text


def word_of(node: Node, src: bytes) -> m.Word:
    """The Word for any argument-like node."""
    text = text_of(node, src)
    value, quoted, kinds = _value(node, src, text)
    if value is not None and _TILDE_PREFIX.match(text):
        kinds.add(m.TILDE)
    return m.Word(text, value, quoted, frozenset(kinds))


# Bash expands a tilde-prefix: a leading ``~`` and what follows it up to the first unquoted
# slash, none of it quoted (``~/''.ssh`` and ``~/.ssh/"id_rsa"`` expand; ``~''`` and ``~"/"``
# do not). Quotes after the slash leave it so.
_TILDE_PREFIX = lazy_pattern(r"~[A-Za-z0-9._+-]*(?:/|$)")


def _value(node: Node, src: bytes, text: str) -> tuple[str | None, bool, set[str]]:
    kind = node.type
    if kind in ("word", "number", "variable_name", "test_operator", "extglob_pattern", "regex"):
        kinds: set[str] = set()
        if _GLOB.search(text.replace("\\[", "").replace("\\*", "").replace("\\?", "")):
            kinds.add(m.GLOB)
        if _BRACE.search(text):
            kinds.add(m.BRACE)
        return unescape_unquoted(text), "\\" in text, kinds
    if kind == "raw_string":
        return text[1:-1], True, set()
    if kind == "``":  # a command substitution of blanks only (``r` `m``): it adds nothing
        return "", True, set()
    if kind == "ansi_c_string":
        return decode_ansi_c(text[2:-1]), True, {m.ANSI_C}
    if kind in ("string", "translated_string"):
        return _string_value(node, src, kind == "translated_string")
    if kind in _EXPANSION_KINDS:
        found = {_EXPANSION_KINDS[kind]}
        if kind == "expansion" and _indirect(text):
            found.add(m.INDIRECT)
        return None, False, found
    if kind == "concatenation":
        return _concat_value(node, src, text)
    if kind == "variable_assignment":
        return _assignment_value(node, src, text)
    return text, False, set()


def _assignment_value(node: Node, src: bytes, text: str) -> tuple[str | None, bool, set[str]]:
    """``X="a b"`` as a declaration builtin's argument (``export X="a b"``): the name, the
    ``=``, and the value as bash hands it over (``X=a b``), unknown when the value expands."""
    value = node.child_by_field_name("value")
    if value is None:
        return text, False, set()  # ``B=``: set to nothing
    head = src[node.start_byte : value.start_byte].decode("utf-8", "surrogateescape")
    inner, quoted, kinds = _value(value, src, text_of(value, src))
    return (None if inner is None else head + inner), quoted, kinds


def _string_value(node: Node, src: bytes, translated: bool) -> tuple[str | None, bool, set[str]]:
    kinds: set[str] = {m.LOCALE} if translated else set()
    parts: list[str] = []
    static = True
    for child in node.named_children:
        if child.type == "string_content":
            parts.append(unescape_double(text_of(child, src)))
            continue
        _, _, inner = _value(child, src, text_of(child, src))
        kinds |= inner
        static = False
    if static:
        # string_content skips the text between children only for expansions; recompute from
        # the raw body so that escaped quotes and lone dollars are kept exactly.
        body = text_of(node, src)
        start = 2 if translated else 1
        return unescape_double(body[start:-1]), True, kinds
    return None, True, kinds


def _concat_value(node: Node, src: bytes, text: str) -> tuple[str | None, bool, set[str]]:
    parts: list[str] = []
    quoted = False
    kinds: set[str] = set()
    static = True
    children = node.children
    for index, child in enumerate(children):
        if _locale_mark(children, index):
            kinds.add(m.LOCALE)  # ``r$"m"``: tree-sitter-bash cuts ``$"m"`` into $ and "m"
            continue
        value, q, inner = _value(child, src, text_of(child, src))
        quoted = quoted or q
        kinds |= inner
        if value is None:
            static = False
        else:
            parts.append(value)
    if _BRACE.search(text) and _BRACE.search(_unquoted_shape(node, src)):
        kinds.add(m.BRACE)  # a brace expansion may span parts (``{a,"b"}``), not quotes
    return ("".join(parts) if static else None), quoted, kinds


def _locale_mark(children: list[Node], index: int) -> bool:
    """The ``$`` of a ``$"…"`` inside a word, which tree-sitter-bash hands out as a ``$`` of
    its own before the string: bash drops it (``r$"m"`` is ``rm``)."""
    child = children[index]
    following = children[index + 1] if index + 1 < len(children) else None
    return (child.type == "$" and not child.is_named and following is not None
            and following.type == "string" and following.start_byte == child.end_byte)


_QUOTED_PARTS = frozenset({"raw_string", "string", "ansi_c_string", "translated_string"})


def _unquoted_shape(node: Node, src: bytes) -> str:
    """The concatenation's text with each quoted part as an ``x`` (``'{a,b}'`` expands no
    brace: bash reads braces only outside quotes)."""
    return "".join("x" if child.type in _QUOTED_PARTS else text_of(child, src)
                   for child in node.children)
