"""The audit trail in the console: newest first, a page at a time, filtered by agent, session
and outcome (a choice among the outcomes the trail holds), with the chain's state.

A row is either a decision (an agent's call: what it was, its outcome and first rule) or an
answer to an approval request (who answered, allow or deny, once or always, and the note).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any
from urllib.parse import urlencode

from clawgate.serve.html import agent_link, stamp

OUTCOMES = ("allow", "ask", "deny", "conflict")
PER_PAGE = 50


def _what(record: dict[str, Any]) -> str:
    body = record["body"]
    if record["tool"] == "approval":
        answer = f'{body.get("answer", "?")} {body.get("scope", "")}'.strip()
        return f'answer: {answer} to {str(body.get("summary", ""))[:200]}'
    for key in ("command", "summary"):
        if isinstance(body.get(key), str):
            return str(body[key])[:200]
    return json.dumps(body.get("args", ""))[:200]


def record_row(record: dict[str, Any]) -> str:
    """One record: time, agent, session, tool, outcome, rule, what, note, who answered."""
    body = record["body"]
    answer = record["tool"] == "approval"
    agent = str(body.get("agent", "")) if answer else record["agent"]
    note = body.get("note") if answer else None
    by = agent_link(record["agent"]) if answer else "—"
    return (f'<tr><td>{record["seq"]}</td><td>{stamp(record["time"])}</td>'
            f'<td>{agent_link(agent) if agent else "—"}</td>'
            f'<td><code>{escape(record["session"] or "—")}</code></td>'
            f'<td>{escape(record["tool"])}</td>'
            f'<td><span class="outcome {escape(record["outcome"])}">'
            f'{escape(record["outcome"])}</span></td>'
            f'<td><code>{escape(record["rule"])}</code></td>'
            f'<td><code>{escape(_what(record))}</code></td>'
            f'<td>{escape(str(note)) if note else "—"}</td><td>{by}</td></tr>')


def records_table(records: list[dict[str, Any]], caption: str) -> str:
    head = "".join(f'<th scope="col">{name}</th>' for name in (
        "#", "Time", "Agent", "Session", "Tool", "Outcome", "Rule", "What", "Note",
        "Answered by"))
    body = "".join(record_row(r) for r in records)
    empty = '<p class="fine">No records.</p>' if not records else ""
    return (f'<div class="scroll" role="region" aria-label="{escape(caption)}" tabindex="0">'
            f'<table><caption>{escape(caption)}</caption><thead><tr>{head}</tr></thead>'
            f'<tbody>{body}</tbody></table></div>{empty}')


def filters(agent: str, outcome: str, session_id: str, limit: int) -> str:
    options = "".join(
        f'<option value="{value}"{" selected" if value == outcome else ""}>{label}</option>'
        for value, label in (("", "any outcome"), *((o, o) for o in OUTCOMES)))
    return ('<form method="get" action="/audit" class="filters">'
            f'<label for="f-agent">Agent</label><input id="f-agent" name="agent" '
            f'value="{escape(agent)}"><label for="f-outcome">Outcome</label>'
            f'<select id="f-outcome" name="outcome">{options}</select>'
            f'<label for="f-session">Session</label><input id="f-session" name="session_id" '
            f'value="{escape(session_id)}"><input type="hidden" name="limit" value="{limit}">'
            '<button type="submit">Filter</button></form>')


def pager(query: dict[str, str | int], page_number: int, more: bool) -> str:
    """Links to the newer and older pages, keeping the filters."""
    links = []
    for show, number, rel, label in ((page_number > 1, page_number - 1, "prev", "Newer records"),
                                     (more, page_number + 1, "next", "Older records")):
        if show:
            href = escape(urlencode({**query, "page": number}))
            links.append(f'<a rel="{rel}" href="/audit?{href}">{label}</a>')
    return (f'<nav aria-label="Audit pages" class="pages"><span>Page {page_number}</span> '
            f'{" ".join(links)}</nav>')


def audit_html(records: list[dict[str, Any]], more: bool, state: dict[str, Any],
               query: dict[str, Any], page_number: int) -> str:
    """The audit page: chain state, filters, one page of records (newest first), paging."""
    verified = (f'<p class="{"ok" if state["ok"] else "broken"}" role="status">Chain: '
                f'{escape(str(state["why"]))}</p>')
    form = filters(query["agent"], query["outcome"], query["session_id"], query["limit"])
    kept = {k: v for k, v in query.items() if v}
    table = records_table(records, f"Newest first · page {page_number}")
    return f'<h2>Audit trail</h2>{verified}{form}{table}{pager(kept, page_number, more)}'
