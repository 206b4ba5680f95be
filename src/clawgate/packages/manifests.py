"""The package names a project declares itself: ``package.json``, ``pyproject.toml``,
``requirements*.txt``, ``Gemfile``, ``Gemfile.lock``, ``*.gemspec``, ``Cargo.toml``,
``Cargo.lock``, ``go.mod`` in the directory a command runs in and at the workspace's root.

A name the project already depends on is no hallucination, popular or not. Read only when a
command names a package that is not among the popular ones; each file at most ``MAX_BYTES``
(larger ones, and ones that do not parse, declare nothing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clawgate import fsfacts
from clawgate.lazyre import lazy_pattern
from clawgate.packages import normalise

MAX_BYTES = 512 * 1024
MAX_REQUIREMENTS = 16  # requirements*.txt (or *.gemspec) files read in one directory
_REQUIREMENT = lazy_pattern(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_NPM_SECTIONS = ("dependencies", "devDependencies", "peerDependencies",
                 "optionalDependencies", "bundleDependencies", "bundledDependencies")


def declared(registry: str, directories: list[str]) -> frozenset[str]:
    """Normalised names declared for ``registry`` in any of ``directories``."""
    found: set[str] = set()
    for directory in dict.fromkeys(directories):
        base = Path(directory)
        if registry == "npm":
            found |= _package_json(base / "package.json")
        elif registry == "go":
            found |= _go_mod(base / "go.mod")
        elif registry == "rubygems":
            found |= _gemfile(base / "Gemfile") | _gemfile_lock(base / "Gemfile.lock")
            fsfacts.listing(directory)
            for path in sorted(base.glob("*.gemspec"))[:MAX_REQUIREMENTS]:
                found |= _gemspec(path)
        elif registry == "crates":
            found |= _cargo_toml(base / "Cargo.toml") | _cargo_lock(base / "Cargo.lock")
        else:
            found |= _pyproject(base / "pyproject.toml")
            fsfacts.listing(directory)
            for path in sorted(base.glob("requirements*.txt"))[:MAX_REQUIREMENTS]:
                found |= _requirements(path)
    return frozenset(normalise(registry, name) for name in found)


def small_text(path: Path) -> str | None:
    """The text of a regular file of at most ``MAX_BYTES``, read through ``fsfacts``; None
    for anything else."""
    try:
        if not fsfacts.isfile(str(path)) or fsfacts.stat(str(path)).st_size > MAX_BYTES:
            return None
        return fsfacts.read_text(str(path), MAX_BYTES)
    except OSError:
        return None


def _package_json(path: Path) -> set[str]:
    import json

    text = small_text(path)
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return set()
    if not isinstance(data, dict):
        return set()
    names: set[str] = set()
    for section in _NPM_SECTIONS:
        value = data.get(section)
        if isinstance(value, dict | list):  # a list: bundleDependencies
            names |= {k for k in value if isinstance(k, str)}
    return names


def _pyproject(path: Path) -> set[str]:
    data = _toml(path)
    if data is None:
        return set()
    specs: list[object] = []
    project = data.get("project", {})
    if isinstance(project, dict):
        specs += _list(project.get("dependencies"))
        for group in _dict(project.get("optional-dependencies")).values():
            specs += _list(group)
    for group in _dict(data.get("dependency-groups")).values():
        specs += _list(group)
    poetry = _dict(_dict(data.get("tool")).get("poetry"))
    specs += list(_dict(poetry.get("dependencies")))
    for group in _dict(poetry.get("group")).values():
        specs += list(_dict(_dict(group).get("dependencies")))
    return {m.group(1) for s in specs if isinstance(s, str) and (m := _REQUIREMENT.match(s))}


_GO_REQUIRE = lazy_pattern(r"^\s*(?:require\s+)?([\w.~-]+(?:/[\w.~-]+)+)\s+v\S+", )


def _go_mod(path: Path) -> set[str]:
    """Module paths ``go.mod`` requires (single ``require`` lines and ``require ( … )``)."""
    text = small_text(path) or ""
    return {m.group(1) for line in text.splitlines() if (m := _GO_REQUIRE.match(line))}


_GEM = lazy_pattern(r"""^\s*gem\s*\(?\s*["']([^"']+)["']""")
_GEMSPEC_DEPENDENCY = lazy_pattern(
    r"""\badd_(?:runtime_|development_)?dependency\s*\(?\s*["']([^"']+)["']""")
_LOCKED_GEM = lazy_pattern(r"^    ([A-Za-z0-9][\w.-]*) \(")


def _gemfile(path: Path) -> set[str]:
    """``gem "name", …`` lines of a Gemfile (its Ruby is not run)."""
    text = small_text(path) or ""
    return {m.group(1) for line in text.splitlines() if (m := _GEM.match(line))}


def _gemspec(path: Path) -> set[str]:
    text = small_text(path) or ""
    return {m.group(1) for m in _GEMSPEC_DEPENDENCY.finditer(text)}


def _gemfile_lock(path: Path) -> set[str]:
    """The gems a Gemfile.lock resolved (``    name (version)`` under ``specs:``)."""
    text = small_text(path) or ""
    return {m.group(1) for line in text.splitlines() if (m := _LOCKED_GEM.match(line))}


_CARGO_SECTIONS = ("dependencies", "dev-dependencies", "build-dependencies")


def _cargo_toml(path: Path) -> set[str]:
    """Crates of ``[dependencies]`` and its kin, per target and the workspace's (a renamed
    one by its ``package``)."""
    data = _toml(path)
    if data is None:
        return set()
    tables = [data, _dict(data.get("workspace")), *map(_dict, _dict(data.get("target")).values())]
    names: set[str] = set()
    for table in tables:
        for section in _CARGO_SECTIONS:
            for key, value in _dict(table.get(section)).items():
                real = _dict(value).get("package")
                names.add(real if isinstance(real, str) else key)
    return names


def _cargo_lock(path: Path) -> set[str]:
    data = _toml(path)
    if data is None:
        return set()
    packages = data.get("package")
    return {p["name"] for p in _list(packages) if isinstance(p, dict)
            and isinstance(p.get("name"), str)}


def _requirements(path: Path) -> set[str]:
    text = small_text(path) or ""
    return {m.group(1) for line in text.splitlines()
            if not line.lstrip().startswith(("#", "-")) and (m := _REQUIREMENT.match(line))}


def _toml(path: Path) -> dict[str, Any] | None:
    """The TOML document of ``path`` ({} when it is missing or empty); None when it does not
    parse (tomllib is imported only when a project has such a file)."""
    import tomllib

    text = small_text(path)
    try:
        return tomllib.loads(text) if text else {}
    except tomllib.TOMLDecodeError:
        return None


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}
