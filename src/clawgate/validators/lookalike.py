"""Host names spelt with letters of other scripts (CG-HOST-001): ``gіthub.com`` with a Cyrillic
``і`` is another host, registered by whoever wants the traffic meant for GitHub. A host in a
URL (or a ``user@host:`` remote) that is not plain ASCII, or is the punycode (``xn--``) of one,
is ASK; one whose letters, read by their look (a Cyrillic ``а`` as ``a``), spell a forge, a
package index or a registry is DENY.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import suppress

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register

_HOST = lazy_pattern(r"(?:[A-Za-z][\w+.-]*://(?:[^@/\s]*@)?|^[\w.-]+@)([^/:\s@?#'\"]+)")
# Letters of other scripts drawn like Latin ones (Unicode's confusables, the common part).
_LOOKS_LIKE = str.maketrans({
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "һ": "h", "ԁ": "d", "ӏ": "l",
    "ԛ": "q", "ԝ": "w", "ɡ": "g", "ı": "i", "ο": "o", "α": "a", "ν": "v", "ι": "i", "κ": "k",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c", "ℓ": "l", "ß": "ss",
})
# Where code, packages and images come from: a look-alike of one is an attack, not a typo.
_KNOWN = frozenset("""
github.com githubusercontent.com gitlab.com bitbucket.org codeberg.org sr.ht
pypi.org pythonhosted.org npmjs.org npmjs.com yarnpkg.com crates.io rubygems.org
golang.org go.dev deno.land jsr.io docker.io docker.com ghcr.io quay.io maven.org apache.org
nuget.org packagist.org hackage.haskell.org cpan.org pkg.dev googleapis.com
google.com microsoft.com apple.com amazonaws.com azure.com cloudflare.com
anthropic.com openai.com
""".split())


def _hosts(cmd: SimpleCommand) -> Iterator[str]:
    for word in cmd.words:
        text = word.value
        if text is None or (text.isascii() and "xn--" not in text.lower()):
            continue
        for found in _HOST.finditer(text):
            yield found.group(1)


def _readable(host: str) -> str:
    """The host as a person reads it: punycode decoded, compatibility forms folded
    (fullwidth letters), then letters of other scripts by their look."""
    import unicodedata

    labels = []
    for label in host.lower().rstrip(".").split("."):
        if label.startswith("xn--"):
            with suppress(UnicodeError, ValueError):
                label = label[4:].encode("ascii").decode("punycode")
        labels.append(label)
    return unicodedata.normalize("NFKC", ".".join(labels)).lower().translate(_LOOKS_LIKE)


def _imitates(readable: str) -> str | None:
    return next((k for k in sorted(_KNOWN) if readable == k or readable.endswith("." + k)),
                None)


@register
class LookalikeHost(Validator):
    """A URL or remote whose host is spelt with non-ASCII letters: ASK; one that reads as a
    known forge, index or registry (``https://gіthub.com/…``, ``pyрi.org``): DENY.

    Bad: ``pip install --index-url https://pypі.org/simple requests``. Harmless:
    ``git clone https://github.com/acme/app.git``.
    """

    id = "CG-HOST-001"

    def shapes(self, program: str | None) -> int:
        return sh.UNUSUAL | sh.QUOTES | sh.PUNY  # a value outside ASCII or holding "xn--"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        for host in _hosts(cmd):
            readable = _readable(host)
            if readable.isascii() and readable == host.lower():
                continue  # an ASCII host after all (an ``xn--`` elsewhere in the word)
            known = _imitates(readable)
            if known is not None:
                return Verdict.deny(self.id, f"{host!r} is spelt to look like {known}: "
                                    "another host", hint=f"use the real {known}")
            return Verdict.ask(self.id, f"{host!r} is spelt with letters of another script, "
                               "as look-alike hosts are", hint="check the address letter by "
                               "letter")
        return NO_OPINION
