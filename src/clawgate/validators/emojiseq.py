"""Emoji sequences: where a variation selector, a zero-width joiner or a tag is part of a glyph.

Unicode spells many emoji as sequences whose joining characters have no width of their own
(UTS #51): a variation selector after a base picks its emoji or text presentation (``ℹ️`` is
U+2139 U+FE0F), a keycap is a digit, ``#`` or ``*`` with U+FE0F and U+20E3 (``1️⃣``), a
zero-width joiner glues two emoji into one (``👨‍💻``), and tag characters after U+1F3F4 spell a
subdivision flag (🏴 + ``gbeng`` + U+E007F: lower-case letters and digits only). Inside
such a sequence the character shows as part of the glyph the reader sees; it hides nothing.
The same characters anywhere else (a joiner inside ``rm``, a selector after an ASCII letter,
tags after text, tags after a flag spelling spaces or capitals) are what the
invisible-character checks are for. ``visible_sequences_removed`` takes out only the joining
parts of real sequences, so what is left is searched as before.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern

# The code points that take emoji presentation or start an emoji sequence (UTS #51's
# emoji-variation-sequences and emoji-zwj-sequences bases, by block): the Latin-1 and letterlike
# symbols with an emoji form, arrows, technical symbols, enclosed alphanumerics, geometric
# shapes, dingbats, supplemental arrows, CJK symbols with an emoji form, and the emoji planes.
_BASE = (r"\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa\u231a-\u23ff\u24c2"
         r"\u25aa-\u27bf\u2934\u2935\u2b05-\u2b55\u3030\u303d\u3297\u3299"
         r"\U0001f000-\U0001faff")
_PRESENTATION = lazy_pattern(rf"(?<=[{_BASE}])[\ufe0e\ufe0f]")
_KEYCAP = lazy_pattern(r"(?<=[0-9#*])\ufe0f(?=\u20e3)")
_JOINER = lazy_pattern(rf"(?<=[{_BASE}])\u200d(?=[{_BASE}])")
# A subdivision flag's tags spell a subdivision id (CLDR): a region (two letters or three
# digits) and a suffix of one to four letters or digits, all lower case (``gbeng``, ``usca``).
# Tags spelling spaces, capitals or punctuation are text hidden after the flag, not a flag.
_FLAG_TAGS = lazy_pattern(r"(?<=\U0001f3f4)"
                          r"(?:[\U000e0061-\U000e007a]{2}|[\U000e0030-\U000e0039]{3})"
                          r"[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,4}\U000e007f")


def visible_sequences_removed(text: str) -> str:
    """``text`` without the joining characters of well-formed emoji sequences."""
    if text.isascii():
        return text
    text = _KEYCAP.sub("", _PRESENTATION.sub("", text))
    return _FLAG_TAGS.sub("", _JOINER.sub("", text))
