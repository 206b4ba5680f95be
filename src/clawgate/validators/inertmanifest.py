"""A package manifest written whole with literal text in which nothing runs by itself.

``package.json`` and ``composer.json`` run code through their ``scripts`` (npm's and
composer's lifecycle hooks), through plugins and configuration (composer's ``config``,
``repositories``), through a package manager they name (``packageManager``: corepack fetches
it) and through dependencies taken from anywhere but the registry (git, URLs, local paths,
whose own install scripts run). A manifest written with ``echo '{…}' > package.json`` whose
text is known, is a JSON object, uses only the keys below and takes every dependency from the
registry or the workspace (``"^1.2"``, ``"workspace:^"``) declares data only.
"""

from __future__ import annotations

import json
import posixpath

from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.written import written

JSON_MANIFEST = lazy_pattern(r"(?:^|/)(?:package|composer)\.json$")
_DATA_KEYS = frozenset({
    "name", "version", "private", "type", "description", "license", "keywords", "author",
    "contributors", "homepage", "repository", "bugs", "main", "module", "types", "typings",
    "exports", "imports", "files", "sideEffects", "browser", "engines", "workspaces",
    "minimum-stability", "prefer-stable", "funding",
})
_DEPENDENCY_KEYS = frozenset({
    "dependencies", "devDependencies", "peerDependencies", "optionalDependencies",
    "require", "require-dev",
})
# A version range of the registry (npm's and composer's spellings), or the workspace's own.
_REGISTRY_RANGE = lazy_pattern(r"^(?:workspace:)?[\w.*^~<>=|, +@-]*$")


def inert_manifest(cmd: SimpleCommand, path: str) -> bool:
    """``cmd`` replaces ``path`` (a ``package.json`` or ``composer.json``) with literal JSON
    that declares data only."""
    if not JSON_MANIFEST.search(path) or cmd.program not in ("echo", "printf", "cat"):
        return False
    if any(r.writes and r.op not in (">", ">|") for r in cmd.redirects):
        return False  # appended to: the rest of the file is not known here
    target = posixpath.normpath(path)
    texts = [text for where, text in written(cmd) if where == target]
    if len(texts) != 1 or texts[0] is None:
        return False
    try:
        doc = json.loads(texts[0])
    except ValueError:
        return False
    if not isinstance(doc, dict):
        return False
    for key, value in doc.items():
        if key in _DEPENDENCY_KEYS:
            if not isinstance(value, dict) or not all(
                    isinstance(v, str) and _REGISTRY_RANGE.match(v) for v in value.values()):
                return False
        elif key not in _DATA_KEYS:
            return False
    return True
