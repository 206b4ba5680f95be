"""Derive ``names.json`` from a checkout of the ignore templates projects start from.

    python -m clawgate.ignoretemplates.build PATH/TO/github-gitignore [COMMIT]

Every ``*.gitignore`` under PATH (the root, ``Global/``, ``community/``) is read. A pattern
counts when it names one file or directory by its full name: ``build/``, ``/build``,
``**/build``, ``build/**``; a negation, a glob (``*.log``, ``cmake-build-*``) and a pattern with
a directory inside (``docs/_build``: one ecosystem's layout) do not. Each name is then kept or
dropped by ``curation`` (the reviewed rules, each with its reason); ``names.json`` holds the
kept names (lowercased, as ``regenerable()`` compares them) with the templates each came from,
and the dropped ones with the rule that dropped them.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from clawgate.ignoretemplates import curation

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(HERE, "names.json")
_GLOB = frozenset("*?[\\")


def name_of(line: str) -> str | None:
    """The one name a template line ignores, or None (a comment, a negation, a glob, a path)."""
    pattern = line.rstrip("\n").removesuffix("\r").rstrip(" ")
    if not pattern or pattern.startswith(("#", "!")):
        return None
    pattern = pattern.removeprefix("**/").lstrip("/")
    for suffix in ("/**", "/*"):
        pattern = pattern.removesuffix(suffix)
    pattern = pattern.rstrip("/")
    if not pattern or "/" in pattern or _GLOB & set(pattern) or pattern in (".", ".."):
        return None
    return pattern


def collect(root: str) -> dict[str, set[str]]:
    """name (lowercased) -> the templates (path without ``.gitignore``) that ignore it."""
    found: dict[str, set[str]] = {}
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for file in sorted(files):
            if not file.endswith(".gitignore") or file == ".gitignore":
                continue
            path = os.path.join(top, file)
            template = os.path.relpath(path, root).removesuffix(".gitignore")
            with open(path, encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    name = name_of(line)
                    if name is not None:
                        found.setdefault(name.lower(), set()).add(template)
    return found


MECHANICAL = {
    "global": "only editors', operating systems' and tools' templates (Global/) list it: a "
              "person's settings and histories, the system's bookkeeping, a version control "
              "system's store",
    "sites": "only content-management and server templates list it: the installed product "
             "or the site's own data (uploads, media, a CI server's jobs)",
    "kept": "a history or a backup: what is kept when something else is lost",
    "credentials": "credentials or a person's environment (.env and its kind)",
    "extension": "a file whose extension does not say it is a run's output (configuration, "
                 "source, a database, a key, a binary someone downloaded)",
}


def reviewed() -> dict[str, str]:
    """name -> the key of the reviewed reason that drops it."""
    return {name: key for key, (_, names) in curation.REVIEWED.items() for name in names}


def verdict(name: str, templates: set[str], dropped: dict[str, str]) -> str | None:
    """The key of the rule that keeps ``name`` from being regenerable wherever it appears,
    or None when nothing does."""
    if name in dropped:
        return dropped[name]
    if all(t.startswith(curation.GLOBAL_PREFIX) for t in templates):
        return "global"
    if templates <= curation.SITES:
        return "sites"
    if any(word in name for word in curation.KEPT_WORDS):
        return "kept"
    if name.startswith(curation.CREDENTIAL_PREFIXES):
        return "credentials"
    stem = name.lstrip(".")
    if "." in stem and stem.rsplit(".", 1)[1] not in curation.OUTPUT_EXTENSIONS:
        return "extension"
    return None


def build(found: dict[str, set[str]], commit: str) -> dict[str, Any]:
    """The data ``names.json`` holds, from the names ``collect`` found."""
    dropped_by = reviewed()
    kept: dict[str, list[str]] = {}
    dropped: dict[str, str] = {}
    for name, templates in sorted(found.items()):
        why = verdict(name, templates, dropped_by)
        if why is None:
            kept[name] = sorted(templates)
        else:
            dropped[name] = why
    rules = {**MECHANICAL, **{k: why for k, (why, _) in curation.REVIEWED.items()}}
    source = {"repository": "github/gitignore", "commit": commit, "license": "CC0-1.0"}
    return {"source": source, "rules": rules,
            "regenerable": kept, "dropped": dropped}


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print("usage: python -m clawgate.ignoretemplates.build TEMPLATES_DIR [COMMIT]",
              file=sys.stderr)
        return 2
    found = collect(argv[0])
    unseen = sorted(set(reviewed()) - set(found))
    if unseen:  # a reviewed decision about a name the templates no longer list
        print(f"reviewed names no template lists: {', '.join(unseen)}", file=sys.stderr)
        return 1
    data = build(found, argv[1] if len(argv) > 1 else "unknown")
    with open(OUTPUT, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=0, ensure_ascii=False)
        handle.write("\n")
    print(f"{len(data['regenerable'])} names kept, {len(data['dropped'])} dropped: {OUTPUT}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
