"""Command rules: argv patterns matched against every simple command the engine sees.

A pattern is a list: the program (a basename, alternatives or ``*``), then elements. A plain
element matches the positional word at its place (``*`` and globs allowed, a list gives
alternatives, ``{re: ...}`` a regular expression over the whole word); positional elements are a
prefix, so later words are free. A flag element (``-f``, ``[--force, -f]``, ``-rf``) must be
present anywhere, in any spelling (see ``argv.py``); other flags are free unless ``exact``.

An allow rule only matches a command the engine can see whole: a known program (by name or in
a system directory, never ``./git``), no word whose
value is only known at run time (``$x``, ``$( )``), no word that a glob could turn into a flag,
and no output redirection other than to ``/dev/null`` or another descriptor. Since the engine
checks every simple command of a line on its own, ``npm run test; rm -rf /`` never rides on an
allow for ``npm run test``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from fnmatch import fnmatchcase

from clawgate.decision import NO_OPINION, Outcome, Reason, Verdict
from clawgate.policy.argv import Argv, canonical, read_argv, split_flag
from clawgate.shell.model import DYNAMIC, SimpleCommand

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from clawgate.records import NamedTuple


DECISIONS = {"allow": Outcome.ALLOW, "ask": Outcome.ASK, "deny": Outcome.DENY}
_GLOB = frozenset("*?[")
# An allow for `git` covers `git` found on PATH and these directories, never `./git`.
SYSTEM_BIN = ("/usr/bin/", "/bin/", "/usr/local/bin/", "/usr/sbin/", "/sbin/",
              "/opt/homebrew/bin/")


class Position(NamedTuple):
    """What one positional element of a pattern accepts."""

    literals: frozenset[str] = frozenset()
    globs: tuple[str, ...] = ()
    regexes: tuple[re.Pattern[str], ...] = ()

    def matches(self, word: str) -> bool:
        return (word in self.literals or any(fnmatchcase(word, g) for g in self.globs)
                or any(r.fullmatch(word) for r in self.regexes))

    @property
    def anything(self) -> bool:
        return "*" in self.globs


class Rule(NamedTuple):
    """A compiled rule. ``rule_id`` is ``policy:<file>#<id>``. (NamedTuples, not dataclasses,
    keep this module cheap to import on the ``policy check`` start-up path.)"""

    rule_id: str
    local_id: str
    layer: str
    decision: Outcome
    why: str
    hint: str | None
    lifts_ask: bool
    exact: bool
    program: Position
    positions: tuple[Position, ...]
    flags: tuple[tuple[str, ...], ...]  # each requirement: alternative spellings

    def matches(self, cmd: SimpleCommand) -> bool:
        program = cmd.program
        if self.decision is Outcome.ALLOW and not seen_whole(cmd):
            return False
        if program is None:
            return self.program.anything and self._args_match("", _argv("", cmd))
        return self.program.matches(program) and self._args_match(program, _argv(program, cmd))

    def _args_match(self, program: str, argv: Argv) -> bool:
        if len(argv.positionals) < len(self.positions):
            return False
        if not all(p.matches(w) for p, w in zip(self.positions, argv.positionals, strict=False)):
            return False
        wanted: set[str] = set()
        for alternatives in self.flags:
            hit = next((names for names in (_flag_names(program, argv.context, alt)
                                            for alt in alternatives)
                        if self._present(names, argv.flags)), None)
            if hit is None:
                return False
            wanted |= hit
        if self.exact:
            return len(argv.positionals) == len(self.positions) and argv.flags <= wanted
        return True

    def _present(self, names: frozenset[str], flags: frozenset[str]) -> bool:
        """Whether every option of ``names`` is among ``flags``. Programs with long options
        take a unique prefix of one (``git push --forc``, ``rm --recur``): for a deny or ask
        rule a long flag word that begins one of its names counts (reading more into a word is
        the safe side; an ambiguous prefix is an error to the program and runs nothing); an
        allow rule wants the names as written."""
        if names <= flags:
            return True
        if self.decision is Outcome.ALLOW:
            return False
        return all(name in flags or (name.startswith("--") and any(
            flag.startswith("--") and len(flag) > 2 and name.startswith(flag) for flag in flags))
            for name in names)

    def reason(self) -> Reason:
        return Reason(self.rule_id, self.why, self.hint)


def _argv(program: str, cmd: SimpleCommand) -> Argv:
    return read_argv(program, cmd.args)


def _flag_names(program: str, context: str, spelling: str) -> frozenset[str]:
    return frozenset(canonical(context, s) for s in split_flag(program, spelling))


def seen_whole(cmd: SimpleCommand) -> bool:
    """Whether every part of ``cmd`` is known before it runs (the condition for an allow)."""
    if cmd.program is None:
        return False
    command_word = cmd.argv[0]
    if "/" in command_word and not command_word.startswith(SYSTEM_BIN):
        return False  # ./git or ~/bin/git: not the program the rule names
    for word in cmd.words:
        if word.value is None or word.expansions & DYNAMIC:
            return False
        if word.text[:1] in _GLOB:
            return False  # `rm *` may expand to a file named -rf
    for redirect in cmd.redirects:
        target = redirect.target.value if redirect.target is not None else None
        if redirect.writes and target != "/dev/null" and not (target or "x").isdigit():
            return False
    return True


def compile_position(element: Any) -> Position:
    """A Position from a manifest element: a word, a list of words, or ``{"re": ...}``."""
    items = element if isinstance(element, list) else [element]
    literals, globs, regexes = set(), [], []
    for item in items:
        if isinstance(item, Mapping):
            regexes.append(re.compile(str(item["re"])))
        elif any(c in _GLOB for c in item):
            globs.append(item)
        else:
            literals.add(item)
    return Position(frozenset(literals), tuple(globs), tuple(regexes))


def _is_flag(element: Any) -> bool:
    items = element if isinstance(element, list) else [element]
    return all(isinstance(i, str) and i.startswith("-") and i != "-" for i in items)


def compile_rule(data: Mapping[str, Any], layer: str) -> Rule:
    """Compile one validated rule (a manifest mapping) of the layer labelled ``layer``."""
    program, *rest = data["command"]
    positions, flags = [], []
    for element in rest:
        if _is_flag(element):
            flags.append(tuple(element) if isinstance(element, list) else (element,))
        else:
            positions.append(compile_position(element))
    base = compile_position(program)
    base = Position(frozenset(p.rsplit("/", 1)[-1] for p in base.literals), base.globs,
                    base.regexes)
    return Rule(f"policy:{layer}#{data['id']}", data["id"], layer, DECISIONS[data["decision"]],
                data["why"], data.get("hint"), data.get("overrides") == "ask",
                bool(data.get("exact", False)), base, tuple(positions), tuple(flags))


class RuleSet:
    """Every layer's rules; implements ``CommandRules``. The strictest matching rule decides;
    every matching rule of that strictness is named."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = tuple(rules)
        self._by_program: dict[str, list[Rule]] = {}
        self._other: list[Rule] = []
        for rule in self.rules:
            if rule.program.globs or rule.program.regexes:
                self._other.append(rule)
            for name in rule.program.literals:
                self._by_program.setdefault(name, []).append(rule)

    def matching(self, cmd: SimpleCommand) -> list[Rule]:
        candidates = [*self._by_program.get(cmd.program or "", ()), *self._other]
        return [r for r in candidates if r.matches(cmd)]

    def evaluate(self, cmd: SimpleCommand) -> tuple[Verdict, bool]:
        found = self.matching(cmd)
        if not found:
            return NO_OPINION, False
        outcome = max(r.decision for r in found)
        chosen = [r for r in found if r.decision is outcome]
        lifts = outcome is Outcome.ALLOW and any(r.lifts_ask for r in chosen)
        return Verdict(outcome, tuple(r.reason() for r in chosen)), lifts


def example_failures(rule: Rule, examples: Mapping[str, Sequence[str]]) -> list[str]:
    """What is wrong with a rule's own examples (empty when each behaves as written)."""
    from clawgate.shell import parse

    problems = []
    for line in examples.get("match", ()):
        if not any(rule.matches(c) for c in parse(line).commands):
            problems.append(f"example {line!r} should match but does not")
    for line in examples.get("not_match", ()):
        if any(rule.matches(c) for c in parse(line).commands):
            problems.append(f"example {line!r} should not match but does")
    return problems
