"""What an MCP tool's argument means: a command, a path, a URL, or none of these.

An MCP server names its arguments as it likes, so a fixed key list misses ``paths``,
``source``/``destination``, ``filePath`` or ``target``. The meaning is read from three places,
the strongest first:

- the tool's input schema for that property: ``format: uri`` (or ``uri-reference``, ``iri``,
  ``url``) is a URL; a declared type that can hold neither a string nor an array is none of
  them; a description that starts like "The path to ..." / "Shell command to run" says it;
- the property's name, normalised (``filePath``, ``file_path`` and ``FILE-PATH`` are one name):
  known names and suffixes (``...path``, ``...dir``, ``...url``, ``...command``);
- the value itself (``value_meaning``): a string with a URL scheme (spaces around it and the
  scheme's case do not matter) is a URL, or a path for ``file:``; a string shaped like an
  absolute, ``~`` or ``..`` path is a path, whatever its key, and so is one word that names a
  protected path (``.git/hooks/pre-commit``, ``CLAUDE.md``: ``clawgate.protectedpaths``)
  under a name that says nothing (``name``, ``key``, ``save_as``), or as an object's key
  (``{"files": {".mcp.json": "..."}}``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import Enum
from typing import Any

from clawgate.protectedpaths import may_be_protected

MAX_REF_DEPTH = 8


class Meaning(Enum):
    NONE = "none"
    COMMAND = "command"
    PATH = "path"
    URL = "url"
    GLOB = "glob"  # a glob pattern: every path it can expand to


COMMAND_NAMES = frozenset({"command", "cmd", "script", "shell", "commandline", "shellcommand",
                           "bashcommand", "shellscript", "bashscript", "runcommand", "exec"})
COMMAND_SUFFIXES = ("command", "cmd", "commandline")
PATH_NAMES = frozenset({
    "path", "paths", "file", "files", "filename", "filenames", "directory", "directories",
    "dir", "dirs", "cwd", "folder", "folders", "source", "sources", "src", "destination",
    "dest", "dst", "target", "targets", "output", "input", "location", "root", "workdir",
    "workingdirectory", "from", "to"})
GLOB_NAMES = frozenset({"glob", "globs", "include", "includes", "exclude", "excludes", "pattern",
                        "patterns", "filepattern", "globpattern"})
PATH_SUFFIXES = ("path", "paths", "file", "files", "filename", "filenames", "dir", "dirs",
                 "directory", "directories", "folder", "folders")
URL_NAMES = frozenset({"url", "urls", "uri", "uris", "href", "link", "links", "endpoint",
                       "webhook", "baseurl", "homepage", "website"})
URL_SUFFIXES = ("url", "urls", "uri", "uris", "href", "endpoint")
URI_FORMATS = frozenset({"uri", "uri-reference", "iri", "iri-reference", "url"})
# Names whose non-string values are refused (they only ever hold paths, URLs or commands);
# other names with such values are read as data, not refused.
STRICT_NAMES = frozenset({"path", "file", "filepath", "filename", "directory", "dir", "cwd",
                          "url", "uri", "href", "command", "cmd", "script", "shell"})

_ARTICLE = r"^\s*(?:the|an?|one or more|list of|array of)?\s*"
_DESCRIBED = (
    (Meaning.COMMAND, re.compile(_ARTICLE + r"(?:shell |bash |sh )?command(?: line)?s?\b"
                                 r"|\b(?:shell|bash) (?:command|script)\b", re.I)),
    (Meaning.URL, re.compile(_ARTICLE + r"(?:\w+ )?(?:url|uri|web address|endpoint)s?\b", re.I)),
    (Meaning.GLOB, re.compile(_ARTICLE + r"glob(?: pattern)?s?\b", re.I)),
    (Meaning.PATH, re.compile(_ARTICLE + r"(?:(?:absolute|relative|full|local|output|input|"
                              r"source|destination|target) )*(?:file ?path|path|directory|"
                              r"folder|file ?name)s?\b|\bpath (?:to|of) (?:the|a)\b", re.I)),
)
_REGEX = re.compile(r"\b(?:regex|regexp|regular expression)s?\b", re.I)
_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):", re.I)


def normal(name: str) -> str:
    """``filePath``, ``file_path``, ``FILE-PATH`` are all ``filepath``."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def name_meaning(key: str) -> Meaning:
    name = normal(key)
    if name in COMMAND_NAMES or name.endswith(COMMAND_SUFFIXES):
        return Meaning.COMMAND
    if name in URL_NAMES or name.endswith(URL_SUFFIXES):
        return Meaning.URL
    if name in GLOB_NAMES:
        return Meaning.GLOB
    if name in PATH_NAMES or name.endswith(PATH_SUFFIXES):
        return Meaning.PATH
    return Meaning.NONE


def schema_meaning(schema: Mapping[str, Any] | None) -> Meaning | None:
    """What the property's schema says it holds; None when it says nothing."""
    if not schema:
        return None
    types, formats, descriptions = facts(schema)
    if types and not types & {"string", "array"}:
        return Meaning.NONE
    if formats & URI_FORMATS:
        return Meaning.URL
    if formats & {"regex"} or any(_REGEX.search(d) for d in descriptions):
        return Meaning.NONE  # a `pattern` that is a regular expression is not a glob
    for meaning, pattern in _DESCRIBED:
        if any(pattern.search(d) for d in descriptions):
            return meaning
    return None


def meaning_of(key: str, schema: Mapping[str, Any] | None) -> Meaning:
    said = schema_meaning(schema)
    if said is Meaning.NONE:
        return Meaning.NONE
    by_name = name_meaning(key)
    return by_name if said is None or by_name is Meaning.COMMAND else said


def value_meaning(value: str) -> Meaning:
    """A string's own shape: a URL with a scheme, or an absolute, home or climbing path."""
    stripped = value.strip()
    if (_SCHEME.match(stripped) and "://" in stripped[:40]) or stripped.lower().startswith(
            "file:"):
        return Meaning.URL
    if "\n" in stripped or not stripped:
        return Meaning.NONE
    parts = stripped.replace("\\", "/").split("/")
    if stripped.startswith(("/", "~")) or ".." in parts:
        return Meaning.PATH
    if not any(c.isspace() for c in stripped) and may_be_protected(stripped):
        return Meaning.PATH
    return Meaning.NONE


def facts(schema: Mapping[str, Any]) -> tuple[set[str], set[str], list[str]]:
    """The types, formats and descriptions a schema (and its anyOf/oneOf/allOf) declares."""
    types: set[str] = set()
    formats: set[str] = set()
    descriptions: list[str] = []
    for part in (schema, *_branches(schema)):
        declared = part.get("type")
        types.update([declared] if isinstance(declared, str) else
                     [t for t in declared if isinstance(t, str)] if isinstance(declared, list)
                     else [])
        if isinstance(part.get("format"), str):
            formats.add(part["format"].lower())
        for key in ("description", "title"):
            if isinstance(part.get(key), str):
                descriptions.append(part[key])
    return types, formats, descriptions


def _branches(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [b for key in ("anyOf", "oneOf", "allOf") if isinstance(schema.get(key), list)
            for b in schema[key] if isinstance(b, Mapping)]


def deref(schema: Any, root: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """``schema`` with a local ``$ref`` (``#/$defs/X``) followed; None for no usable schema."""
    for _ in range(MAX_REF_DEPTH):
        if not isinstance(schema, Mapping):
            return None
        ref = schema.get("$ref")
        if not isinstance(ref, str) or root is None or not ref.startswith("#/"):
            return schema
        target: Any = root
        for name in ref[2:].split("/"):
            target = target.get(name) if isinstance(target, Mapping) else None
        schema = target
    return None


def property_schema(schema: Mapping[str, Any] | None, key: str,
                    root: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The schema of property ``key`` of an object schema (its branches searched too)."""
    if schema is None:
        return None
    for part in (schema, *_branches(schema)):
        part = deref(part, root) or {}
        props = part.get("properties")
        if isinstance(props, Mapping) and key in props:
            return deref(props[key], root)
        extra = part.get("additionalProperties")
        if isinstance(extra, Mapping):
            return deref(extra, root)
    return None


def items_schema(schema: Mapping[str, Any] | None,
                 root: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The schema of an array schema's items (its branches searched too)."""
    if schema is None:
        return None
    for part in (schema, *_branches(schema)):
        part = deref(part, root) or {}
        if isinstance(part.get("items"), Mapping):
            return deref(part["items"], root)
    return None
