"""What the engine needs from a policy, as plain frozen values (no pydantic on the hot path)."""

from __future__ import annotations

from enum import Enum

from clawgate.decision import NO_OPINION, Verdict
from clawgate.records import field, record
from clawgate.shell.model import SimpleCommand

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import Protocol
else:
    Protocol = object


class Autonomy(str, Enum):
    READONLY = "readonly"
    SUPERVISED = "supervised"
    FULL = "full"


class CommandRules(Protocol):
    """A policy's command rules. ``lifts_ask`` is True when the matching allow rule says
    ``overrides: ask``; an allow never lifts a DENY."""

    def evaluate(self, cmd: SimpleCommand) -> tuple[Verdict, bool]: ...


class NoRules:
    def evaluate(self, cmd: SimpleCommand) -> tuple[Verdict, bool]:
        return NO_OPINION, False


@record(frozen=True, slots=True)
class EngineSettings:
    autonomy: Autonomy = Autonomy.SUPERVISED
    require_approval_for_medium_risk: bool = False
    block_high_risk_commands: bool = False
    unsafe: bool = False  # lifts destructive-command ASKs (never a DENY)
    workspace: str | None = None
    forbidden_paths: tuple[str, ...] = ()
    protected_paths: tuple[str, ...] = ()  # paths.protected: added to protectedpaths.py's list
    regenerable_paths: tuple[str, ...] = ()  # paths.regenerable: added to degree.py's list
    rules: CommandRules = field(default_factory=NoRules)
    shell_allowed: bool = True  # False: `permissions` without `shell`; every command is DENY
    shell_denied_by: str = "policy:permissions.shell"  # the rule id that DENY names
    shadow: bool = True  # shell.shadow: a second opinion from bash for lines that hide what runs
    shadow_timeout_s: float = 0.2  # shell.shadow_timeout_ms, in seconds
