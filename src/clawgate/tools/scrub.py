"""Credential scrubbing for tool output and audit records, in the manner of detect-secrets.

One small detector per kind of secret: a kind, compiled patterns, and which group of the match
is the secret itself. A secret is replaced by ``[REDACTED:<kind>:<hash>]`` where the hash is
the first 6 hex digits of its sha256, so two redactions of the same secret can be matched
without the value ever being shown. Detectors look for the shapes providers give their keys
(prefixes such as ``ghp_`` or ``AKIA``) rather than for entropy, so that hashes in lock files,
UUIDs, git SHAs and base64 images pass untouched.

``truncate`` then keeps the head and the tail of long output with a marker of what was cut.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from clawgate.tools.detectors import MAX_WIDTH, PLACEHOLDERS, Detector
from clawgate.tools.ruleset import DETECTORS


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    start: int
    end: int
    digest: str  # 6 hex digits of the secret's sha256


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:6]


_SECRET_ENV_WORDS = frozenset({"SECRET", "SECRETS", "TOKEN", "TOKENS", "KEY", "KEYS", "PASSWORD",
                               "PASSWD", "PASSPHRASE", "APIKEY", "CREDENTIAL", "CREDENTIALS",
                               "AUTH", "PRIVATE", "PAT"})
MIN_ENV_VALUE = 6  # shorter values ("1", "true") would redact ordinary words everywhere


def secret_env_name(name: str) -> bool:
    """True for ``GITHUB_TOKEN``, ``DB_PASSWORD``, ``OPENAI_API_KEY``; not for ``KEYBOARD``."""
    words = set(re.split(r"[^A-Z0-9]+", name.upper()))
    return bool(words & _SECRET_ENV_WORDS)


def address_pattern(address: str) -> re.Pattern[str]:
    """``address`` where it stands alone: not inside a longer number, name or address."""
    return re.compile(rf"(?<![\w.:]){re.escape(address)}(?!\w|\.\w)")


class Scrubber:
    """Redact every detector's findings and the values of secret-named environment variables.

    ``addresses`` is an opt-in profile: the server's own IP addresses (or any other values)
    redacted wherever they stand alone, as ``[REDACTED:server-ip:<hash>]``; other addresses
    stay readable."""

    def __init__(
        self,
        detectors: Sequence[Detector] = DETECTORS,
        env: Mapping[str, str] | None = None,
        addresses: Sequence[str] = (),
    ) -> None:
        self.detectors = tuple(detectors)
        # each needle once per text, whatever the number of detectors that share it
        self._needles: dict[str, list[int]] = {}
        for index, detector in enumerate(self.detectors):
            for needle in detector.needles or ("",):
                self._needles.setdefault(needle, []).append(index)
        values = {
            v: k for k, v in (env or {}).items() if secret_env_name(k) and len(v) >= MIN_ENV_VALUE
        }
        # longest first, so that a value containing another is redacted whole
        self._env = sorted(values.items(), key=lambda item: -len(item[0]))
        self._addresses = tuple(address_pattern(a) for a in dict.fromkeys(addresses) if a)
        # wider than anything one finding can span: a pattern's width, an environment value
        self.margin = max([MAX_WIDTH, *(len(v) for v, _ in self._env)])

    def findings(self, text: str) -> list[Finding]:
        """Non-overlapping findings in order; an earlier, then a longer match wins."""
        spans: list[tuple[int, int, str]] = []
        lowered = text.lower()
        active = sorted({i for needle, indices in self._needles.items() if needle in lowered
                         for i in indices})
        for detector in (self.detectors[i] for i in active):
            spans.extend((s, e, detector.kind) for s, e in detector.find(text, lowered))
        for value, _name in self._env:
            spans.extend((m.start(), m.end(), "env") for m in re.finditer(re.escape(value), text))
        for address in self._addresses:
            spans.extend((m.start(), m.end(), "server-ip") for m in address.finditer(text))
        spans.sort(key=lambda span: (span[0], -span[1]))
        markers = _markers(text)
        out: list[Finding] = []
        last = 0
        for start, span_end, kind in spans:
            end = _clip(markers, start, span_end)
            if start >= last and end > start:
                out.append(Finding(kind, start, end, digest(text[start:end])))
                last = end
        return out

    def scrub(self, text: str) -> str:
        return _redact(text, self.findings(text), 0, len(text))

    def scrub_capped(self, text: str, limit: int) -> str:
        """``truncate(self.scrub(text), limit)``, reading a bounded part of ``text`` whatever
        its length: only the head and the tail that can be kept are scrubbed, each with a margin
        wider than any one finding, so that a secret across the cut is seen whole; the middle,
        cut anyway, is never scanned."""
        reach = limit + self.margin  # characters: `limit` bytes never hold more of them
        if len(text) <= 2 * (reach + self.margin):
            return truncate(self.scrub(text), limit)
        window = text[:reach + self.margin]
        found = self.findings(window)
        cut = max([reach, *(f.end for f in found if f.start < reach)])
        head = _redact(window, found, 0, cut)
        offset = len(text) - reach - self.margin
        window = text[offset:]
        found = self.findings(window)
        start = min([self.margin, *(f.start for f in found if f.end > self.margin)])
        tail = _redact(window, found, start, len(window))
        dropped = len(text[cut:offset + start].encode("utf-8", "surrogatepass"))
        joined = f"{head}\n[... {dropped} bytes truncated ...]\n{tail}"
        if len(joined.encode("utf-8", "surrogatepass")) <= limit:
            return joined
        return truncate(head + tail, limit, dropped=dropped)

    def scrub_value(self, value: object, limit: int | None = None) -> object:
        """Scrub every string inside a JSON-like value (dicts, lists, tuples); keys included.
        With ``limit``, each string is also capped to it (``scrub_capped``)."""
        if isinstance(value, str):
            return self.scrub(value) if limit is None else self.scrub_capped(value, limit)
        if isinstance(value, Mapping):
            return {self.scrub(str(k)): self._scrub_entry(str(k), v, limit)
                    for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.scrub_value(v, limit) for v in value]
        return value

    def _scrub_entry(self, key: str, value: object, limit: int | None) -> object:
        """A string under a secret-sounding key is redacted whole (``{"token": "abc123"}``)."""
        if (isinstance(value, str) and secret_env_name(key) and value.strip()
                and value.lower() not in PLACEHOLDERS and not value.startswith("[REDACTED")):
            return f"[REDACTED:key-value-secret:{digest(value)}]"
        return self.scrub_value(value, limit)


# a redaction already made: scrubbing twice (a result, then its audit line) leaves it as it is
_MARKER = re.compile(r"\[REDACTED:[a-z0-9-]{1,64}:[0-9a-f]{6}\]")


def _markers(text: str) -> tuple[list[int], list[int]]:
    if "[REDACTED:" not in text:
        return [], []
    spans = [m.span() for m in _MARKER.finditer(text)]
    return [s for s, _ in spans], [e for _, e in spans]


def _clip(markers: tuple[list[int], list[int]], start: int, end: int) -> int:
    """The end of ``[start, end)`` cut where the first marker in it opens; ``start`` (an empty
    span) when it opens inside a marker."""
    starts, ends = markers
    i = bisect.bisect_right(starts, start) - 1  # the last marker that opens at or before start
    if i >= 0 and ends[i] > start:
        return start
    j = i + 1  # the first marker that opens after start
    return min(end, starts[j]) if j < len(starts) else end


def _redact(text: str, findings: Sequence[Finding], lo: int, hi: int) -> str:
    """``text[lo:hi]`` with each finding inside it replaced by its marker."""
    pieces: list[str] = []
    last = lo
    for f in findings:
        if f.start >= lo and f.end <= hi:
            pieces.append(text[last:f.start])
            pieces.append(f"[REDACTED:{f.kind}:{f.digest}]")
            last = f.end
    pieces.append(text[last:hi])
    return "".join(pieces)


def truncate(text: str, limit: int = 65536, dropped: int = 0) -> str:
    """Keep the head and the tail of ``text`` within ``limit`` UTF-8 bytes, marking the cut.
    ``dropped``: bytes already cut from the middle before, counted in the marker."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    marker_room = 80
    keep = max(limit - marker_room, 0)
    head = data[: keep // 2].decode("utf-8", "ignore")
    tail = data[len(data) - (keep - keep // 2):].decode("utf-8", "ignore") if keep else ""
    cut = dropped + len(data) - len(head.encode("utf-8", "surrogatepass")) - len(
        tail.encode("utf-8", "surrogatepass"))
    return f"{head}\n[... {cut} bytes truncated ...]\n{tail}"


def cap_strings(value: object, limit: int) -> object:
    """Every string inside a JSON-like value cut to ``limit`` bytes (``truncate``: head and
    tail kept)."""
    if isinstance(value, str):
        return truncate(value, limit)
    if isinstance(value, dict):
        return {k: cap_strings(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [cap_strings(v, limit) for v in value]
    return value
