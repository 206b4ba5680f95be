"""The protected paths ``fd`` (``fdfind``) hands to the command of ``-x``/``-X``.

``fd -H config -x sed -i … `` edits ``.git/config``; ``fd . -X sed -i …`` rewrites
``CLAUDE.md``. fd searches its path operands (the current directory when none is given) for
entries whose name its pattern matches: a regular expression searched for in the file name
(the whole path with ``-p``), case-insensitive when the pattern has no capital; a glob with
``-g``; a fixed string with ``-F``. Hidden entries (``.git``, ``.github``) are searched with
``-H`` or ``-u``. Which protected paths lie there is read from the disk (``findreach.py``);
each one the pattern may match is put in for the command's placeholder, or after its words
where it has none, as fd does. A pattern that does not compile here may match anything. Other
filters than the extension (``-e``): ``-t``, ``-E``, depths, ignore files, are not read:
they can only hand on fewer paths.
"""

from __future__ import annotations

import re
import shlex
from functools import partial

from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context
from clawgate.validators.findglob import matches
from clawgate.validators.paths import resolve, under

# fd's options that take a value (the next word is not the pattern nor a path)
_VALUED = frozenset("""-e --extension -t --type -E --exclude -d --max-depth --min-depth
--exact-depth -S --size --changed-within --changed-before --change-newer-than
--change-older-than --newer --older -o --owner -j --threads --base-directory --path-separator
--color -c --max-results --ignore-file --format --max-buffer-time --batch-size
--and""".split())
_HIDDEN = frozenset({"-H", "--hidden", "-u", "--unrestricted"})
_RUNS = frozenset({"-x", "--exec", "-X", "--exec-batch"})


class _Search:
    """fd's pattern, paths and switches as the words give them."""

    def __init__(self) -> None:
        self.operands: list[str] = []
        self.hidden = False
        self.glob = False
        self.fixed = False
        self.full_path = False
        self.search_paths: list[str] = []
        self.extensions: list[str] = []


def _read(cmd: SimpleCommand) -> _Search | None:
    """The search ``cmd`` makes; None when a word is known only at run time."""
    search = _Search()
    words = cmd.words[1:]
    index = 0
    while index < len(words):
        value = words[index].value
        if value is None:
            return None
        if value in _RUNS:
            break  # the command's words follow, to its end or a ';'
        if value.startswith("-") and value != "-" and not search.operands:
            name, equals, rest = value.partition("=")
            if name == "--search-path":
                path = rest if equals else (words[index + 1].value if index + 1 < len(
                    words) else None)
                if path is None:
                    return None
                search.search_paths.append(path)
                index += 1 if equals else 2
                continue
            _switch(search, name)
            if name in ("-e", "--extension"):
                given = rest if equals else (words[index + 1].value if index + 1 < len(
                    words) else None)
                search.extensions.append((given or "").lstrip(".").lower())
            index += 2 if name in _VALUED and not equals else 1
            continue
        search.operands.append(value)
        index += 1
    return search


def _switch(search: _Search, name: str) -> None:
    letters = name[1:] if not name.startswith("--") else ""
    search.hidden |= name in _HIDDEN or "H" in letters or "u" in letters
    search.glob |= name == "--glob" or "g" in letters
    search.fixed |= name == "--fixed-strings" or "F" in letters
    search.full_path |= name == "--full-path" or "p" in letters


def fd_items(cmd: SimpleCommand, ctx: Context) -> list[str]:
    """The protected paths (shell text) fd's search hands to its command."""
    from clawgate.validators.findreach import protected_found

    search = _read(cmd)
    if search is None:
        return []
    pattern = search.operands[0] if search.operands else ""
    roots = search.search_paths or search.operands[1:] or ["."]
    found: list[str] = []
    for root in roots:
        path = resolve_path(root, ctx)
        if path is None or not under(path, ctx.workspace):
            continue
        found += protected_found(root, path, (), frozenset(), ctx.workspace, ctx.protected,
                                 selects=partial(_selects, search, pattern, root=root))
    return [shlex.quote(p) for p in found]


def fd_lines(cmd: SimpleCommand, templates: list[SimpleCommand], ctx: Context) -> list[str]:
    """Each command template run on each protected path fd finds: put in for ``{}``, or
    after the template's words where it has no placeholder (fd adds the path there)."""
    from clawgate.validators.xargsfeed import item_lines

    items = fd_items(cmd, ctx) if templates else []
    lines: list[str] = []
    for template in templates:
        if any(w.value is not None and _PLACEHOLDER.search(w.value) for w in template.words):
            lines += item_lines(template.words, items)
        else:
            lines += [f"{template.text} {item}" for item in items]
    return lines


_PLACEHOLDER = re.compile(r"\{(?:|/|//|\.|/\.)\}")


def resolve_path(root: str, ctx: Context) -> str | None:
    return resolve(Word(root, root), ctx).path


def _selects(search: _Search, pattern: str, shown: str, *, root: str) -> bool:
    relative = shown[len(root.rstrip("/")) + 1:] if shown.startswith(root) else shown
    if not search.hidden and any(part.startswith(".") for part in relative.split("/")):
        return False
    name = shown.rsplit("/", 1)[-1].lower()
    if search.extensions and not any(e and name.endswith("." + e) for e in search.extensions):
        return False
    if not pattern or search.full_path:
        return True  # -p: matched against the absolute path, not read here
    subject = shown.rsplit("/", 1)[-1]
    if search.glob:
        return matches(pattern, subject) is not False
    if search.fixed:
        return pattern in subject
    flags = 0 if any(c.isupper() for c in pattern) else re.I
    try:
        return re.search(pattern, subject, flags) is not None
    except re.error:
        return True  # a pattern not read here (fd's own syntax): it may match
