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
from clawgate.validators.indexhosts import index_kind
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
                                r"|editor|browser|yarn-?path|prefix|plugins)\b")
# Settings files of one ``key = value`` (or yarn's ``key value``) per line; yarn 2's
# ``.yarnrc.yml`` holds ``key: value`` (a key with a block below it is read as a key with no
# value, its block's lines as no setting known here).
_SETTINGS_FILES = frozenset({".npmrc", ".yarnrc", ".yarnrc.yml", "pip.conf", "pip.ini"})
_SETTING = lazy_pattern(r"^\s*(?:\[[\w .:-]+\]|[#;].*|([\w.@/:-]+)\s*(?:=|\s)\s*(.*)|)\s*$")
# The settings known to change only how a package manager reports, saves version ranges,
# waits and retries: none names a program, a file, a registry or a credential. A setting not
# named here (init-module, node-gyp, viewer, pip's editable or requirement) is not inert.
_INERT_SETTINGS = (
    "save-exact", "save-prefix", "fund", "audit", "audit-level", "progress", "loglevel",
    "color", "engine-strict", "legacy-peer-deps", "strict-peer-deps", "package-lock",
    "update-notifier", "fetch-retries", "fetch-retry-mintimeout", "fetch-retry-maxtimeout",
    "fetch-timeout", "prefer-offline", "prefer-online", "lockfile-version", "unicode",
    "auto-install-peers", "strict-peer-dependencies", "network-timeout", "ignore-engines",
    "disable-self-update-check", "timeout", "default-timeout", "retries",
    "disable-pip-version-check", "no-cache-dir", "progress-bar", "quiet", "verbose",
    "no-input", "no-color", "require-virtualenv", "prefer-binary", "upgrade-strategy",
    "no-warn-script-location", "root-user-action",
    # yarn 2+ (.yarnrc.yml, yarn config set): camelCase spellings
    "httpRetry", "httpTimeout", "networkConcurrency", "enableTelemetry", "enableProgressBars",
    "enableColors", "enableMessageNames", "defaultSemverRangePrefix", "compressionLevel",
    "preferInteractive", "npmMinimalAgeGate", "nodeLinker", "enableGlobalCache",
    "enableImmutableInstalls", "enableInlineBuilds", "enableHardenedMode",
)
# The settings that name the package index: npm's registry (a scope's too), yarn 1's registry,
# yarn 2's npmRegistryServer, pip's index-url and extra-index-url.
_INDEX_KEY = lazy_pattern(r"(?i)^(?:@[\w.-]+:)?registry$|^npmRegistryServer$|"
                          r"^(?:extra[-_])?index[-_]url$")
# A value that is a word, a number or a version-range sign (true, 60, ~, error).
_PLAIN_VALUE = lazy_pattern(r"^[\w.^~+-]*$")
# Where the readers of these files end a line: npm's ini at any CR or LF, Python's
# configparser at CR, LF or CRLF (universal newlines).
_LINE_ENDS = lazy_pattern(r"\r\n?|\n")
# An escape the reader of printf's and echo's text (written.py) does not spell out as the byte
# it makes (\r, \x0d and \015 are dropped or kept as text): only \n, \t and \\ read exactly.
_INEXACT_ESCAPE = lazy_pattern(r"\\[^nt\\]")
# Any other control character: a text that holds one is not read here as settings.
_CONTROL = lazy_pattern(r"[\x00-\x08\x0b-\x1f\x7f]")


def _spelling(key: str) -> str:
    """``key`` in one spelling for save-exact, save_exact, SAVE-EXACT and saveExact."""
    return key.lower().replace("_", "").replace("-", "")


INERT_SETTINGS = frozenset(map(_spelling, _INERT_SETTINGS))


def inert_setting(key: str, value: str) -> bool:
    """``key`` (in any case, with ``_``, ``-`` or neither) is a setting known to be inert and
    ``value`` a plain word for it; or it names the package index and ``value`` is the
    ecosystem's own public one over HTTPS (``registry=https://registry.npmjs.org/``,
    ``index-url = https://pypi.org/simple``): where packages come from anyway."""
    if _INDEX_KEY.match(key):
        return index_kind(value.strip().strip("\"'")) == "default"
    return _spelling(key) in INERT_SETTINGS and bool(_PLAIN_VALUE.match(value))


def inert_settings(cmd: SimpleCommand, path: str) -> bool:
    """``cmd`` writes (or appends) literal settings to a package manager's settings file
    (``.npmrc``, ``.yarnrc``, ``pip.conf``), each one known to neither run a program nor
    redirect where packages come from (``save-exact=true``), as ``npm config set save-exact
    true`` would."""
    settings = _settings(cmd, path)
    return settings is not None and all(inert_setting(key, value) for key, value in settings)


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
    if any(_INEXACT_ESCAPE.search(word) for word in cmd.args):
        return None  # printf 'a=1\rb=2': the text read here is not the text written
    texts = [text for where, text in written(cmd) if posixpath.basename(where) == name]
    if len(texts) != 1 or texts[0] is None:
        return None
    if _CONTROL.search(texts[0].replace("\r", "\n")):
        return None
    found: list[tuple[str, str]] = []
    for line in _LINE_ENDS.split(texts[0]):
        setting = _SETTING.match(line)
        if setting is None:
            return None
        if setting.group(1) is not None:
            key = setting.group(1)
            if name == ".yarnrc.yml":  # key: value
                if not key.endswith(":") or key.startswith("-"):
                    return None
                key = key[:-1]
            found.append((key, setting.group(2) or ""))
    return found
