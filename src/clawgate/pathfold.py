"""A path component as the file systems that ignore case name it: the one spelling every
spelling of the same file there shares, for matching names against the protected list.

macOS (HFS+, APFS) and Windows (NTFS) look names up case-insensitively, each in its own way,
and git guards ``.git`` against each (the fix for CVE-2014-9390): a name is that file there
when it

- differs by case under Unicode's folding or the NTFS upper-case table: ``ſ`` (long s) is
  ``s`` (``.github/workflowſ``), ``ı`` (dotless i) upper-cases to ``I`` (``.gıt``), ``K``
  (Kelvin sign) is ``k``;
- holds code points HFS+ ignores in names (zero-width joiners, direction marks, the byte
  order mark: ``.g\\u200cit``);
- ends in dots or spaces, which Windows drops (``.git.``, ``CLAUDE.md ``);
- names the file's data stream (``CLAUDE.md::$DATA``, ``.git::$INDEX_ALLOCATION``): NTFS
  writes the file itself;
- is the short 8.3 alias Windows gives a long name (``GIT~1`` for ``.git``, ``GITHUB~1``
  for ``.github``): ``short_alias`` says whether a component may be one for a name.

``fold`` gives the folded text; for ASCII it is ``str.lower`` after the trailing dots and
spaces are dropped.
"""

from __future__ import annotations

import re

# Code points HFS+ leaves out of a name when it compares names (git's is_hfs_dotgit list).
_IGNORED = re.compile("[\u200c\u200d\u200e\u200f\u202a-\u202e\u206a-\u206f\ufeff]")
_SHORT = re.compile(r"^([^~.]{1,6})~\d{1,6}(?:\.([^.]{1,3}))?$")


def fold(part: str) -> str:
    """``part`` as a case-insensitive file system compares it (see the module)."""
    if "::" in part:  # an NTFS stream of the file: the file itself
        part = part.split("::", 1)[0] or part
    if part.isascii():
        stripped = part.rstrip(". ")
        return (stripped or part).lower()
    text = _IGNORED.sub("", part)
    folded = "".join(_char(c) for c in text)
    stripped = folded.rstrip(". ")
    return stripped or folded


def _char(char: str) -> str:
    if char.isascii():
        return char.lower()
    upper = char.upper()
    if upper.isascii():  # ſ -> S, ı -> I: the NTFS upper-case table's reading
        return upper.lower()
    return char.casefold()


def short_alias(part: str, name: str) -> bool:
    """``part`` (folded) may be the 8.3 alias Windows gives ``name`` (folded, a literal
    name): its first six characters but dots and spaces, ``~N``, and the first three of its
    extension (``.pre-commit-config.yaml``: ``pre-co~1.yam``)."""
    found = _SHORT.match(part)
    if found is None:
        return False
    base, dot, extension = name.lstrip(".").rpartition(".")
    if not dot:
        base, extension = extension, ""
    prefix = base.replace(".", "").replace(" ", "")[:6]
    if found.group(1) != prefix:
        return False
    return found.group(2) is None or found.group(2) == extension[:3]
