"""Substitutions in a lookup's address whose text is public: the name of the directory the
command runs in (``$(basename "$PWD")``, ``${PWD##*/}``, ``$(basename "$(pwd)")``) and the
date (``$(date +%F)``). ``curl -s "https://pypi.org/pypi/$(basename "$PWD")/json"`` looks
the project's name up: what leaves is a directory's name, no credential, no file's text and
no environment, as when the name is typed out.

Only in the path or query of a URL whose scheme and host are written out: the host a lookup
reaches stays literal (``lookups.is_lookup`` then judges it as any other), and any other
expansion, or a quote or backslash left once these are put in, leaves the word unread.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import Word

_PWD = r'(?:"\$(?:PWD|\{PWD\})"|\$(?:PWD|\{PWD\})|"\$\(pwd\)"|\$\(pwd\))'
_DATE_WORD = r"""(?:-u|--utc|\+[\w%:.-]+|'\+[\w%:. -]*'|"\+[\w%:. -]*")"""
_PARTS = lazy_pattern(r"\$\(\s*basename\s+" + _PWD + r"\s*\)|\$\{PWD##\*/\}|"
                      r"\$\(\s*date(?:\s+" + _DATE_WORD + r")*\s*\)")
_UNREAD = frozenset("$`\\\"'")
PLACEHOLDER = "name"


def public_value(word: Word) -> str | None:
    """The text ``word`` stands for with its public substitutions put in as a placeholder;
    its value when it has no expansion; None when something else in it is only known when it
    runs."""
    if word.value is not None and not word.expansions:
        return word.value
    text = word.text
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    scheme = text.find("://")
    path = text.find("/", scheme + 3) if scheme > 0 else -1
    first = text.find("$")
    if path < 0 or first < path:
        return None  # no URL written out, or the scheme or host is expanded
    replaced = _PARTS.sub(PLACEHOLDER, text)
    if any(c in _UNREAD for c in replaced):
        return None
    return replaced
