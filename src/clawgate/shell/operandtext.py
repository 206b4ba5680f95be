"""The operand of a parameter operator made ready to be read as a line of words.

tree-sitter-bash reads the operand of ``${x:-…}``, ``${x#…}``, ``${x/…/…}`` as one leaf, and
the walker reads the substitutions in it by parsing its text again as the words of a command
(``treesitter.py``). To bash a ``#`` anywhere in that operand is a plain character: the
operand is one word, its blanks, ``;`` and ``|`` included, so no comment starts there
(``${x:-#`id`}``, ``${x:- #`id`}`` and ``${x:-a;#`id`}`` run ``id`` when the default is used).
Read as a line, a ``#`` after a blank or an operator would start a comment and hide the
substitution after it. ``literal_hashes`` writes each such ``#`` as ``_`` (the same length, a
plain character to both readers), outside any substitution: inside ``$( )`` and backquotes
the text is commands, where bash reads comments as the parser does.
"""

from __future__ import annotations

_PLAIN = ord("_")
_HASH = ord("#")


def literal_hashes(text: bytes) -> bytes:
    """``text`` with each ``#`` that is a character of the operand's own word written ``_``."""
    out = bytearray(text)
    closers: list[int] = []  # the bytes awaited: ' " ` ) }; the innermost last
    at = 0
    while at < len(text):
        char = text[at]
        top = closers[-1] if closers else 0
        if top == ord("'"):
            if char == top:
                closers.pop()
        elif char == ord("\\"):
            at += 1  # the escaped character is a literal
        elif char == top and top in (ord('"'), ord("`"), ord(")"), ord("}")):
            closers.pop()
        elif char == ord("$") and text[at + 1:at + 2] in (b"(", b"{"):
            closers.append(ord(")") if text[at + 1] == ord("(") else ord("}"))
            at += 1
        elif char == ord("`") or (char == ord('"') and top != ord('"')) or \
                (char == ord("'") and top != ord('"')):
            closers.append(char)
        elif char == ord("(") and top == ord(")"):
            closers.append(top)
        elif char == _HASH and top not in (ord("`"), ord(")")):
            out[at] = _PLAIN  # the operand's word, or a quoted or braced part of it
        at += 1
    return bytes(out)
