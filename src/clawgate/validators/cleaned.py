"""What the project's own clean tasks delete: a ``clean`` target of a Makefile, a ``clean``
script of a ``package.json``. ``make clean`` runs that recipe and is allowed, so removing a
path the recipe itself removes loses nothing that running the task would not: ``rm -rf
./man`` where the Makefile says ``clean_man: rm -rf ./man``, ``rm -fr .psci_modules`` where
``clean:`` removes it.

Only literal operands of a delete in the recipe count (``rm``, ``$(RM)``, ``rimraf``, ``shx
rm``), relative to the build file's directory, which lies from the workspace down to the path;
an operand that is a make or shell variable, an absolute or home path, one that climbs out
(``..``), or one naming the whole directory (``.``, ``*``) says nothing. The task's own name
must say it cleans (``clean``, ``distclean``, ``clean-docs``, ``docs_clean``, ``clobber``,
``mrproper``). A recipe line is read as the shell reads it: quoted text and comments delete
nothing, and a delete after a change of directory (``cd docs && rm -rf build``, or a later
line under ``.ONESHELL``) removes a path elsewhere, so it says nothing. Never spared here
either (the caller's guards, as for the ignore files): a path through a symbolic link,
``.git``, a tree holding a credential file or another repository, and anything git tracks.
"""

from __future__ import annotations

import json
import shlex
import stat
from fnmatch import fnmatchcase

from clawgate import fsfacts
from clawgate.lazyre import lazy_pattern

_MAX_BYTES = 256 * 1024  # a larger build file is not read: it spares nothing
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_CLEAN_TASK = lazy_pattern(r"(?:^|[-_:])(?:dist|real|maintainer-|very)?clean(?:[-_:]|$)"
                           r"|^(?:clobber|mrproper)$")
_RULE = lazy_pattern(r"^([^\s:=#][^:=]*?)\s*::?(?!=)")
_DELETERS = frozenset({"rm", "rimraf", "del", "del-cli", "trash"})
_MOVES = frozenset({"cd", "pushd", "popd"})  # later deletes of the line are elsewhere
_WORD_HASH = lazy_pattern(r"[^\s;&|()]#")
_ONESHELL = lazy_pattern(r"(?m)^\.ONESHELL\s*:")


def cleaned(path: str, workspace: str) -> bool:
    """``path`` (absolute, normalised, strictly inside ``workspace``; a glob in its last
    component is matched as written) is removed by a clean task of a build file in a
    directory from the workspace down to its parent."""
    if workspace == "/" or not path.startswith(workspace + "/"):
        return False
    parts = path[len(workspace) + 1:].split("/")
    for depth in range(len(parts)):
        directory = "/".join([workspace, *parts[:depth]])
        rel = "/".join(parts[depth:])
        if any(_matches(rel, operand) for operand in _operands(directory)):
            return True
    return False


def _matches(rel: str, operand: str) -> bool:
    """``rel`` names what ``operand`` names, or part of it: component by component, a glob
    of the operand matching within one component (``*.o`` is no ``src/x.o``), and
    ``out/*`` inside an ``out`` the task removes whole."""
    if rel.endswith("/*") and rel[:-2] == operand:
        return True
    ours, theirs = rel.split("/"), operand.split("/")
    return len(ours) == len(theirs) and all(
        a == b or fnmatchcase(a, b) for a, b in zip(ours, theirs, strict=True))


def _operands(directory: str) -> list[str]:
    """The literal paths the clean tasks of ``directory``'s build files delete, normalised
    relative to it."""
    lines: list[str] = []
    for name in _MAKEFILES:
        text = _read(f"{directory}/{name}")
        if text is not None:
            lines += _make_recipes(text)
    text = _read(f"{directory}/package.json")
    if text is not None:
        lines += _package_scripts(text)
    return [op for line in lines for op in _deleted(line)]


def _read(path: str) -> str | None:
    """A regular file's text (no link followed), or None."""
    try:
        info = fsfacts.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_BYTES:
            return None
        return fsfacts.read(path, _MAX_BYTES, follow=False).decode("utf-8", errors="replace")
    except OSError:
        return None


def _make_recipes(text: str) -> list[str]:
    """The recipe lines of the Makefile's clean targets (continuations joined); under
    ``.ONESHELL`` one shell runs a whole recipe, so its lines are read as one line."""
    recipes: list[list[str]] = []
    cleaning = False
    for line in text.replace("\\\n", " ").split("\n"):
        if line.startswith("\t"):
            if cleaning:
                recipes[-1].append(line.strip().lstrip("@-+ "))
            continue
        rule = _RULE.match(line)
        if rule is not None:
            cleaning = any(_CLEAN_TASK.search(t) for t in rule.group(1).split())
            recipes.append([])
        elif line.strip() and not line.lstrip().startswith("#"):
            cleaning = False
    if _ONESHELL.search(text):
        return ["; ".join(recipe) for recipe in recipes]
    return [line for recipe in recipes for line in recipe]


def _package_scripts(text: str) -> list[str]:
    try:
        scripts = json.loads(text).get("scripts", {})
    except (ValueError, AttributeError):
        return []
    if not isinstance(scripts, dict):
        return []
    return [v for k, v in scripts.items()
            if isinstance(k, str) and isinstance(v, str) and _CLEAN_TASK.search(k)]


def _deleted(line: str) -> list[str]:
    """The literal operands the deletes of one recipe line name, normalised, read as the shell
    reads the line: quoted text and comments are no command, and what follows a change of
    directory deletes elsewhere (``cd docs && rm -rf build`` removes ``docs/build``)."""
    found: list[str] = []
    for words in _commands(line):
        if words[:1] and words[0] in _MOVES:
            break
        if words[:2] == ["shx", "rm"]:
            words = words[1:]
        if not words or words[0] not in _DELETERS:
            continue
        found += [op for op in (_normal(w) for w in words[1:] if not w.startswith("-"))
                  if op is not None]
    return found


def _commands(line: str) -> list[list[str]]:
    """The simple commands of a recipe line, split at the shell's operators; none when the
    line does not read as shell words."""
    if _WORD_HASH.search(line):  # shlex ends a word at "#", the shell does not
        return []
    for name in ("$(RM)", "${RM}"):
        line = line.replace(name, "rm")
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()\n")
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token and set(token) <= set(";&|()\n"):
                commands.append([])
            else:
                commands[-1].append(token)
    except ValueError:
        return []
    return [words for words in commands if words]


def _normal(word: str) -> str | None:
    """``word`` relative to its directory, or None when it says nothing of one path in it."""
    if "$" in word or "`" in word or word.startswith(("/", "~")):
        return None
    parts = [p for p in word.split("/") if p not in ("", ".")]
    if not parts or ".." in parts or all(set(p) <= {"*", "?"} for p in parts[:1]):
        return None
    return "/".join(parts)
