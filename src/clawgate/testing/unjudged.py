"""Bash as the judge of a policy's reading: which programs bash ran for a line that the engine
never put to its validators (``bashoracle`` runs the line).

``judged(line, engine)`` is the engine's decision and every simple command it judged on the
way; ``unjudged(line, engine, oracle)`` the argv bash ran that none of those commands stands
for: a command stands for an argv when its program is the one bash ran and its known words are
the words bash passed (a word known only at run time, a glob, a brace or a tilde stands for any
words).
"""

from __future__ import annotations

from typing import Any

from clawgate.decision import Decision
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings
from clawgate.shell.model import BRACE, GLOB, TILDE, SimpleCommand
from clawgate.testing.bashoracle import WORK, Oracle, Run
from clawgate.validators.base import Context

_ANY_WORDS = frozenset({GLOB, BRACE, TILDE})


class Judge:
    """An engine of ``settings`` that notes every simple command it judges: ``judged(line)``.
    Made once for many lines (an engine loads its validators when made)."""

    def __init__(self, settings: EngineSettings) -> None:
        self._seen: list[SimpleCommand] = []
        self._engine = _Recording(settings, self._seen)

    def judged(self, line: str) -> tuple[Decision, list[SimpleCommand]]:
        """The decision for ``line`` (in the oracle's working directory) and every simple
        command put to the validators while deciding it."""
        self._seen.clear()
        decision = self._engine.check(line, cwd=WORK)
        return decision, list(self._seen)


def judged(line: str, engine: Engine) -> tuple[Decision, list[SimpleCommand]]:
    """``engine``'s decision for ``line`` and every simple command it judged on the way."""
    return Judge(engine.settings).judged(line)


def missing(run: Run, seen: list[SimpleCommand]) -> list[tuple[str, ...]]:
    """The argvs of ``run`` that no command of ``seen`` stands for."""
    return [argv for argv in run.argvs if not any(matches(argv, cmd) for cmd in seen)]


def unjudged(line: str, engine: Engine | None = None,
             oracle: Oracle | None = None) -> list[tuple[str, ...]]:
    """The argv bash ran for ``line`` that the engine judged no command for."""
    _, seen = judged(line, engine or Engine())
    if oracle is not None:
        return missing(oracle.run(line), seen)
    with Oracle() as own:
        return missing(own.run(line), seen)


def matches(argv: tuple[str, ...], cmd: SimpleCommand) -> bool:
    """Whether ``cmd``, as the engine read it, stands for the ``argv`` bash ran."""
    if not cmd.words:
        return False
    first = cmd.words[0]  # a program named by a glob or a brace is any program
    if cmd.program != argv[0] and first.value is not None and not first.expansions & _ANY_WORDS:
        return False
    if any(w.value is None or w.expansions & _ANY_WORDS for w in cmd.words):
        return True
    return tuple(w.value for w in cmd.words[1:]) == argv[1:]


class _Recording(Engine):
    """An engine that notes each simple command it judges (the real one; nothing replaced)."""

    def __init__(self, settings: EngineSettings, seen: list[SimpleCommand]) -> None:
        super().__init__(settings, cache_size=0)
        self._seen = seen

    def _check_command(self, cmd: SimpleCommand, ctx: Context, run: Any, depth: int,
                       exact: bool = False, fed: bool = False) -> None:
        self._seen.append(cmd)
        super()._check_command(cmd, ctx, run, depth, exact, fed)
