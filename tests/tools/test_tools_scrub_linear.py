"""The scrubber's work is linear in the text's length, shown without a clock.

Two parts, each deterministic:

- the regular expressions (run in C, out of sight of Python's tracer): every pattern of every
  detector has a bounded width, so one attempt reads at most ``MAX_WIDTH`` characters whatever
  the text's length, and none can backtrack catastrophically (``policy.redos``); ``finditer``
  makes one attempt per position, so a pattern's work is at most a constant times the length.
  The pattern that took 79 s on 256 KiB of ``a://`` (a password run rescanned from every
  ``a://``) had no bound and fails here.
- the Python around them (the loops over key lines, the walk back over a key's name, the
  merging of findings): the lines it runs are counted with ``sys.settrace`` on n and on 4n
  characters of adversarial text; linear work is at most four times as much.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from importlib import import_module
from types import FrameType
from typing import Any

import pytest

from clawgate.policy.redos import catastrophic
from clawgate.tools.detectors import MAX_WIDTH, Detector
from clawgate.tools.ruleset import DETECTORS
from clawgate.tools.scrub import Finding, Scrubber, truncate

_parser: Any = import_module("re._parser")


def patterns_of(detector: Detector) -> Iterator[re.Pattern[str]]:
    """The detector's patterns and every other pattern its class holds (helpers included)."""
    yield from detector.patterns
    for klass in type(detector).__mro__:
        yield from (v for v in vars(klass).values() if isinstance(v, re.Pattern))


PATTERNS = sorted({(d.kind, p.pattern, p.flags) for d in DETECTORS for p in patterns_of(d)})


@pytest.mark.parametrize(("kind", "pattern", "flags"), PATTERNS,
                         ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(PATTERNS)])
def test_every_pattern_reads_a_bounded_stretch(kind: str, pattern: str, flags: int) -> None:
    _low, width = _parser.parse(pattern, flags).getwidth()
    assert width <= MAX_WIDTH
    assert catastrophic(pattern) is None


def test_the_patterns_are_all_checked() -> None:
    assert len(PATTERNS) >= 100  # the ruleset's rules and the detectors' own


ADVERSARIAL = ["a://", "x://a:", "://a:", "eyJ-", "eyJa.", "a.", "a-", "a:", "sk-", "token ",
               "MII", "MIIaaaa\n", "-p", "=a", "cookie: a=", "Private-Lines: 1\n",
               "/passwd: a ", "a_passwd", "passwd:/a/", "AKIA" + "A" * 16 + ",", "--password ",
               "password ", "user:\n token: ", "sig=", "0123456789:A", "M" + "a" * 24 + ".",
               "client-key-data: ", "machine a password ", "-----BEGIN PRIVATE KEY-----",
               "hf_", "dckr_pat_", "authorization: token ", "x_token=read_token(",
               "AccountKey=", "a@b://c:d@"]


def traced_lines(scrubber: Scrubber, text: str) -> int:
    count = 0

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal count
        count += 1
        return tracer

    sys.settrace(tracer)
    try:
        scrubber.scrub(text)
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize("fragment", ADVERSARIAL, ids=[repr(f) for f in ADVERSARIAL])
def test_python_work_grows_linearly(fragment: str) -> None:
    scrubber = Scrubber()
    n = 4096 // len(fragment) + 1
    small = traced_lines(scrubber, fragment * n)
    large = traced_lines(scrubber, fragment * (4 * n))
    assert large <= 4 * small


def test_findings_on_a_long_adversarial_text_are_all_kept() -> None:
    """Bounding each attempt loses nothing on text made of many secrets: each is found."""
    secret = "ghp_" + "A1b2C3d4" * 4 + "e5f6"
    text = f"url https://x:{secret}@h/ token {secret} a://" * 2000
    out = Scrubber().scrub(text)
    assert secret not in out
    assert out.count("[REDACTED:") == 4000


class CountingScrubber(Scrubber):
    """Records how many characters the detectors are run on."""

    scanned = 0

    def findings(self, text: str) -> list[Finding]:
        self.scanned += len(text)
        return super().findings(text)


LIMIT = 4096


@pytest.mark.parametrize("size", [1 << 20, 1 << 22], ids=["1MiB", "4MiB"])
def test_a_capped_scrub_reads_a_bounded_part_whatever_the_length(size: int) -> None:
    scrubber = CountingScrubber()
    out = scrubber.scrub_capped("a://" * (size // 4), LIMIT)
    assert len(out.encode()) <= LIMIT
    assert scrubber.scanned <= 2 * (LIMIT + 2 * scrubber.margin)


SECRET = "ghp_" + "Zq9" * 12


def test_a_capped_scrub_sees_a_secret_across_every_cut_whole() -> None:
    scrubber = Scrubber()
    reach = LIMIT + scrubber.margin
    length = 3 * (reach + scrubber.margin)
    edges = [reach, reach + scrubber.margin, length - reach, length - reach - scrubber.margin,
             LIMIT // 2, length - LIMIT // 2]
    for edge in edges:
        for shift in (-len(SECRET) - 1, -len(SECRET), -len(SECRET) // 2, -1, 0, 1):
            at = edge + shift
            text = "x" * at + " " + SECRET + " " + "y" * (length - at)
            out = scrubber.scrub_capped(text, LIMIT)
            assert SECRET not in out, (edge, shift)
            assert len(out.encode()) <= LIMIT


def test_a_capped_scrub_equals_scrub_then_truncate() -> None:
    scrubber = Scrubber()
    body = "line of ordinary build output\n" * 20_000
    text = f"token {SECRET}\n{body}Authorization: token {SECRET}\n"
    assert scrubber.scrub_capped(text, LIMIT) == truncate(scrubber.scrub(text), LIMIT)
    short = f"token {SECRET}\n"
    assert scrubber.scrub_capped(short, LIMIT) == scrubber.scrub(short)
