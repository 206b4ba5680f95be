"""What every page of the console shares: the page around a body, times, links to an agent.

Times are shown in UTC with the machine-readable ``<time datetime>`` beside them (the
console's people may sit in any time zone; the audit records keep epoch seconds).
"""

from __future__ import annotations

import time
from html import escape
from urllib.parse import quote

from fastapi.responses import HTMLResponse

from clawgate.serve.tokens import Principal

SECTIONS = (("/", "Approvals"), ("/audit", "Audit"), ("/agents", "Agents"),
            ("/charts", "Charts"), ("/policy", "Policy"))


def stamp(epoch: float) -> str:
    """``<time>`` for an epoch second: the date and time in UTC."""
    moment = time.gmtime(epoch)
    return (f'<time datetime="{time.strftime("%Y-%m-%dT%H:%M:%SZ", moment)}">'
            f'{time.strftime("%Y-%m-%d %H:%M:%S", moment)} UTC</time>')


def duration(seconds: float) -> str:
    """``9 min 5 s``, ``42 s``, ``2 h 3 min``: how long, in words a person reads at once."""
    whole = max(int(seconds), 0)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def agent_link(agent: str) -> str:
    if not agent:
        return "?"
    return f'<a href="/agents/{quote(agent, safe="")}">{escape(agent)}</a>'


def page(title: str, body: str, principal: Principal | None = None) -> HTMLResponse:
    """A whole page: the header (sections, who is signed in, sign out) around ``body``."""
    nav = ""
    if principal is not None:
        links = " ".join(f'<a href="{href}">{label}</a>' for href, label in SECTIONS)
        nav = (f'<nav aria-label="Sections">{links}</nav>'
               f'<p class="who">Signed in as <strong>{escape(name_of(principal))}</strong> '
               f'({escape(principal.role)})</p>'
               '<form method="post" action="/logout" class="inline">'
               '<button type="submit">Sign out</button></form>')
    html = (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{escape(title)} · clawgate</title>'
            f'<link rel="stylesheet" href="/static/console.css"></head><body>'
            f'<header><h1>clawgate</h1>{nav}</header>'
            f'<main data-now="{time.time():.3f}">{body}</main>'
            f'<script src="/static/console.js"></script></body></html>')
    return HTMLResponse(html)


def name_of(principal: Principal) -> str:
    """The name a person acts under: their token's agent name, else its id (what answers
    record as ``answered_by``)."""
    return principal.agent or principal.token_id
