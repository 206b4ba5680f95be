"""``policy audit tail`` on a terminal: one row a record (time, agent, tool, what was asked,
outcome, the deciding rules), through rich; a syscall anomaly's row names its kind and the
system call. Lines that are not records are shown as such."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from rich.text import Text

from clawgate.cli.pretty import show_table, styled

HEADERS = ("time", "agent", "tool", "call", "outcome", "rules")
STYLES = {"allow": "bold green", "ask": "bold yellow", "deny": "bold red", "error": "bold red",
          "anomaly": "bold magenta"}
WIDTH = 80  # of the call column: the whole call is in the JSON lines


def show_records(lines: Iterable[bytes]) -> None:
    show_table(HEADERS, (_row(line) for line in lines))


def _row(line: bytes) -> tuple[str | Text, ...]:
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    if not isinstance(record, dict):
        return ("", "", "", styled("(not a record)", "dim"), "", "")
    decision = record.get("decision")
    decision = decision if isinstance(decision, Mapping) else {}
    outcome = str(decision.get("outcome", ""))
    reasons = decision.get("reasons")
    rules = sorted({str(r.get("rule_id")) for r in reasons if isinstance(r, Mapping)}
                   if isinstance(reasons, list) else set())
    call = _call(record.get("args"))
    result = record.get("result")
    if outcome == "anomaly" and isinstance(result, Mapping):
        what = " ".join(str(result.get(k)) for k in ("kind", "syscall") if result.get(k))
        call = f"{what}: {call}"
    return (str(record.get("time", "")), str(record.get("agent", "")),
            str(record.get("tool", "")), call,
            styled(outcome, STYLES.get(outcome, "")), ", ".join(rules))


def _call(args: object) -> str:
    if isinstance(args, Mapping) and isinstance(args.get("command"), str):
        text = str(args["command"])
    else:
        text = json.dumps(args, ensure_ascii=False, sort_keys=True)
    text = " ".join(text.split())
    return text if len(text) <= WIDTH else text[:WIDTH - 1] + "…"

