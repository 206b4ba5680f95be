"""Popular package names of PyPI and npm, and the names one or two edits away from them.

Agents hallucinate package names, and attackers register the names agents hallucinate and the
misspellings of popular ones (``reqeusts``, ``expresss``). The names ship as data with their
source and date (``pypi.txt``, ``npm.txt`` beside this module), read only when an install or
run-by-name command is seen.

Near names are found with a deletion neighbourhood: every popular name among the first
``TARGETS`` of a registry and each of its one-character deletions map to the name; a typed
name's own deletions (up to two) are looked up there, and each candidate is then measured with
the Damerau-Levenshtein distance (optimal string alignment: an adjacent swap is one edit). That
finds every popular name one edit away (``reqeusts``, ``expresss``, ``pythondateutil``), and two
edits away whenever at most one of the two leaves out, replaces or swaps a character (the other
adds one: ``requestsss``, ``reqeustss``): a few dozen dictionary look-ups per typed name instead
of thousands of distances.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from clawgate.lazyre import lazy_pattern

TARGETS = 5_000  # typosquatters copy the most-installed names; less popular ones collide more
SHORTEST = 5  # shorter names are one edit from too many others to tell a typo from a name
TWO_EDITS_FROM = 9  # names this long or longer may be two edits off
_PEP503 = lazy_pattern(r"[-_.]+")
_HERE = Path(__file__).resolve().parent


def normalise(registry: str, name: str) -> str:
    """PyPI: PEP 503 (case and runs of ``-_.`` do not matter); npm: lower case."""
    lowered = name.lower()
    return _PEP503.sub("-", lowered) if registry == "pypi" else lowered


class Index:
    """The popular names of one registry, in ranking order, and their near-name index."""

    def __init__(self, registry: str, names: list[str]) -> None:
        self.registry = registry
        self.size = len(names)
        self.names = frozenset(names)
        self._targets: dict[int, list[str]] = {}
        for name in names[:TARGETS]:
            if len(name) >= SHORTEST:
                self._targets.setdefault(len(name), []).append(name)
        self._buckets: dict[int, dict[str, list[str]]] = {}
        # npm scopes are owned: only the owner publishes under @types/ or @babel/
        self._scopes = frozenset(n.split("/", 1)[0] for n in names if n.startswith("@"))

    def _bucket(self, length: int) -> dict[str, list[str]]:
        """The deletion index of the popular names of one length, built when a typed name
        first needs it (a few milliseconds; known names, the usual case, never do)."""
        found = self._buckets.get(length)
        if found is None:
            found = self._buckets[length] = {}
            for name in self._targets.get(length, ()):
                for variant in _deletions(name, 1):
                    found.setdefault(variant, []).append(name)
        return found

    def known(self, name: str) -> bool:
        return normalise(self.registry, name) in self.names

    def near(self, name: str) -> str | None:
        """The popular name ``name`` is a misspelling of, or None (also when it is popular)."""
        typed = normalise(self.registry, name)
        if typed in self.names or len(typed) < SHORTEST:
            return None
        if typed.startswith("@") and typed.split("/", 1)[0] in self._scopes:
            return None  # a scope of popular packages: nobody else can publish in it
        limit = 2 if len(typed) >= TWO_EDITS_FROM else 1
        best: tuple[int, str] | None = None
        variants = _deletions(typed, limit)
        for length in range(len(typed) - limit, len(typed) + limit + 1):
            bucket = self._bucket(length)
            for variant in variants:
                for target in bucket.get(variant, ()):
                    distance = osa_distance(typed, target, limit)
                    if distance <= limit and (best is None or (distance, target) < best):
                        best = (distance, target)
        return None if best is None else best[1]


def _deletions(word: str, depth: int) -> set[str]:
    """``word`` and every string made by deleting up to ``depth`` of its characters."""
    found = {word}
    frontier = {word}
    for _ in range(depth):
        frontier = {w[:i] + w[i + 1:] for w in frontier for i in range(len(w))}
        found |= frontier
    return found


def osa_distance(a: str, b: str, limit: int) -> int:
    """Damerau-Levenshtein distance (optimal string alignment) of ``a`` and ``b``; any value
    above ``limit`` is returned as ``limit + 1``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = ca != cb
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], previous2[j - 2] + 1)
        if min(row) > limit:
            return limit + 1
        previous2, previous = previous, row
    return min(previous[-1], limit + 1)


@lru_cache(maxsize=2)
def index(registry: str) -> Index:
    """The index of ``registry`` (``pypi`` or ``npm``), read from its file once."""
    text = (_HERE / f"{registry}.txt").read_text(encoding="utf-8")
    names = [line for line in text.splitlines() if line and not line.startswith("#")]
    return Index(registry, names)
