"""Recursive deletes (and moves) of what cannot be lost: DENY, whatever the autonomy."""

from __future__ import annotations

from collections.abc import Iterator

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import BRACE, SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.flags import parse_options
from clawgate.validators.paths import PathArg, resolve
from clawgate.validators.systempaths import is_vital, may_hit_vital
from clawgate.validators.wraptable import program_through_wrappers

_RM_ALIASES = {"R": "r", "--recursive": "r", "--force": "f"}
_MV_ALIASES = {"--target-directory": "t"}
_FIND_NEUTRAL = frozenset({"-depth", "-mindepth", "-maxdepth", "-xdev", "-mount", "-L", "-P",
                           "-H", "-ignore_readdir_race", "-noleaf"})
_FIND_ACTIONS = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir"})
_DELETERS = frozenset({"rm", "shred", "unlink", "rmdir"})
# Programs whose whole job is `rm -rf` of their operands, for scripts that must also run on
# Windows: rimraf (npm), del-cli, premove; and those that move their operands to the
# desktop's trash (trash-cli's trash-put, trash, gio trash) or delete them (gio remove): from
# where they were, the operands are gone as rimraf's are (gio only with those subcommands).
TREE_DELETERS = frozenset({"rimraf", "del-cli", "premove", "trash-put", "trash", "gio"})
_GIO_DELETES = frozenset({"trash", "remove", "rm"})


def tree_delete_operands(cmd: SimpleCommand) -> tuple[Word, ...] | None:
    """The operands a tree deleter removes (``rimraf dist``, ``gio trash ~/x``); None for a
    gio subcommand that deletes nothing (``gio info x``)."""
    if cmd.program == "gio":
        if len(cmd.words) < 2 or cmd.words[1].value not in _GIO_DELETES:
            return None
        return parse_options(cmd.words[2:]).operands
    return parse_options(cmd.words[1:]).operands
_BRACE = lazy_pattern(r"\{([^{}]*,[^{}]*)\}")


@register
class RecursiveDeleteOfVitalPath(Validator):
    """A recursive delete of ``/``, the home directory, a system directory, or of what an unset
    variable's expansion leaves (``rm -rf "$DIR/"*`` is ``rm -rf /*`` when DIR is unset);
    ``find DIR -delete`` (or ``-exec rm``) with nothing narrowing it; ``mv`` of such a path.

    Bad: ``rm -fr ~``, ``/bin/rm --recursive --force /usr``. Harmless: ``rm -rf ./build``.
    """

    id = "CG-CAT-001"
    programs = frozenset({"rm", "mv", "find"}) | TREE_DELETERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        targets = delete_targets(cmd)
        if targets is None:
            return NO_OPINION
        for word in (alt for w in targets for alt in _alternatives(w)):
            found = resolve(word, ctx)
            if found.path is not None and _vital(found.path, found, ctx):
                return Verdict.deny(self.id, f"{cmd.program} of {found.path}: unrecoverable",
                                    hint="delete a specific directory inside the workspace")
            if found.if_unset is not None and _vital(found.if_unset, found, ctx):
                return Verdict.deny(self.id, f"{cmd.program} of {found.if_unset} if "
                                    f"{word.text} expands to nothing",
                                    hint='use "${VAR:?}" to stop on unset')
        return NO_OPINION


def _vital(path: str, found: PathArg, ctx: Context) -> bool:
    """``path`` is vital; or, for a glob in its last component, what it matches may be
    (``"$src"/bins-*`` with src unset names entries of ``/`` starting ``bins-``: none vital)."""
    if found.contents and found.pattern is not None:
        return may_hit_vital(path, found.pattern, ctx)
    return is_vital(path, ctx)


def delete_targets(cmd: SimpleCommand) -> tuple[Word, ...] | None:
    """The paths a recursive ``rm``, a ``find -delete`` (or ``-exec rm``) or an ``mv`` removes
    from where they are; None when the command removes no tree."""
    program = cmd.program
    if program == "rm":
        options = parse_options(cmd.words[1:], aliases=_RM_ALIASES)
        return options.operands if options.has("r") else None
    if program == "mv":
        options = parse_options(cmd.words[1:], aliases=_MV_ALIASES,
                                takes_value=frozenset({"t", "S", "--suffix"}))
        operands = options.operands
        return operands if options.has("t") else operands[:-1]
    if program == "find":
        return _find_roots(cmd)
    if program in TREE_DELETERS:
        return tree_delete_operands(cmd)
    return None


def _find_roots(cmd: SimpleCommand) -> tuple[Word, ...] | None:
    """The start directories of ``find ... -delete`` (or ``-exec rm``) when no test narrows
    what it deletes."""
    words = cmd.words[1:]
    values = [w.shown for w in words]
    action = next((i for i, v in enumerate(values) if v in _FIND_ACTIONS), None)
    if action is None:
        return None
    if values[action] != "-delete" and (action + 1 >= len(values) or
                                        program_through_wrappers(words, action + 1)
                                        not in _DELETERS):
        return None
    if any(v.startswith("-") and v not in _FIND_NEUTRAL for v in values[:action]):
        return None
    return find_start_points(words)


def find_start_points(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """The start points of ``find``'s arguments ``words`` (after ``-L``/``-P``/``-H``, up to the
    first test or action); ``.`` when none is given, as find does."""
    roots: list[Word] = []
    for word in words:
        value = word.shown
        if value in ("-L", "-P", "-H") and not roots:
            continue
        if value.startswith(("-", "(", "!")):
            break
        roots.append(word)
    return tuple(roots) or (Word(".", "."),)


def _alternatives(word: Word) -> Iterator[Word]:
    """A word and, for a brace expansion (``{/,x}``), each word it expands to (one level)."""
    yield word
    if BRACE not in word.expansions or word.value is None:
        return
    found = _BRACE.search(word.value)
    if found is None:
        return
    for choice in found.group(1).split(","):
        text = word.value[: found.start()] + choice + word.value[found.end() :]
        yield Word(text, text, word.quoted, word.expansions - {BRACE})


# An in-place edit that keeps a backup with a suffix: sed -i.bak, --in-place=.orig, perl -pi.bak
_BACKUP = lazy_pattern(r"^(?:--in-place=|-[a-zA-Z]*i)(\.[\w.~-]+)$")


def deleted_names(finder: SimpleCommand, deleters: frozenset[str]) -> set[str]:
    """What ``find``'s deletes name, with ``{}`` for the file found: ``{}`` for ``-delete``
    and ``-exec rm {}``, ``{}.x`` for ``-exec rm {}.x`` (only the last part of a path counts).
    A backup an earlier ``-exec`` of the same find just made (``-exec sed -i.bak … {} +
    -exec rm {}.bak +``) is left out: it did not exist before the line ran."""
    values = [w.shown for w in finder.words]
    names = {"{}"} if "-delete" in values else set()
    made: set[str] = set()
    deleting = False
    for index, value in enumerate(values[1:], start=1):
        if value in ("-exec", "-execdir", "-ok", "-okdir"):
            deleting = index + 1 < len(values) and program_through_wrappers(
                finder.words, index + 1) in deleters
        elif value in (";", "+"):
            deleting = False
        elif not deleting and (found := _BACKUP.match(value)) is not None:
            made.add("{}" + found.group(1))
        elif deleting and "{}" in value:
            name = value.rstrip("/").rsplit("/", 1)[-1] or "{}"
            if name not in made:
                names.add(name)
    return names
