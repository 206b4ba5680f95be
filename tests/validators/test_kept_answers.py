"""Answers kept for the object asked about last (several validators ask the same question
about one command, or one context, in turn): each answer is that object's own, whatever was
asked before."""

from __future__ import annotations

from clawgate.records import replace
from clawgate.shell import parse_one
from clawgate.validators.base import Context
from clawgate.validators.flags import git_subcommand
from clawgate.validators.guardstate import _near
from clawgate.validators.secrets import mentions_secret


def test_the_secret_look_kept_is_the_commands_own() -> None:
    secret, plain = parse_one("cat ~/.netrc"), parse_one("cat notes.txt")
    assert [mentions_secret(c) for c in (secret, secret, plain, plain, secret)] == [
        True, True, False, False, True]


def test_the_git_subcommand_kept_is_the_commands_own() -> None:
    push, status, other = (parse_one("git -C x push -f"), parse_one("git status"),
                           parse_one("ls -l"))
    found = [git_subcommand(c)[0] for c in (push, push, status, other, status, push)]
    assert found == ["push", "push", "status", None, "status", "push"]
    assert [w.value for w in git_subcommand(push)[1]] == ["-f"]


def test_the_nearness_kept_is_the_contexts_own() -> None:
    state = "/home/u/.local/state/clawgate"
    inside = Context("/home/u", "/home/u/work", "/home/u", guarded=(state,))
    far = replace(inside, cwd="/srv/project")
    assert [_near(c) for c in (inside, inside, far, far, inside)] == [
        True, True, False, False, True]
