"""git commands that lose work or rewrite shared history: ASK with a warning (CG-DEST-,
which ``permissions.unsafe`` may lift)."""

from __future__ import annotations

from collections.abc import Sequence

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.flags import Options, git_subcommand, parse_options

_PUSH_ALIASES = {"--force": "f", "--delete": "d"}
_VERIFY_SKIPPERS = frozenset({"commit", "push", "merge", "am", "rebase", "cherry-pick", "revert"})


@register
class GitForcePush(Validator):
    """A push that overwrites or deletes remote history: ``--force``, ``-f``, a ``+ref``,
    ``--mirror``, ``--delete`` or a ``:branch`` refspec. Others lose the commits they pushed.

    A dry run (``git push --dry-run --force``) sends nothing and overwrites nothing.

    Bad: ``git push -f origin main``. Harmless: ``git push --force-with-lease origin feature``.
    """

    id = "CG-DEST-001"
    programs = frozenset({"git"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        name, args = git_subcommand(cmd)
        if name != "push":
            return NO_OPINION
        options = parse_options(args, aliases=_PUSH_ALIASES,
                                takes_value=frozenset({"o", "--push-option", "--repo"}))
        if dry_run(args):
            return NO_OPINION  # nothing is sent: the remote's history stays as it is
        refs = options.operand_values[1:]
        if options.has("f", "d", "--mirror", "--prune") or any(
                r.startswith(("+", ":")) for r in refs):
            return Verdict.ask(self.id, "the push overwrites or deletes remote history",
                               hint="use --force-with-lease on your own branch")
        return NO_OPINION


def dry_run(args: Sequence[Word]) -> bool:
    """``git push -n`` / ``--dry-run`` (any unique abbreviation, in a cluster of short
    options too): git does everything but send the updates, so the remote is only read, as
    a fetch reads it. Every word must be known (a variable may hold ``--no-dry-run``) and
    no ``--no-dry-run`` be given."""
    if any(w.value is None for w in args):
        return False
    options = parse_options(args, aliases=_DRY_ALIASES, takes_value=_PUSH_VALUED)
    return options.has("n") and not options.has("--no-dry-run")


_DRY_ALIASES = {**_PUSH_ALIASES, "--dry-run": "n", "--no-dry-run": "--no-dry-run",
                "--no-verify": "--no-verify", "--verbose": "v", "--quiet": "q"}
_PUSH_VALUED = frozenset({"o", "--push-option", "--repo", "--receive-pack", "--exec",
                          "--recurse-submodules"})


@register
class GitDiscardsWork(Validator):
    """git commands that throw away uncommitted changes, stashes, branches or history:
    ``reset --hard``, ``clean -f``, ``checkout .``, ``restore .`` (or a directory),
    ``switch -f``/``--discard-changes``, ``read-tree -u --reset``, ``checkout-index -f``,
    ``submodule deinit -f``, ``worktree remove --force``, ``stash drop|clear``, ``branch -D``,
    ``filter-branch``, ``reflog expire``, ``update-ref`` moving or deleting a ref.

    In a work tree that is the home directory or a system one (``--work-tree=$HOME``, ``-C
    /etc``): DENY, those files are no project's.

    Bad: ``git reset --hard HEAD~3``. Harmless: ``git reset HEAD file.py`` (unstages only).
    """

    id = "CG-DEST-002"
    programs = frozenset({"git"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        name, args = git_subcommand(cmd)
        if name is None:
            return NO_OPINION
        what = _discards(name, args)
        if what is None:
            return NO_OPINION
        if name in _WORK_TREE_VERBS:
            from clawgate.validators.gitplace import work_tree
            from clawgate.validators.systempaths import is_vital

            tree = work_tree(cmd, ctx)
            if tree is not None and is_vital(tree, ctx):
                return Verdict.deny(self.id, f"git {name} {what} in a work tree at {tree}: "
                                    "the home directory or a system one, whose files are "
                                    "lost or overwritten for good",
                                    hint="work in a clone inside the workspace")
        return Verdict.ask(self.id, f"git {name} {what}: work may be lost for good",
                           hint="commit or stash first, or name the files to discard")


# Subcommands whose discarding acts on the files of the work tree.
_WORK_TREE_VERBS = frozenset({"clean", "checkout", "restore", "reset", "switch", "read-tree",
                              "checkout-index"})


def _discards(name: str, args: tuple[Word, ...]) -> str | None:
    values = [w.shown for w in args]
    if name in ("filter-branch", "filter-repo"):
        return "rewrites history"
    if name == "stash" and values[:1] in (["drop"], ["clear"]):
        return f"{values[0]} deletes stashes"
    if name == "reflog" and values[:1] == ["expire"]:
        return "expire forgets unreachable commits"
    if name == "update-ref" and ({"-d", "--stdin"} & set(values) or len(
            [v for v in values if not v.startswith("-")]) >= 2):
        return "moves or deletes a ref directly, as branch -D or reset --hard would"
    options = _options(args)
    if name == "reset" and options.has("--hard", "--merge"):
        return "--hard discards uncommitted changes"
    if name == "clean" and options.has("f") and not options.has("n"):
        return "-f deletes untracked files"
    if name == "branch" and (options.has("D") or (options.has("d") and options.has("f"))):
        return "-D deletes an unmerged branch"
    if name == "restore" and options.has("S") and not options.has("W"):
        return None  # only unstages
    if name in ("checkout", "restore") and (options.has("f") or any(
            v in (".", ":/", "*") or (v.endswith("/") and v != "/")
            for v in options.operand_values)):
        return "overwrites uncommitted changes"
    return _plumbing_discards(name, args)


def _plumbing_discards(name: str, args: tuple[Word, ...]) -> str | None:
    """The other spellings of a forced checkout: ``switch``'s, and the plumbing ``reset
    --hard`` and ``checkout -f`` are made of; a submodule's or a linked work tree's files
    removed with their changes."""
    values = {w.shown for w in args}
    if name == "switch" and values & {"-f", "--force", "--discard-changes"}:
        return "--discard-changes overwrites uncommitted changes"
    if name == "read-tree" and "-u" in values and "--reset" in values and not any(
            v.startswith("--prefix") for v in values):
        return "-u --reset writes the tree over uncommitted changes"
    if name == "checkout-index" and (values & {"-f", "--force"} or any(
            v.startswith("-") and not v.startswith("--") and "f" in v for v in values)):
        return "-f writes the index over uncommitted changes"
    words = [w.shown for w in args]
    forced = bool(values & {"-f", "--force"})
    if name == "submodule" and words[:1] == ["deinit"] and forced:
        return "deinit -f removes submodules' work trees with their changes"
    if name == "worktree" and words[:1] == ["remove"] and forced and not all(
            _scratch(w) for w in args[1:] if not w.shown.startswith("-")):
        return "remove --force deletes a work tree with its uncommitted changes"
    return None


_SCRATCH_NAME = lazy_pattern(r"(?i)^\$\{?[a-z_]*te?mp[a-z_]*\}?$|^/tmp/|^\$\{?TMPDIR\b")


def _scratch(word: Word) -> bool:
    """A work tree in a scratch place: under ``/tmp`` or ``$TMPDIR``, or held by a variable
    named as a temporary (``"$tmp"``, ``$TMPDIR``, ``${temp_dir}``), which scripts make with
    ``mktemp`` for a throwaway checkout."""
    return bool(_SCRATCH_NAME.search(word.text.strip('"')))


def _options(args: tuple[Word, ...]) -> Options:
    return parse_options(args, aliases={"--force": "f", "--delete": "d", "--dry-run": "n",
                                        "--worktree": "W", "--staged": "S"},
                         takes_value=frozenset({"e", "b", "B", "s", "--source", "m"}))


@register
class GitSkipsHooks(Validator):
    """``--no-verify`` (``commit -n``) skips the pre-commit and pre-push hooks: the checks the
    project set up to stop secrets and broken code leaving the machine.

    Bad: ``git commit --no-verify -m wip``. Harmless: ``git commit -m "fix: no-verify docs"``.
    """

    id = "CG-DEST-003"
    programs = frozenset({"git"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        name, args = git_subcommand(cmd)
        if name not in _VERIFY_SKIPPERS:
            return NO_OPINION
        options = parse_options(args, takes_value=frozenset({"m", "F", "C", "c", "t"}))
        if options.has("--no-verify") or (name == "commit" and options.has("n")):
            return Verdict.ask(self.id, f"git {name} --no-verify skips the project's hooks",
                               hint="run the hooks and fix what they find")
        return NO_OPINION
