"""The ``examples:`` of a policy's rules, and what each one promises about a decision.

A rule carries ``examples: {match: [...], not_match: [...]}``. A ``match`` example must make the
rule fire (its ID appears in the decision's trace) and, for a ``deny`` or ``ask`` rule, must come
out at least that strict; a ``not_match`` example must not make it fire. The examples are read
from the YAML itself (any mapping with an ``id`` and ``examples``), so that they can be turned
into test items however the manifest nests its rules.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawgate.decision import Outcome

if TYPE_CHECKING:
    from clawgate.decision import Decision
    from clawgate.engine import Engine

_STRICT = {"deny": Outcome.DENY, "ask": Outcome.ASK}


@dataclass(frozen=True, slots=True)
class RuleExample:
    """One example of one rule: ``kind`` is ``match`` or ``not_match``."""

    path: str
    rule_id: str
    decision: str | None
    kind: str
    command: str

    @property
    def name(self) -> str:
        return f"{self.rule_id}:{self.kind}:{self.command}"


def _mappings(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _mappings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _mappings(item)


def read_examples(path: str | Path) -> list[RuleExample]:
    """Every rule example in the manifest at ``path``, in file order. Raises PolicyError when
    the file is not YAML or an example is not a string."""
    import yaml

    from clawgate.errors import PolicyError

    try:
        document = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PolicyError(str(path), None, f"cannot read the manifest: {exc}") from exc
    found: list[RuleExample] = []
    for rule in _mappings(document):
        examples = rule.get("examples")
        if "id" not in rule or not isinstance(examples, dict):
            continue
        decision = rule.get("decision")
        for kind in ("match", "not_match"):
            for command in examples.get(kind) or ():
                if not isinstance(command, str):
                    raise PolicyError(str(path), f"rule {rule['id']}", f"{kind} example "
                                      f"{command!r} is not a string")
                found.append(RuleExample(str(path), str(rule["id"]),
                                         str(decision) if decision else None, kind, command))
    return found


def read_all(paths: Sequence[str | Path]) -> list[RuleExample]:
    return [example for path in paths for example in read_examples(path)]


def rule_fired(decision: Decision, rule_id: str) -> bool:
    """Whether the policy rule ``rule_id`` (``policy:<file>#<id>``) spoke in ``decision``."""
    suffix = f"#{rule_id}"
    return any(entry.rule_id.startswith("policy:") and entry.rule_id.endswith(suffix)
               for entry in decision.trace)


def check_example(engine: Engine, example: RuleExample) -> None:
    """Raise AssertionError when ``example`` does not hold under ``engine``."""
    decision = engine.check(example.command)
    fired = rule_fired(decision, example.rule_id)
    where = f"{example.path}: rule {example.rule_id}"
    if example.kind == "not_match":
        if fired:
            raise AssertionError(f"{where}: not_match example {example.command!r} matches")
        return
    if not fired:
        raise AssertionError(f"{where}: match example {example.command!r} does not match "
                             f"(decision {decision.outcome.label})")
    floor = _STRICT.get(example.decision or "")
    if floor is not None and decision.outcome < floor:
        raise AssertionError(f"{where}: match example {example.command!r} is "
                             f"{decision.outcome.label}, the rule says {example.decision}")
