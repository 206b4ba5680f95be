"""What the project's Deno configuration maps module specifiers to.

deno.json (or deno.jsonc) maps imports (``"imports"``, ``"scopes"``, or a separate file named
by ``"importMap"``), and so does a file given with ``--config``/``-c`` or ``--import-map``. A
key may be any specifier, ``jsr:@std/fmt`` included: a standard-library name mapped to a URL is
that URL's code. The files are read as JSON with comments; one that cannot be read says
nothing (its specifiers keep their meaning), one that does not parse is ``None``: unknown.
"""

from __future__ import annotations

import json
import os
import re

from clawgate import fsfacts

_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_MAX_BYTES = 1 << 20
_NAMES = ("deno.json", "deno.jsonc")
_CONFIG = frozenset({"--config", "-c"})


def _read(path: str) -> dict[str, object] | None:
    """The JSON object in ``path``; {} when there is no such file; None when it does not parse."""
    try:
        text = fsfacts.read_text(path, _MAX_BYTES + 1)
    except OSError:
        return {}
    if len(text) > _MAX_BYTES:
        return None
    bare = _COMMENT.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    try:
        found = json.loads(re.sub(r",(\s*[}\]])", r"\1", bare))
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def _maps(config: dict[str, object], folder: str) -> list[dict[str, object]] | None:
    """The import maps a configuration holds or names."""
    found: list[dict[str, object]] = [config]
    named = config.get("importMap")
    if isinstance(named, str) and "://" not in named:
        other = _read(os.path.join(folder, named))
        if other is None:
            return None
        found.append(other)
    elif named is not None:
        return None  # an import map from the network: anything
    maps: list[dict[str, object]] = []
    for source in found:
        imports = source.get("imports")
        if isinstance(imports, dict):
            maps.append(imports)
        scopes = source.get("scopes")
        if isinstance(scopes, dict):
            maps += [m for m in scopes.values() if isinstance(m, dict)]
    return maps


def import_maps(cwd: str, workspace: str, given: list[str]) -> list[dict[str, object]] | None:
    """Every import map the project's configuration and the files ``given`` on the command
    line (``--config``, ``--import-map``) hold, or None when one cannot be read as JSON."""
    maps: list[dict[str, object]] = []
    places = [(os.path.join(f, n), f) for f in dict.fromkeys((cwd, workspace)) for n in _NAMES]
    places += [(os.path.join(cwd, g), os.path.dirname(os.path.join(cwd, g))) for g in given]
    for path, folder in places:
        config = _read(path)
        found = None if config is None else _maps(config, folder)
        if found is None:
            return None
        maps += found
    return maps


def given_files(words: list[str]) -> list[str]:
    """The configuration and import map files a deno command line names."""
    found: list[str] = []
    for index, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name in _CONFIG or name == "--import-map":
            if eq:
                found.append(value)
            elif index + 1 < len(words):
                found.append(words[index + 1])
        elif word.startswith("-c") and len(word) > 2 and not word.startswith("--"):
            found.append(word[2:])
    return found


def mapped(spec: str, maps: list[dict[str, object]]) -> str | None:
    """What ``spec`` resolves to through ``maps`` (an exact key, else the longest key ending in
    ``/`` that starts it), or None when no map names it."""
    best: tuple[int, str] | None = None
    for table in maps:
        for key, value in table.items():
            if not isinstance(value, str):
                continue
            if key == spec:
                return value
            if key.endswith("/") and spec.startswith(key) and (
                    best is None or len(key) > best[0]):
                best = (len(key), value + spec[len(key):])
    return None if best is None else best[1]


def declares(package: str, maps: list[dict[str, object]]) -> bool:
    """A map resolves some import to the JSR package ``package`` (``@scope/name``)."""
    for table in maps:
        for value in table.values():
            if isinstance(value, str):
                rest = value.removeprefix("jsr:").lstrip("/")
                if value.startswith("jsr:") and (
                        rest == package or rest.startswith((package + "@", package + "/"))):
                    return True
    return False
