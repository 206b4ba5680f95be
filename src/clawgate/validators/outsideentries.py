"""Deletes beyond the workspace that stay in scratch space or caches (CG-DEG-001's exceptions).

- **Entries of a temporary directory chosen by a pattern.** ``rm -rf /tmp/pytest-*``,
  ``rm -f /tmp/*.log`` and ``find /tmp -name 'pytest-*' -delete`` remove entries inside
  ``/tmp``, as ``rm -rf /tmp/pytest-of-root`` does, never the directory itself. A pattern
  with no literal character but dots (``/tmp/*``, ``/tmp/.*``, ``find /tmp -delete``)
  takes every process's files, sockets and locks with it: that stays a delete of the
  directory.
- **A cache in the user's home.** ``rm -rf ~/.cache/pip``, ``~/.m2/repository/com/x``,
  ``~/.gradle/caches``, ``~/.cargo/registry``, ``~/go/pkg/mod``: what a download or a build
  brings back, by the XDG specification or the tool's own layout. Still outside the workspace,
  it is asked about, not denied; the cache directory as a whole pattern (``~/.cache/*``) and
  home itself are not caches.
"""

from __future__ import annotations

import re

from clawgate.validators.base import Context
from clawgate.validators.paths import TEMP_DIRS

_CLASS = re.compile(r"\[[^]]*\]")
# Below home: a cache's own directory (one more name below those ending in "/").
_HOME_CACHES = (".cache/", "Library/Caches/", ".npm/_cacache", ".npm/_npx", ".m2/repository",
                ".gradle/caches", ".gradle/wrapper/dists", ".cargo/registry", ".cargo/git",
                "go/pkg/mod", ".nuget/packages", ".pub-cache", ".ccache",
                ".sbt/boot", ".ivy2/cache", ".bun/install/cache",
                ".pnpm-store", ".yarn/berry/cache", ".conan2/p", ".stack/snapshots")


def catch_all(pattern: str) -> bool:
    """``pattern`` (a shell or find glob) has no literal character but dots: it matches any
    name (``*``, ``.*``, ``?*``, ``[a-z]*``)."""
    literal = _CLASS.sub("", pattern).replace("*", "").replace("?", "").replace("\\", "")
    return not literal.strip(".")


def glob_in_temp(value: str, path: str) -> bool:
    """A delete's glob ``value`` that ``resolve`` read as its directory ``path``: the entries
    it names lie in a temporary directory, chosen by a pattern that is no catch-all."""
    last = value.rstrip("/").rsplit("/", 1)[-1]
    return "/" in value and not catch_all(last) and _temp_entry(f"{path}/{last}")


def find_in_temp(path: str, patterns: list[str], acts_on_named: bool) -> bool:
    """A ``find`` from the temporary directory ``path`` whose deletes act only on names its
    tests match, none a catch-all nor the start point's own name."""
    if path not in TEMP_DIRS or not patterns or not acts_on_named:
        return False
    base = path.rsplit("/", 1)[-1]
    return not any(catch_all(p) or re.fullmatch(_regex(p), base) for p in patterns)


def home_cache(path: str, ctx: Context) -> bool:
    """``path`` lies in (or is) a cache directory in the user's home (see the module)."""
    home = ctx.home.rstrip("/")
    if not path.startswith(home + "/"):
        return False
    rest = path[len(home) + 1:]
    for cache in _HOME_CACHES:
        if cache.endswith("/"):
            if rest.startswith(cache) and rest[len(cache):].strip("/"):
                return True
        elif rest == cache or rest.startswith(cache + "/"):
            return True
    return False


def _temp_entry(path: str) -> bool:
    return any(path.startswith(t + "/") and "/" not in path[len(t) + 1:] for t in TEMP_DIRS)


def _regex(pattern: str) -> str:
    from fnmatch import translate

    return translate(pattern)
