"""A page per agent: how many of its requests wait for a person (and which), and its recent
decisions; and the list of agents the audit trail knows, each with its pending count."""

from __future__ import annotations

import time
from html import escape
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from clawgate.serve.auditview import records_table
from clawgate.serve.cards import request_card
from clawgate.serve.db import approvals, audit
from clawgate.serve.html import agent_link, stamp
from clawgate.serve.queue import PENDING

RECENT = 50
MAX_AGENTS = 500


def pending_counts(engine: Engine) -> dict[str, int]:
    """Requests waiting for a person, per agent."""
    query = (sa.select(approvals.c.agent, sa.func.count().label("n"))
             .where((approvals.c.status == PENDING) & (approvals.c.expires > time.time()))
             .group_by(approvals.c.agent))
    with engine.connect() as conn:
        return {str(r.agent): int(r.n) for r in conn.execute(query)}


def known_agents(engine: Engine) -> list[dict[str, Any]]:
    """The agents with decisions in the audit trail: how many, and the last one's time."""
    query = (sa.select(audit.c.agent, sa.func.count().label("n"),
                       sa.func.max(audit.c.time).label("last"))
             .where(audit.c.tool != "approval").group_by(audit.c.agent)
             .order_by(audit.c.agent).limit(MAX_AGENTS))
    with engine.connect() as conn:
        return [{"agent": str(r.agent), "decisions": int(r.n), "last": float(r.last)}
                for r in conn.execute(query)]


def agents_html(engine: Engine) -> str:
    waiting = pending_counts(engine)
    rows = "".join(
        f'<tr><th scope="row">{agent_link(a["agent"])}</th><td>{a["decisions"]}</td>'
        f'<td>{waiting.get(a["agent"], 0)}</td><td>{stamp(a["last"])}</td></tr>'
        for a in known_agents(engine))
    return ('<h2>Agents</h2><div class="scroll" role="region" aria-label="Agents" '
            'tabindex="0"><table><thead><tr><th scope="col">Agent</th>'
            '<th scope="col">Decisions</th><th scope="col">Waiting for a person</th>'
            f'<th scope="col">Last decision</th></tr></thead><tbody>{rows}</tbody></table></div>')


def agent_html(agent: str, pending: list[dict[str, Any]], total: int,
               recent: list[dict[str, Any]], csrf: str, can: bool) -> str:
    """One agent's page: its pending count and requests, then its recent decisions."""
    now = time.time()
    cards = "".join(request_card(i, csrf, can, now) for i in pending)
    shown = f" (the first {len(pending)} shown)" if total > len(pending) else ""
    return (f'<h2>Agent <code>{escape(agent)}</code></h2>'
            f'<p id="agent-pending" role="status"><strong>{total}</strong> '
            f'{"request waits" if total == 1 else "requests wait"} for a person{shown}.</p>'
            f'<section aria-labelledby="pending-h"><h3 id="pending-h">Waiting</h3>'
            f'{cards or "<p>Nothing is waiting.</p>"}</section>'
            f'<section aria-labelledby="recent-h"><h3 id="recent-h">Recent decisions</h3>'
            f'{records_table(recent, f"The last {RECENT} records of this agent, newest first")}'
            '</section>')
