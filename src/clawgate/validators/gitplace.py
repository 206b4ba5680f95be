"""Which repository a ``git`` command works in: git reads that repository's own configuration
before it does anything, and the configuration runs programs (``core.fsmonitor`` on ``git
status``, ``core.pager`` on ``git log``, diff and filter drivers, hooks). Inside the workspace
that configuration is the project's (and writes to it are judged as protected paths); a
repository elsewhere (``git -C /tmp/x``, ``--git-dir``, ``GIT_DIR=``, ``cd /tmp/x && git``) is
one whose configuration nothing here has read."""

from __future__ import annotations

from collections.abc import Iterator

from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.records import replace
from clawgate.shell.model import TILDE, ParsedLine, SimpleCommand, Word
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.paths import resolve, under

# git's global options that take a value (the next word, or glued with ``=``)
_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                     "--super-prefix", "--list-cmds", "--exec-path"})
_MOVERS = frozenset({"-C", "--git-dir", "--work-tree"})
_VARIABLES = frozenset({"GIT_DIR", "GIT_WORK_TREE"})
_GLUED_MOVERS = ("--git-dir=", "--work-tree=")


def _moves(cmd: SimpleCommand) -> Iterator[tuple[str, Word]]:
    """(option, value word) of every global option that moves the repository, in order."""
    for assignment in cmd.assignments:
        if assignment.name in _VARIABLES:
            yield assignment.name, assignment.value
    words = cmd.words[1:]
    i = 0
    while i < len(words):
        text = words[i].value
        if text is None and words[i].text.startswith(_GLUED_MOVERS):  # --work-tree=$HOME
            glued = words[i].text.partition("=")[2]
            yield words[i].text.partition("=")[0], Word(glued, None, words[i].quoted,
                                                        words[i].expansions)
            i += 1
            continue
        if text is None or not text.startswith("-"):
            return
        name, equals, glued = text.partition("=")
        if name in _VALUED and not equals:
            if name in _MOVERS and i + 1 < len(words):
                yield name, words[i + 1]
            i += 2
            continue
        if name in _MOVERS and equals:
            yield name, Word(glued, glued, words[i].quoted, words[i].expansions)
        i += 1


def _repositories(cmd: SimpleCommand, here: str, ctx: Context) -> Iterator[str | None]:
    """The directories ``cmd`` takes its repository from, starting in ``here`` (None for one
    only known at run time). Each ``-C`` moves on from the one before it."""
    moved = False
    for option, word in _moves(cmd):
        path = resolve(word, replace(ctx, cwd=here)).path if word.value is not None else None
        if option == "-C":
            if path is None:
                yield None
                return
            here = path
        else:
            yield path
            moved = True
    if not moved:
        yield here


def work_tree(cmd: SimpleCommand, ctx: Context) -> str | None:
    """The directory whose files ``cmd``'s checkout, clean or reset act on: ``--work-tree`` or
    ``GIT_WORK_TREE`` when given (the last one), else where ``-C`` moves (each on from the one
    before), else the working directory; None when it is only known at run time. (Without a
    work tree given, git acts on the top of the repository found from there: a directory at
    or above it, so a vital one stays vital.)"""
    here = ctx.cwd
    tree: str | None = None
    given = False
    for option, word in _moves(cmd):
        path = resolve(word, replace(ctx, cwd=here)).path  # ``$HOME`` is known here too
        if option == "-C":
            if path is None:
                return None
            here = path
        elif option in ("--work-tree", "GIT_WORK_TREE"):
            tree, given = _tilde_reading(word, here, ctx) or path, True
    return tree if given else here


def _tilde_reading(word: Word, here: str, ctx: Context) -> str | None:
    """``--work-tree=~/x``: bash leaves a tilde after ``=`` alone outside assignments, zsh
    (``magic_equal_subst``) and a wrapper that hands the text to a shell expand it; the home
    reading is the stricter one. None when the word has no such tilde."""
    value = word.value
    if value is None or not value.startswith("~") or TILDE in word.expansions:
        return None
    return resolve(Word(value, value, expansions=frozenset({TILDE})),
                   replace(ctx, cwd=here)).path


@register
class RepositoryElsewhere(LineValidator):
    """``git`` working in a repository outside the workspace: ``git -C DIR``, ``--git-dir``,
    ``--work-tree``, ``GIT_DIR=`` or a ``cd`` before it. That repository's configuration,
    which git reads first, can run any program (``core.fsmonitor``, ``core.pager``, drivers,
    hooks): ASK.

    Bad: ``git -C /tmp/x log -p``, ``cd /tmp/x && git status``. Harmless: ``git -C sub/module
    log --oneline``, ``git status``.
    """

    id = "CG-IDENT-004"

    def line_shapes(self) -> int:
        return 0  # its first test: a git command

    def line_programs(self) -> frozenset[str]:
        return frozenset({"git"})

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if "git" not in parsed.source:
            return NO_OPINION
        commands = parsed.commands
        if not any(c.program == "git" for c in commands):
            return NO_OPINION
        from clawgate.validators.degreeline import places

        for cmd, dirs in places(parsed, ctx):
            if cmd.program != "git" or _only_asks_version(cmd):
                continue
            for here in dirs:
                for path in _repositories(cmd, here, ctx):
                    if path is None or under(path, ctx.workspace):
                        continue
                    return Verdict.of(Outcome.ASK, self.id, f"git works in the repository at "
                                      f"{path}, outside the workspace: its configuration can "
                                      "run programs", hint="inspect that repository's "
                                      ".git/config first, or work on a copy in the workspace",
                                      risk=Risk.HIGH)
        return NO_OPINION


def _only_asks_version(cmd: SimpleCommand) -> bool:
    """``git --version``/``git version``/``git help``: no repository is read."""
    rest = [w.value for w in cmd.words[1:]]
    return rest[:1] in (["--version"], ["version"], ["help"], ["--help"]) or not rest
