"""Rules that cannot match what they mean: a literal written for an operand that the program
also accepts in other spellings with the same meaning. Each spelling is put through the rule
itself (parsed as the engine parses it), so the finding says exactly which ones slip past.

Today's spellings: git's refspecs. ``[git, push, "*", main]`` means "a push to main", and git
pushes to main for ``HEAD:main``, ``+main``, ``refs/heads/main`` and ``HEAD:refs/heads/main``
too; a rule that matches ``main`` alone misses them all (and a deny rule that misses is a hole).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from clawgate.policy.matching import Rule
from clawgate.shell import parse_one

# git subcommands whose operands after the remote are refspecs
REFSPEC_COMMANDS = frozenset({"push", "fetch", "pull"})
_PLAIN_REF = re.compile(r"[A-Za-z0-9._/-]+")


def missed_spellings(rule: Rule) -> list[str]:
    """The spellings of the rule's own literal operands, meaning the same, that it misses."""
    return [line for line in _spellings(rule) if not rule.matches(parse_one(line))]


def advice(rule: Rule, missed: list[str]) -> str:
    shown = ", ".join(f"`{line}`" for line in missed[:3])
    more = f" and {len(missed) - 3} more" if len(missed) > 3 else ""
    ref = missed[0].rsplit(":", 1)[-1]
    return (f"rule {rule.local_id}: does not match {shown}{more}, which mean the same to git; "
            "write the refspec position as a regex such as "
            f"{{re: '\\+?(.*:)?(refs/heads/)?{re.escape(ref)}'}}")


def _spellings(rule: Rule) -> Iterator[str]:
    if "git" not in rule.program.literals or len(rule.positions) < 3:
        return
    if not rule.positions[0].literals & REFSPEC_COMMANDS:
        return
    subcommand = sorted(rule.positions[0].literals & REFSPEC_COMMANDS)[0]
    remote = _example(rule, 1)
    for index in range(2, len(rule.positions)):
        for ref in sorted(rule.positions[index].literals):
            if not _PLAIN_REF.fullmatch(ref) or ref.startswith("refs/"):
                continue
            before = [_example(rule, i) for i in range(2, index)]
            for spelled in (f"HEAD:{ref}", f"+{ref}", f"refs/heads/{ref}",
                            f"HEAD:refs/heads/{ref}"):
                yield " ".join(["git", subcommand, remote, *before, spelled])


def _example(rule: Rule, index: int) -> str:
    """A word the rule's element at ``index`` accepts (for the positions around the one
    spelled otherwise)."""
    position = rule.positions[index]
    if position.literals:
        return sorted(position.literals)[0]
    return "origin" if index == 1 else "feature"
