"""Outcomes, risk tiers, reasons and the decision a check returns."""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

from clawgate.records import field, record

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from clawgate.shell.model import SimpleCommand


class Outcome(IntEnum):
    """Ordered so that the strictest opinion is the largest. PASSTHROUGH is never final."""

    PASSTHROUGH = 0
    ALLOW = 1
    ASK = 2
    DENY = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    def __str__(self) -> str:
        return self.label

    def __format__(self, spec: str) -> str:
        return format(self.label, spec)


class Risk(IntEnum):
    """low: reads. medium: changes inside the workspace. high: anything beyond, or the network."""

    LOW = 1
    MEDIUM = 2
    HIGH = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    def __str__(self) -> str:
        return self.label

    def __format__(self, spec: str) -> str:
        return format(self.label, spec)


@record(frozen=True, slots=True)
class Reason:
    """Why an outcome was reached: the rule that decided, in a sentence, with an optional hint."""

    rule_id: str
    message: str
    hint: str | None = None
    command: str | None = None

    def as_dict(self) -> dict[str, str | None]:
        return {
            "rule_id": self.rule_id,
            "message": self.message,
            "hint": self.hint,
            "command": self.command,
        }


@record(frozen=True, slots=True)
class Verdict:
    """One validator's opinion on one simple command (or on the whole line).

    ``nested`` carries what a wrapper or interpreter will run (an argv already split, or a line
    to parse); the engine checks each recursively and the strictest outcome wins.
    """

    outcome: Outcome
    reasons: tuple[Reason, ...] = ()
    misparsing: bool = False
    risk: Risk | None = None
    nested: tuple[SimpleCommand | str, ...] = ()

    @staticmethod
    def passthrough() -> Verdict:
        return _PASSTHROUGH

    @staticmethod
    def of(
        outcome: Outcome,
        rule_id: str,
        message: str,
        *,
        hint: str | None = None,
        misparsing: bool = False,
        risk: Risk | None = None,
    ) -> Verdict:
        return Verdict(outcome, (Reason(rule_id, message, hint),), misparsing, risk)

    @staticmethod
    def allow(rule_id: str, message: str, *, hint: str | None = None) -> Verdict:
        return Verdict.of(Outcome.ALLOW, rule_id, message, hint=hint)

    @staticmethod
    def ask(rule_id: str, message: str, *, hint: str | None = None) -> Verdict:
        return Verdict.of(Outcome.ASK, rule_id, message, hint=hint)

    @staticmethod
    def deny(rule_id: str, message: str, *, hint: str | None = None) -> Verdict:
        return Verdict.of(Outcome.DENY, rule_id, message, hint=hint)

    @staticmethod
    def misparse(rule_id: str, message: str, *, hint: str | None = None) -> Verdict:
        """The command may not mean what it looks like: DENY, and the pipeline stops."""
        return Verdict.of(Outcome.DENY, rule_id, message, hint=hint, misparsing=True)

    def about(self, command: str) -> Verdict:
        """The same verdict with every reason naming the simple command it is about."""
        reasons = tuple(
            r if r.command is not None else Reason(r.rule_id, r.message, r.hint, command)
            for r in self.reasons
        )
        return Verdict(self.outcome, reasons, self.misparsing, self.risk, self.nested)

    @staticmethod
    def unwrap(*inner: SimpleCommand | str, outcome: Outcome = Outcome.PASSTHROUGH,
               rule_id: str = "", message: str = "") -> Verdict:
        """Check ``inner`` as commands of their own; optionally give an opinion too."""
        reasons = (Reason(rule_id, message),) if rule_id else ()
        return Verdict(outcome, reasons, nested=tuple(inner))


class MayRun(str):
    """A command line a program might run, or might only take as words (``zzrun rm -rf ~``):
    nested in a verdict, only a DENY of it counts; a question it would raise does not."""

    __slots__ = ()


_PASSTHROUGH = Verdict(Outcome.PASSTHROUGH)
# Members as module names for the hot paths: a member read off its class goes through
# ``EnumType``, whose ``__getattr__`` keeps attribute reads of the class off the fast path.
_NONE, _ALLOW = Outcome.PASSTHROUGH, Outcome.ALLOW
# The same verdict as a name: a validator on the hot path returns it without a call
# (``Verdict.passthrough()`` costs a method lookup and a call, ~60 times a decision).
NO_OPINION = _PASSTHROUGH


@record(frozen=True, slots=True)
class TraceEntry:
    """One step of the explanation: which simple command, which rule, what it said."""

    command: str
    rule_id: str
    outcome: Outcome
    message: str


@record(frozen=True, slots=True)
class Decision:
    """The final answer for one command line."""

    command: str
    outcome: Outcome
    risk: Risk
    reasons: tuple[Reason, ...] = ()
    misparsing: bool = False
    trace: tuple[TraceEntry, ...] = field(default=(), compare=False)

    @property
    def allowed(self) -> bool:
        return self.outcome is _ALLOW

    def as_dict(self) -> dict[str, object]:
        """The stable JSON shape of ``policy check --json``."""
        return {
            "command": self.command,
            "outcome": self.outcome.label,
            "risk": self.risk.label,
            "misparsing": self.misparsing,
            "reasons": [r.as_dict() for r in self.reasons],
        }


def strictest(verdicts: Iterable[Verdict]) -> Outcome:
    """The strictest outcome among verdicts, PASSTHROUGH when none has an opinion."""
    return max((v.outcome for v in verdicts), default=_NONE)
