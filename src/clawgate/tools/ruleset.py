"""The provider credential shapes, loaded from ``rules/secret_rules.toml``: a maintained ruleset
(gitleaks' and detect-secrets' rules, each carried with its source) rather than a hand list.

Each rule becomes a ``RuleDetector``: its kind, its compiled pattern, the group that is the
secret, its keywords as needles, and an optional least entropy. ``DETECTORS`` is the scrubber's
default order: detectors that know a provider or a file format first, then these rules, then
the detectors that only go by a key's name or a header (``password=…``), so that when two
find the same span the more specific kind names it.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import Counter
from dataclasses import dataclass
from importlib import resources

from clawgate.tools.detectors import GENERIC, SPECIFIC, Detector

RULES_FILE = "secret_rules.toml"
_FIELDS = frozenset({"kind", "source", "regex", "group", "keywords", "entropy", "note"})


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    source: str
    regex: str
    group: int
    keywords: tuple[str, ...]
    entropy: float


def entropy(text: str) -> float:
    """Shannon entropy of ``text`` in bits per character."""
    if not text:
        return 0.0
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


class RuleDetector(Detector):
    """A detector made from one rule of the data file."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.kind = rule.kind  # type: ignore[misc]  # per instance here, per class elsewhere
        self.patterns = (re.compile(rule.regex),)  # type: ignore[misc]
        self.group = rule.group  # type: ignore[misc]
        self.needles = rule.keywords  # type: ignore[misc]

    def keep(self, secret: str) -> bool:
        return entropy(secret) >= self.rule.entropy


def load_rules(text: str | None = None) -> tuple[Rule, ...]:
    """The rules of the data file (or of ``text``), checked: a bad rule stops loading with its
    place and what is wrong."""
    if text is None:
        folder = resources.files("clawgate.tools").joinpath("rules")
        text = folder.joinpath(RULES_FILE).read_text("utf-8")
    rules = []
    for index, raw in enumerate(tomllib.loads(text).get("rules", [])):
        where = f"{RULES_FILE}: rule {index + 1} ({raw.get('kind', '?')})"
        unknown = set(raw) - _FIELDS
        if unknown or not {"kind", "source", "regex"} <= set(raw):
            raise ValueError(f"{where}: unknown or missing fields {sorted(unknown) or ''}")
        try:
            groups = re.compile(raw["regex"]).groups
        except re.error as exc:
            raise ValueError(f"{where}: {exc}") from exc
        group = int(raw.get("group", 1 if groups else 0))
        if group > groups:
            raise ValueError(f"{where}: no group {group}")
        keywords = tuple(str(k) for k in raw.get("keywords", ()))
        if any(k != k.lower() for k in keywords):
            raise ValueError(f"{where}: keywords must be lowercase")
        rules.append(Rule(kind=raw["kind"], source=raw["source"], regex=raw["regex"],
                          group=group, keywords=keywords, entropy=float(raw.get("entropy", 0))))
    return tuple(rules)


RULES: tuple[Rule, ...] = load_rules()
DETECTORS: tuple[Detector, ...] = (*SPECIFIC, *(RuleDetector(r) for r in RULES), *GENERIC)
