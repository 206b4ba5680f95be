"""Popular package names of PyPI, npm, RubyGems, crates.io and Go, and the names one or two
edits away from them.

Agents hallucinate package names, and attackers register the names agents hallucinate and the
misspellings of popular ones (``reqeusts``, ``expresss``). The names ship as data with their
source and date (``pypi.txt``, ``npm.txt``, ``rubygems.txt``, ``crates.txt``, ``go.txt`` beside
this module, rebuilt by ``scripts/package_lists.py``), read only when an install or run-by-name
command is seen. PyPI's and npm's are ranked by downloads; the gems, crates and Go modules are
those a Debian release packages (no ranking of those registries is reachable), most depended
on within Debian first: a much smaller set, with many real packages close to its names (``rustfmt``
beside ``rustfft``, ``cargo-edit`` beside ``cargo-emit``), so a typo there is one edit from one
of the ``DEBIAN_TARGETS`` most depended on, and a digit put for another digit
(``blake2``/``blake3``) is a version, not a typo.

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
DEBIAN_TARGETS = 500  # of Debian's lists, ranked by dependents: the registries hold far more
SHORTEST = 5  # shorter names are one edit from too many others to tell a typo from a name
TWO_EDITS_FROM = 9  # names this long or longer may be two edits off
_PEP503 = lazy_pattern(r"[-_.]+")
_HERE = Path(__file__).resolve().parent
RANKED = frozenset({"pypi", "npm"})  # ranked by downloads; the others are Debian's
REGISTRIES = frozenset({*RANKED, "rubygems", "crates", "go"})
_WHAT = {"pypi": "most-downloaded PyPI projects", "npm": "most-downloaded npm packages",
         "rubygems": "Ruby gems Debian packages", "crates": "Rust crates Debian packages",
         "go": "Go modules Debian packages"}


def normalise(registry: str, name: str) -> str:
    """PyPI: PEP 503 (case and runs of ``-_.`` do not matter); gems and crates: lower case,
    ``_`` read as ``-`` (crates.io holds one crate for both; Debian spells gems so); npm and Go
    module paths: lower case."""
    lowered = name.lower()
    if registry == "pypi":
        return _PEP503.sub("-", lowered)
    return lowered.replace("_", "-") if registry in ("rubygems", "crates") else lowered


class Index:
    """The popular names of one registry, in ranking order, and their near-name index."""

    def __init__(self, registry: str, names: list[str]) -> None:
        self.registry = registry
        self.size = len(names)
        self.what = f"{self.size:,} {_WHAT.get(registry, registry)}"
        self.edits = 2 if registry in RANKED else 1  # the most edits a typo may take
        self.names = frozenset(names)
        self._targets: dict[int, list[str]] = {}
        for name in names[:TARGETS if registry in RANKED else DEBIAN_TARGETS]:
            if len(name) >= SHORTEST:
                self._targets.setdefault(len(name), []).append(name)
        self._buckets: dict[int, dict[str, list[str]]] = {}
        # npm scopes are owned: only the owner publishes under @types/ or @babel/
        self._scopes: frozenset[str] | None = None  # built when a scoped name needs them

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
        if typed.startswith("@") and typed.split("/", 1)[0] in self._npm_scopes():
            return None  # a scope of popular packages: nobody else can publish in it
        return self._nearest(typed)

    def _npm_scopes(self) -> frozenset[str]:
        if self._scopes is None:
            self._scopes = frozenset(n.split("/", 1)[0] for n in self.names if n[:1] == "@")
        return self._scopes

    def _nearest(self, typed: str) -> str | None:
        limit = 2 if len(typed) >= TWO_EDITS_FROM and self.edits > 1 else 1
        lengths = [n for n in range(len(typed) - limit, len(typed) + limit + 1)
                   if n in self._targets]
        if not lengths:  # no popular name that long: nor its deletions (quadratic in a long
            return None  # word's length: a 20,000-character one took seconds and 400 MB)
        best: tuple[int, str] | None = None
        variants = _deletions(typed, limit)
        for length in lengths:
            bucket = self._bucket(length)
            for variant in variants:
                for target in bucket.get(variant, ()):
                    distance = osa_distance(typed, target, limit)
                    if distance <= limit and (best is None or (distance, target) < best) \
                            and (self.edits > 1 or not digit_for_digit(typed, target)):
                        best = (distance, target)
        return None if best is None else best[1]


class ModuleIndex(Index):
    """Go module paths: a package path inside a known module is known
    (``golang.org/x/tools/cmd/goimports``). A typo is one edit in one segment of at least
    ``SHORTEST`` characters of a module's path, the others equal, where someone else can
    register it: the host (``githb.com/spf13/cobra``) or the account on a shared forge
    (``github.com/spf31/cobra``). Paths below a domain or an account are its owner's alone
    (``golang.org/x/tolls`` can only fail to resolve), as npm scopes are; another major version
    of a known module (``/v2``, ``gopkg.in/yaml.v2``) is no typo."""

    def __init__(self, names: list[str]) -> None:
        super().__init__("go", names)
        self._roots = frozenset(_unversioned(n) for n in names)
        self._wild: dict[str, list[tuple[str, str]]] | None = None

    def known(self, name: str) -> bool:
        parts = normalise("go", name).split("/")
        return any("/".join(parts[:i]) in self.names for i in range(len(parts), 1, -1))

    def near(self, name: str) -> str | None:
        if self.known(name):
            return None
        parts = _unversioned(normalise("go", name)).split("/")
        if any("/".join(parts[:i]) in self._roots for i in range(len(parts), 1, -1)):
            return None  # another major version of a known module
        wild = self._wildcards()
        for size in (3, 2):
            root = parts[:size]
            if len(root) < size:
                continue
            for i, segment in enumerate(root):
                if len(segment) < SHORTEST or i > 1 or (i == 1 and root[0] not in _FORGES):
                    continue  # not a name a stranger can register
                key = "/".join([*root[:i], "*", *root[i + 1:]])
                for target_segment, target in wild.get(key, ()):
                    if osa_distance(segment, target_segment, 1) <= 1 \
                            and not digit_for_digit(segment, target_segment):
                        return target
        return None

    def _wildcards(self) -> dict[str, list[tuple[str, str]]]:
        """Each known path with one segment put as ``*``, to the segment and the path."""
        if self._wild is None:
            self._wild = {}
            for path in sorted(self.names):
                parts = _unversioned(path).split("/")
                for i, segment in enumerate(parts):
                    key = "/".join([*parts[:i], "*", *parts[i + 1:]])
                    self._wild.setdefault(key, []).append((segment, path))
        return self._wild


_FORGES = frozenset({"github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "gitee.com",
                     "git.sr.ht", "gopkg.in"})  # hosts where anyone may open an account
_MAJOR = lazy_pattern(r"(?:/v\d+|\.v\d+)(?=/|$)")


def _unversioned(path: str) -> str:
    """``github.com/a/b/v2`` -> ``github.com/a/b``; ``gopkg.in/yaml.v3`` -> ``gopkg.in/yaml``."""
    return _MAJOR.sub("", path)


def digit_for_digit(a: str, b: str) -> bool:
    """``a`` and ``b`` differ in one position only, a digit in both (a version, not a typo)."""
    if len(a) != len(b):
        return False
    differ = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return len(differ) == 1 and differ[0][0].isdigit() and differ[0][1].isdigit()


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


@lru_cache(maxsize=len(REGISTRIES))
def index(registry: str) -> Index:
    """The index of ``registry`` (one of ``REGISTRIES``), read from its file once."""
    text = (_HERE / f"{registry}.txt").read_text(encoding="utf-8")
    names = [line for line in text.splitlines() if line and not line.startswith("#")]
    return ModuleIndex(names) if registry == "go" else Index(registry, names)
