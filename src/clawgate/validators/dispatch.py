"""Which command validators to ask about a program: most care about a handful of programs.

Asking a validator about a command it never has an opinion on changes nothing but the time it
takes, so the engine asks only those whose ``programs`` name the command's program (or its
unversioned stem), plus those that look at every command; and of those, only the ones whose
``shapes(program)`` the command has (``shapes.py``: a redirection, a ``$``, an odd program
name ...). Order is registration order, as if every validator were asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from clawgate.decision import Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator
from clawgate.validators.shapes import CONTEXT, context_shape, shape_of

Check = Callable[[SimpleCommand, Context], Verdict]

_VERSION_CHARS = "0123456789."
MAX_PROGRAMS = 4096  # distinct programs remembered; the table is rebuilt past that
MAX_SHAPES = 256  # distinct shapes remembered per program, likewise


class _Shaped:
    """A program's validators with the shapes each is asked about, the shape bits any of them
    needs (``shape_of`` computes only those), and the validators for each shape met."""

    __slots__ = ("by_shape", "needed", "wanted")

    def __init__(self, wanted: tuple[tuple[Validator, Check, int], ...], needed: int,
                 by_shape: dict[int, tuple[tuple[Validator, Check], ...]]) -> None:
        self.wanted, self.needed, self.by_shape = wanted, needed, by_shape


class Dispatch:
    """Command validators by program, computed once per program and remembered."""

    def __init__(self, validators: Sequence[Validator], *, exhaustive: bool = False) -> None:
        self.validators = tuple(validators)
        self.exhaustive = exhaustive
        self._always = tuple(v for v in self.validators if v.programs is None)
        self._by_program: dict[str, tuple[Validator, ...]] = {}
        self._checks: dict[str | None, tuple[tuple[Validator, Check], ...]] = {}
        self._shaped: dict[str | None, _Shaped] = {}

    def for_program(self, program: str | None) -> tuple[Validator, ...]:
        """The validators that may have an opinion on a command running ``program``."""
        if self.exhaustive:
            return self.validators
        if program is None:
            return self._always
        found = self._by_program.get(program)
        if found is None:
            found = self._select(program)
            if len(self._by_program) >= MAX_PROGRAMS:
                self._by_program.clear()
            self._by_program[program] = found
        return found

    def checks(self, program: str | None) -> tuple[tuple[Validator, Check], ...]:
        """``for_program(program)`` with each validator's bound ``check``: the engine's loop,
        which runs for every command, then looks no method up."""
        found = self._checks.get(program)
        if found is None:
            found = tuple((v, v.check) for v in self.for_program(program))
            if len(self._checks) >= MAX_PROGRAMS:
                self._checks.clear()
            self._checks[program] = found
        return found

    def for_command(self, cmd: SimpleCommand, ctx: Context | None = None
                    ) -> tuple[tuple[Validator, Check], ...]:
        """``checks(cmd.program)`` less the validators whose shapes ``cmd`` has none of
        (every one when exhaustive), with the shapes ``ctx`` gives it (``context_shape``;
        without a context, every one of those). Remembered per program and shape."""
        program = cmd.program
        if self.exhaustive:
            return self.checks(program)
        entry = self._shaped.get(program)
        if entry is None:
            wanted = tuple((v, c, v.shapes(program)) for v, c in self.checks(program))
            needed = 0
            for *_, shapes in wanted:
                needed |= shapes
            entry = _Shaped(wanted, needed, {})
            if len(self._shaped) >= MAX_PROGRAMS:
                self._shaped.clear()
            self._shaped[program] = entry
        shape = shape_of(cmd, entry.needed) | (CONTEXT if ctx is None else context_shape(ctx))
        found = entry.by_shape.get(shape)
        if found is None:
            found = tuple((v, c) for v, c, shapes in entry.wanted if shapes & shape)
            if len(entry.by_shape) >= MAX_SHAPES:
                entry.by_shape.clear()
            entry.by_shape[shape] = found
        return found

    def _select(self, program: str) -> tuple[Validator, ...]:
        stem = program.rstrip(_VERSION_CHARS)
        chosen = tuple(v for v in self.validators if v.programs is None
                       or program in v.programs or stem in v.programs)
        return self._always if chosen == self._always else chosen
