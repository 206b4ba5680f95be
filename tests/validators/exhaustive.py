"""One exhaustive engine run per line, shared by the dispatch-by-shape tests
(``test_shapes.py``, ``test_line_shapes.py``): every command the run put to its command
validators (with the context it was asked in) and every line it put to its line validators.

Both files assert on the same lines (the fuzz regressions and every validator's examples, each
also behind ``sudo``); a line's run, a shadow run of real bash included, is made once for the
session, not once per file. Every run is made by one engine with no decision cache and the
default shadow (made and prepared once), whose two recording dispatches are emptied before each
line: a new engine per line put the same commands and lines to the validators (compared over
the examples, their ``sudo`` forms and the corpora), and its first check cost several times a
later one's."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache

from clawgate.engine import Engine, _default_shadow
from clawgate.policy.settings import EngineSettings
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.shell.shadow import Shadow
from clawgate.validators import LineValidator, Validator, load_all
from clawgate.validators.base import Context
from clawgate.validators.dispatch import Dispatch
from clawgate.validators.lineshapes import CheckLine, LineDispatch

COMMAND_VALIDATORS = [v for v in load_all().instances() if isinstance(v, Validator)]
LINE_VALIDATORS = [v for v in load_all().instances() if isinstance(v, LineValidator)]


class _Commands(Dispatch):
    """Asks every validator (exhaustive) and keeps each command it was asked about."""

    def __init__(self) -> None:
        super().__init__(COMMAND_VALIDATORS, exhaustive=True)
        self.seen: list[tuple[SimpleCommand, Context | None]] = []

    def for_command(self, cmd: SimpleCommand, ctx: Context | None = None  # type: ignore[override]
                    ) -> tuple[tuple[Validator, object], ...]:
        self.seen.append((cmd, ctx))
        return super().for_command(cmd, ctx)


class _Lines(LineDispatch):
    """Puts every line to every line validator (exhaustive) and keeps each line it was given."""

    def __init__(self) -> None:
        super().__init__(LINE_VALIDATORS, exhaustive=True)
        self.seen: list[tuple[ParsedLine, bool]] = []

    def checks(self, parsed: ParsedLine, resolve: bool
               ) -> tuple[tuple[LineValidator, CheckLine], ...]:
        self.seen.append((parsed, resolve))
        return super().checks(parsed, resolve)


@dataclass(frozen=True)
class Run:
    """What one exhaustive check of a line asked its validators about."""

    commands: tuple[tuple[SimpleCommand, Context], ...]  # a ``cd`` on the line moves ctx
    lines: tuple[tuple[ParsedLine, bool], ...]  # with ``resolve``: the agent's, not a reading
    ctx: Context  # the context of the line's working directory


def run(line: str, cwd: str) -> Run:
    """The exhaustive run of ``line`` in ``cwd`` under the home directory of the moment."""
    return _run(line, cwd, os.path.expanduser("~"))


@lru_cache(maxsize=1)
def _shadow() -> Shadow:
    return _default_shadow(EngineSettings())


@lru_cache(maxsize=1)
def _recording() -> tuple[Engine, _Commands, _Lines]:
    """The engine of every run, with the dispatches that record what it asked."""
    engine = Engine(cache_size=0, exhaustive=True, shadow=_shadow())
    commands, lines = _Commands(), _Lines()
    engine._dispatch = commands
    engine._line_dispatch = lines
    return engine, commands, lines


@lru_cache(maxsize=16384)
def _run(line: str, cwd: str, home: str) -> Run:  # home: the engine reads it from the process
    engine, commands, lines = _recording()
    commands.seen.clear()
    lines.seen.clear()
    engine.check(line, cwd=cwd)
    here = engine._context(cwd)
    return Run(tuple((cmd, here if ctx is None else ctx) for cmd, ctx in commands.seen),
               tuple(lines.seen), here)
