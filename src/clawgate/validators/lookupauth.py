"""A service's own token sent to that service: ``curl -H "Authorization: Bearer $GITHUB_TOKEN"
https://api.github.com/user`` is the token used as meant, and a GET whose answer is printed is
still a lookup. Only an ``Authorization`` header whose value is the variable alone (after
``Bearer``/``token``), a variable whose name says whose it is, and hosts that are that service's
own domains (a fixed table: a look-alike such as ``github-evil.com`` or ``github.example`` is
not GitHub's) count; anything else about the header leaves the command to the other checks."""

from __future__ import annotations

from urllib.parse import urlsplit

from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import VARIABLE, Word
from clawgate.validators.secretargs import OWN_DOMAINS, owners

_AUTH = lazy_pattern(r"^(?i:authorization):\s*(?:(?i:bearer|token)\s+)?\$\{?([A-Za-z_]\w*)\}?$")
_HEADER_OPTIONS = frozenset({"-H", "--header"})


def without_own_auth(program: str | None, words: tuple[Word, ...]) -> tuple[Word, ...] | None:
    """``words`` with each ``-H 'Authorization: Bearer $SERVICE_TOKEN'`` pair left out where
    every URL among them is on that service's own domains; None when such a header would go
    anywhere else (or when there is no URL to tell)."""
    if program != "curl":
        return words
    kept: list[Word] = []
    tokens: list[str] = []
    skip = False
    for index, word in enumerate(words):
        if skip:
            skip = False
            continue
        value = words[index + 1] if index + 1 < len(words) else None
        name = _token(value) if word.value in _HEADER_OPTIONS and value is not None else None
        if name is None:
            kept.append(word)
            continue
        tokens.append(name)
        skip = True
    if not tokens:
        return words
    hosts = [urlsplit(w.value).hostname for w in kept
             if w.value is not None and w.value.startswith(("https://", "http://"))]
    if not hosts or any(h is None or not all(_owned(n, h) for n in tokens) for h in hosts):
        return None
    return tuple(kept)


def _token(word: Word) -> str | None:
    """The variable an ``Authorization`` header word sends, when it is the whole value."""
    if word.expansions != frozenset({VARIABLE}):
        return None
    text = word.text.strip('"')
    found = _AUTH.match(text)
    return found.group(1) if found is not None and '"' not in text else None


def _owned(name: str, host: str) -> bool:
    """The token named ``name`` says whose it is, and ``host`` is on that service's domains."""
    whose = owners(name) & OWN_DOMAINS.keys()
    host = host.lower().rstrip(".")
    return bool(whose) and all(
        any(host == d or host.endswith("." + d) for d in OWN_DOMAINS[w]) for w in whose)
