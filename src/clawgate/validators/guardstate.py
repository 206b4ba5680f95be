"""The guard's own state directory (``protectedpaths.state_paths``): no command touches it.

Its allow-always grants, audit anchors and keys decide what later calls may do; a command that
reads a key can sign a grant, one that writes a grant gives itself approval. The checker sees
the directory wherever it lies, in the workspace too (a workspace of ``~`` holds the default
one). A path in it, by any spelling the checker resolves (``~``, ``$HOME``, ``..``, the cwd, a
glob that reaches into it, a variable that places it: ``$CLAWGATE_STATE_HOME``), is DENY;
moving, copying, archiving or deleting a directory that holds it is ASK (the state goes with
it), and so is a search that reads every file below one (``grep -r``, ``rg``).
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from itertools import pairwise

from clawgate.decision import NO_OPINION, Verdict
from clawgate.protectedpaths import STATE_WHY, state_below
from clawgate.shell.model import TILDE, SimpleCommand, Word
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.paths import PathArg, resolve, under

# Programs that carry a whole directory along (or away), given one that holds the state; the
# second set only when told to recurse (``rm -r``, ``cp -a``, ``chmod -R``).
_CARRIERS = frozenset({"mv", "rename", "rsync", "tar", "zip", "7z", "scp", "cpio", "find", "ln"})
_RECURSING = frozenset({"rm", "cp", "chmod", "chown", "chgrp", "setfacl"})
# Programs that read every file below a directory they are given: the grep family when told to
# recurse; searchers that always do, but skip hidden directories unless told not to (a state
# under ``~/.local`` is out of their way).
_GREPS = frozenset({"grep", "egrep", "fgrep", "rgrep", "zgrep", "ugrep", "ug"})
_SEARCHERS = frozenset({"rg", "ag", "ack", "ack-grep", "pt", "sift"})
_HIDDEN_FLAGS = frozenset({"--hidden", "--unrestricted", "-.", "--no-ignore-dot"})


@register
class GuardState(Validator):
    """A path in clawgate's own state directory, or a directory holding it carried away.

    Bad: ``cat ~/.local/state/clawgate/keys/approvals.key``. Harmless: ``ls ~/.local/share``.
    """

    id = "CG-FS-005"

    def shapes(self, program: str | None) -> int:
        # far from the state, a word with none of "/", "~", "..", "$" is a bare name
        return sh.NEAR | sh.PATHY

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not ctx.guarded:
            return NO_OPINION
        words = [*cmd.words[1:], *(r.target for r in cmd.redirects if r.target is not None)]
        near = _near(ctx)
        for word in words:
            if not near and (_bare_name(word) or _below_here(word)):
                continue  # a directory far from the state: nothing at or below it is in it
            inside, holds = _reach(resolve(word, ctx), ctx.guarded)
            if inside is not None:
                return Verdict.deny(self.id, f"{inside} is {STATE_WHY}: no command may read "
                                    "or write it", hint="a grant is a person's answer to an "
                                    "ask; it is never written by a command")
            if holds is not None and _carries(cmd):
                return Verdict.ask(self.id, f"{cmd.program} {holds} carries {STATE_WHY} "
                                   "along")
            if holds is not None and _searches(cmd, holds, ctx.guarded):
                return Verdict.ask(self.id, f"{cmd.program} reads every file below {holds}, "
                                   f"{STATE_WHY} among them", hint="search a directory below "
                                   "it or beside it")
        return NO_OPINION


def _bare_name(word: Word) -> bool:
    """A bare name, expanding nothing (``build``, ``-la``), or a word whose value comes from a
    substitution (no path known)."""
    text = word.text
    return "/" not in text and not text.startswith(("~", "..")) and "$" not in text


def _below_here(word: Word) -> bool:
    """``word`` read as a path (``paths.resolve``, which follows no link but through ``..``)
    is where the command runs or below it: a relative path with no ``..``, no ``~`` and
    nothing expanded (``src/x.py``, ``build``, ``*.log``). From a directory that neither holds
    the state nor lies in it, such a path can be neither."""
    text = word.text
    value = word.value
    return value is not None and "$" not in text and not text.startswith("~") and (
        TILDE not in word.expansions) and not value.startswith("/") and ".." not in value


def _flags(cmd: SimpleCommand) -> list[str]:
    return [w.value for w in cmd.words[1:] if w.value and w.value.startswith("-")]


def _searches(cmd: SimpleCommand, holds: str, state: tuple[str, ...]) -> bool:
    """``cmd`` reads the files below ``holds``, a directory above the state: a recursive
    grep, or a searcher that reaches the state (no hidden directory on the way, or told to
    enter them)."""
    flags = _flags(cmd)
    if cmd.program in _GREPS:
        return cmd.program == "rgrep" or _grep_recurses(cmd, flags)
    if cmd.program not in _SEARCHERS:
        return False
    told = any(f in _HIDDEN_FLAGS or (f.startswith("-u") and not f.startswith("--"))
               for f in flags)
    return told or state_below(holds, state) is not None


def _grep_recurses(cmd: SimpleCommand, flags: list[str]) -> bool:
    if any(f in ("--recursive", "--dereference-recursive", "--directories=recurse") or (
            not f.startswith("--") and bool(set(f[1:]) & {"r", "R"})) for f in flags):
        return True
    words = [w.value for w in cmd.words[1:]]
    return any(a == "-d" and b == "recurse" for a, b in pairwise(words))


def near_state(ctx: Context) -> bool:
    """Whether commands run in ``ctx`` run in the state directory or in a directory holding
    it, where any word may reach the state (a bare name included)."""
    return _near(ctx)


def _near(ctx: Context) -> bool:
    """The command runs in the state directory, or in a directory holding it. Asked about
    every command, in the same context: the latest answer is kept by the context object
    (frozen, so it holds)."""
    last = _near_last[0]  # one read: another thread may replace it meanwhile
    if last[0] is ctx:
        return last[1]
    found = any(under(ctx.cwd, f) or under(f, ctx.cwd) for f in ctx.guarded)
    _near_last[0] = (ctx, found)  # holding ctx keeps its id from being reused meanwhile
    return found


_near_last: list[tuple[Context | None, bool]] = [(None, False)]


def _carries(cmd: SimpleCommand) -> bool:
    if cmd.program in _CARRIERS:
        return True
    if cmd.program not in _RECURSING:
        return False
    flags = _flags(cmd)
    return any(f in ("--recursive", "--archive") or (
        not f.startswith("--") and bool(set(f[1:]) & {"r", "R", "a"})) for f in flags)


def _reach(arg: PathArg, state: tuple[str, ...]) -> tuple[str | None, str | None]:
    """(the path when it is in the state, the path when it holds the state). Where an unset
    variable decides (``"$X"/keys``), the reading with it unset counts for the first."""
    for path in (arg.path, arg.if_unset):
        if path is None:
            continue
        for folder in state:
            if under(path, folder):
                return path, None
            if under(folder, path) and path is arg.path:
                if arg.contents and _glob_reaches(folder, path, arg.pattern):
                    return folder, None
                if arg.contents and arg.pattern is not None:
                    continue  # /tmp/ci-build-*: the pattern names nothing toward the state
                return None, path
    return None, None


def _glob_reaches(folder: str, parent: str, pattern: str | None) -> bool:
    """Whether a glob standing in the component after ``parent`` may name the next component
    toward ``folder`` (``*`` skips dot-names, as the shell does)."""
    rest = folder[len(parent.rstrip("/")) + 1:]
    name = rest.split("/", 1)[0]
    if pattern is None:
        return True
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatchcase(name, pattern)
