"""Colour and tables through rich, for a terminal only (piped output stays plain text, and
this module is not imported). rich honours NO_COLOR."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from clawgate.decision import Decision, Outcome

STYLES = {Outcome.ALLOW: "bold green", Outcome.ASK: "bold yellow", Outcome.DENY: "bold red",
          Outcome.PASSTHROUGH: "dim"}


def console(err: bool = False) -> Console:
    return Console(file=sys.stderr if err else sys.stdout, highlight=False)


def styled(text: str, style: str) -> Text:
    return Text(text, style=style)


def outcome(value: Outcome) -> Text:
    return Text(value.label, style=STYLES[value])


def show_decision(decision: Decision, explain: bool) -> None:
    """The decision as ``policy check`` shows it on a terminal; with ``explain``, the trace
    as a table of simple command, rule, opinion and message."""
    out = console()
    if explain:
        table = Table("simple command", "rule", "opinion", "why", title=decision.command,
                      title_justify="left")
        for entry in decision.trace:
            if entry.rule_id != "final":
                table.add_row(entry.command, entry.rule_id, outcome(entry.outcome),
                              entry.message)
        out.print(table)
    out.print(Text.assemble(outcome(decision.outcome),
                            f"  (risk {decision.risk.label}, strictest wins)" if explain else ""))
    for reason in decision.reasons:
        line = Text.assemble("  ", (reason.rule_id, "cyan"), f": {reason.message}")
        if reason.hint:
            line.append(f" (hint: {reason.hint})", style="dim")
        if reason.command and reason.command != decision.command:
            line.append(f" [{reason.command}]", style="dim")
        out.print(line)


def show_table(headers: Sequence[str], rows: Iterable[Sequence[str | Text]]) -> None:
    table = Table(*headers)
    for row in rows:
        table.add_row(*row)
    console().print(table)
