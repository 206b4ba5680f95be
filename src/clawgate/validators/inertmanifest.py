"""A package manifest or a package manager's settings file written with literal text in
which nothing runs by itself.

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


# Settings that make a package manager run a program of the setter's choosing.
RUNNING_SETTINGS = lazy_pattern(r"(?i)^(?:script-shell|shell|node-options|onload-script|git"
                                r"|editor|browser|yarn-?path|prefix)\b")
# Settings that redirect where packages come from, how they are trusted, or what runs.
REDIRECTING = lazy_pattern(r"(?i)registry|index|trusted-host|find-links|proxy|^ca|cafile|cert"
                           r"|ssl|scripts|auth|token|userconfig|globalconfig|prefix|mirror"
                           r"|unsafe|scopes|plugin|source|repositor|^git$|channel|key")
# Settings files of one ``key = value`` (or yarn's ``key value``) per line.
_SETTINGS_FILES = frozenset({".npmrc", ".yarnrc", "pip.conf", "pip.ini"})
_SETTING = lazy_pattern(r"^\s*(?:\[[\w .:-]+\]|[#;].*|([\w.@/:-]+)\s*(?:=|\s)\s*(.*)|)\s*$")


def inert_settings(cmd: SimpleCommand, path: str) -> bool:
    """``cmd`` writes (or appends) literal settings to a package manager's settings file
    (``.npmrc``, ``.yarnrc``, ``pip.conf``) that neither run a program nor redirect where
    packages come from (``save-exact=true``), as ``npm config set save-exact true`` would."""
    from clawgate.validators.protected import RUNS_CODE

    settings = _settings(cmd, path)
    return settings is not None and not any(
        RUNNING_SETTINGS.match(key) or REDIRECTING.search(key) or RUNS_CODE.search(value)
        or "${" in value for key, value in settings)


def running_setting(cmd: SimpleCommand, path: str) -> str | None:
    """The first setting ``cmd`` writes to a package manager's settings file that names a
    program for it to run (``script-shell``, ``node-options``, ``yarn-path``), or None."""
    return next((key for key, _ in _settings(cmd, path) or () if RUNNING_SETTINGS.match(key)),
                None)


def _settings(cmd: SimpleCommand, path: str) -> list[tuple[str, str]] | None:
    """The (key, value) settings ``cmd`` prints into the settings file ``path``; None when it
    is no such file, its text is not known or a line reads as no setting."""
    if posixpath.basename(path) not in _SETTINGS_FILES or cmd.program not in ("echo", "printf"):
        return None
    name = posixpath.basename(path)
    texts = [text for where, text in written(cmd) if posixpath.basename(where) == name]
    if len(texts) != 1 or texts[0] is None:
        return None
    found: list[tuple[str, str]] = []
    for line in texts[0].split("\n"):
        setting = _SETTING.match(line)
        if setting is None:
            return None
        if setting.group(1) is not None:
            found.append((setting.group(1), setting.group(2) or ""))
    return found
