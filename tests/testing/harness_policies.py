"""Small validator sets for the harness's own tests: real engines, deliberately strict about a
few programs and deliberately blind to wrappers, so that each invariant has something to catch.
Not registered: an ``Engine(validators=[...])`` gets them explicitly."""

from __future__ import annotations

import shlex
import time

from clawgate.decision import Verdict
from clawgate.engine import Engine
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators.base import Context, LineValidator, Validator


class DenyRm(Validator):
    """Any ``rm`` is DENY. Bad: ``rm -rf /``. Harmless: ``ls``."""

    id = "CG-TEST-001"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        return Verdict.deny(self.id, "rm") if cmd.program == "rm" else Verdict.passthrough()


class AskCurl(Validator):
    """Any ``curl`` is ASK. Bad: ``curl x``. Harmless: ``ls``."""

    id = "CG-TEST-002"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        return Verdict.ask(self.id, "curl") if cmd.program == "curl" else Verdict.passthrough()


class Unwrap(Validator):
    """``sudo``, ``env``, ``nice`` and ``bash -c`` run what follows: check it too."""

    id = "CG-TEST-003"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program in {"sudo", "env", "nice"} and len(cmd.argv) > 1:
            return Verdict.unwrap(shlex.join(cmd.argv[1:]))
        if cmd.program in {"bash", "sh"} and cmd.args[:1] == ("-c",) and len(cmd.args) > 1:
            return Verdict.unwrap(cmd.args[1])
        return Verdict.passthrough()


class FirstCommandOnly(LineValidator):
    """A buggy line check: DENY when the *first* command is ``rm``, blind to the others."""

    id = "CG-TEST-004"

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        first = parsed.commands[0] if parsed.commands else None
        if first is not None and first.program == "rm":
            return Verdict.deny(self.id, "rm first")
        return Verdict.passthrough()


class Slow(Validator):
    """Burns 30 ms of CPU (or ``seconds``) on ``slow``: a checker that misses its deadline."""

    id = "CG-TEST-005"

    def __init__(self, seconds: float = 0.03) -> None:
        self.seconds = seconds

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program == "slow":
            end = time.thread_time() + self.seconds
            while time.thread_time() < end:
                pass
        return Verdict.passthrough()


class SlowMachine(Validator):
    """Burns 5 ms of CPU on every command: a machine slower at everything."""

    id = "CG-TEST-008"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        end = time.thread_time() + 0.005
        while time.thread_time() < end:
            pass
        return Verdict.passthrough()


class SlowOnce(Validator):
    """Burns 30 ms of CPU on the first ``slow`` only: a one-off cost, as noise on a shared
    machine is, not a slow checker."""

    id = "CG-TEST-007"

    def __init__(self) -> None:
        self.burnt = False

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program == "slow" and not self.burnt:
            self.burnt = True
            end = time.thread_time() + 0.03
            while time.thread_time() < end:
                pass
        return Verdict.passthrough()


class Hang(Validator):
    """Never returns on ``hang``: a checker that loops, burning CPU (as bashlex does on some
    lines), which is what the harness's watchdog counts."""

    id = "CG-TEST-006"

    def __init__(self) -> None:
        self.hung = 0  # checks that hung: counted, so that a test can bound them

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program == "hang":
            self.hung += 1
        while cmd.program == "hang":
            pass
        return Verdict.passthrough()


def blind() -> Engine:
    """Strict about rm and curl, blind to every wrapper."""
    return Engine(validators=[DenyRm(), AskCurl()])


def unwrapping() -> Engine:
    """Strict about rm and curl, and sees through sudo, env, nice and bash -c."""
    return Engine(validators=[DenyRm(), AskCurl(), Unwrap()])
