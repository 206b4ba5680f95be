"""Exit codes of the ``policy`` command, documented in the README and tested over the enum."""

from __future__ import annotations

from enum import IntEnum

from clawgate.decision import Outcome


class ExitCode(IntEnum):
    OK = 0  # allow (check), success (other commands)
    INTERNAL = 1  # an internal error
    USAGE = 2  # bad usage or a bad policy file
    ASK = 3  # check: a person must approve; lint: warnings
    DENY = 4  # check: denied; audit verify: broken; fuzz: an invariant failed


def for_outcome(outcome: Outcome) -> ExitCode:
    return {Outcome.DENY: ExitCode.DENY, Outcome.ASK: ExitCode.ASK}.get(outcome, ExitCode.OK)
