"""The packages a project's lock files resolved: ``package-lock.json`` and
``npm-shrinkwrap.json`` (npm), ``yarn.lock``, ``pnpm-lock.yaml``; ``uv.lock``, ``poetry.lock``,
``pdm.lock`` and ``Pipfile.lock`` (PyPI).

A lock file lists every package the project's installs brought in, its own dependencies and
theirs: a name found there was chosen by the project's dependency tree, not made up by whoever
types the command now (``npx semver``, ``pip install tomli`` in a project whose lock holds
them). Read only when a command names a package that is neither popular nor declared nor
installed by the project's own files; each file at most ``MAX_BYTES`` (lock files of large
projects run to megabytes; a larger one, or one that does not parse, names nothing). Only the
ask for an unknown name (CG-PKG-002) reads them: a near-miss of a popular name stays judged as
one (CG-PKG-001).
"""

from __future__ import annotations

import json
from pathlib import Path

from clawgate import fsfacts
from clawgate.lazyre import lazy_pattern

MAX_BYTES = 16 * 1024 * 1024
_NPM_JSON = ("package-lock.json", "npm-shrinkwrap.json")
_PYPI_TOML = ("uv.lock", "poetry.lock", "pdm.lock")
# yarn.lock (v1 and berry): an entry's header, ``"@scope/name@^1.2.0", name@npm:^1:``
_YARN_HEADER = lazy_pattern(r'^"?(@?[^@\s"]+)@')
# pnpm-lock.yaml: a package key, ``  /name@1.0.0:``, ``  '@scope/name@1.0.0':``, or a
# version 5 key ``  /name/1.0.0:``
_PNPM_KEY = lazy_pattern(r"^ {2}'?/?(@[^@/\s']+/[^@/\s']+|[^@/\s']+)[@/]")


def locked(registry: str, directory: str) -> frozenset[str]:
    """The package names (as spelled) the lock files of ``directory`` hold for ``registry``
    (``npm`` or ``pypi``; none for another)."""
    base = Path(directory)
    found: set[str] = set()
    if registry == "npm":
        for name in _NPM_JSON:
            found |= _package_lock(_text(base / name))
        found |= _yarn_lock(_text(base / "yarn.lock"))
        found |= _pnpm_lock(_text(base / "pnpm-lock.yaml"))
    elif registry == "pypi":
        for name in _PYPI_TOML:
            found |= _toml_packages(_text(base / name))
        found |= _pipfile_lock(_text(base / "Pipfile.lock"))
    return frozenset(found)


def _text(path: Path) -> str:
    """The text of a regular file of at most ``MAX_BYTES``; "" for anything else."""
    try:
        if not fsfacts.isfile(str(path)) or fsfacts.stat(str(path)).st_size > MAX_BYTES:
            return ""
        return fsfacts.read_text(str(path), MAX_BYTES)
    except OSError:
        return ""


def _json(text: str) -> dict[str, object]:
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _package_lock(text: str) -> set[str]:
    """lockfileVersion 2 and 3: ``packages`` keyed ``node_modules/a/node_modules/@s/b``;
    version 1: nested ``dependencies`` keyed by name."""
    data = _json(text)
    names: set[str] = set()
    packages = data.get("packages")
    if isinstance(packages, dict):
        for key in packages:
            if isinstance(key, str) and "node_modules/" in key:
                names.add(key.rsplit("node_modules/", 1)[1])
    pending = [data.get("dependencies")]
    while pending:
        table = pending.pop()
        if isinstance(table, dict):
            for key, value in table.items():
                if isinstance(key, str):
                    names.add(key)
                if isinstance(value, dict):
                    pending.append(value.get("dependencies"))
    return names


def _yarn_lock(text: str) -> set[str]:
    return {m.group(1) for line in text.splitlines()
            if line[:1] not in ("", " ", "#") and (m := _YARN_HEADER.match(line))}


def _pnpm_lock(text: str) -> set[str]:
    names: set[str] = set()
    inside = False
    for line in text.splitlines():
        if line and not line.startswith(" "):
            inside = line.rstrip() in ("packages:", "snapshots:")
        elif inside and (m := _PNPM_KEY.match(line)):
            names.add(m.group(1))
    return names


def _toml_packages(text: str) -> set[str]:
    """``[[package]]`` tables' ``name`` (uv, Poetry and PDM write them alike)."""
    import tomllib

    try:
        data = tomllib.loads(text) if text else {}
    except tomllib.TOMLDecodeError:
        return set()
    packages = data.get("package")
    return {p["name"] for p in packages if isinstance(p, dict) and isinstance(
        p.get("name"), str)} if isinstance(packages, list) else set()


def _pipfile_lock(text: str) -> set[str]:
    data = _json(text)
    return {key for section in ("default", "develop") if isinstance(
        table := data.get(section), dict) for key in table if isinstance(key, str)}
