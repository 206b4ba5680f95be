"""The queue as a person sees it: one card per pending request, the answer just given, and
who else has the console open.

A card says what is asked (the command or call, every reason with its rule id and hint), who
asks and where (agent, session, working directory, workspace), when it was asked and how long
is left before it expires (an unanswered request is a deny then), and, before any click, what
"Allow always" would add: the grant, in words, exactly as ``Queue.digest`` binds it (this
agent, this call with these arguments, this working directory and workspace, any session).
"""

from __future__ import annotations

import time
from html import escape
from typing import Any

from clawgate.serve.html import agent_link, duration, stamp

PAGE = 50  # requests on one page of the queue


def always_covers(item: dict[str, Any]) -> str:
    """What an allow-always answer to ``item`` adds, in words (the grant's binding)."""
    if item["tool"] == "exec_shell":
        what = f'may run <code>{escape(item["summary"])}</code> (exactly this line)'
    else:
        what = (f'may call <code>{escape(item["tool"])}</code> with exactly these arguments '
                f'(<code>{escape(item["summary"])}</code>)')
    return (f'Allow always adds a rule: agent <strong>{escape(item["agent"] or "?")}</strong> '
            f'{what} in <code>{escape(item["cwd"])}</code>, workspace '
            f'<code>{escape(item["workspace"])}</code>, in any of its sessions, without asking '
            'again. Other agents, other arguments and other directories still ask. An admin '
            'can revoke it.')


def expiry(item: dict[str, Any], now: float) -> str:
    """When it was asked, and the countdown to its expiry (kept live by the script)."""
    left = item["expires"] - now
    return (f'<p class="when">Asked {stamp(item["created"])} · <span class="countdown" '
            f'aria-live="off" data-expires="{item["expires"]:.3f}">expires in '
            f'{duration(left)}</span> (at {stamp(item["expires"])}); unanswered by then, it is '
            'a <strong>deny</strong>.</p>')


def request_card(item: dict[str, Any], csrf: str, can_answer: bool, now: float) -> str:
    key = escape(item["id"])
    reasons = "".join(
        f'<li><code>{escape(r["rule_id"])}</code> {escape(r["message"])}'
        + (f' <em>hint: {escape(r["hint"])}</em>' if r.get("hint") else "") + "</li>"
        for r in item["reasons"])
    covers = f'<p class="covers" id="covers-{key}">{always_covers(item)}</p>'
    buttons = ""
    if can_answer:
        buttons = (f'<form method="post" action="/approvals/{key}" class="answer">'
                   f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
                   f'<label for="note-{key}">Note</label>'
                   f'<input id="note-{key}" name="note" maxlength="2000">'
                   f'<button id="once-{key}" name="choice" value="allow-once">Allow once'
                   f'</button><button id="always-{key}" name="choice" value="allow-always" '
                   f'aria-describedby="covers-{key}">Allow always</button>'
                   f'<button id="deny-{key}" name="choice" value="deny" class="deny">Deny'
                   '</button></form>')
    return (f'<article class="request risk-{escape(item["risk"])}" data-id="{key}"'
            f' aria-labelledby="t-{key}">'
            f'<h3 id="t-{key}"><code>{escape(item["summary"])}</code></h3>'
            f'<p>agent <strong>{agent_link(item["agent"])}</strong> · session '
            f'<code>{escape(item["session"] or "(none)")}</code> · tool '
            f'{escape(item["tool"])} · risk <strong>{escape(item["risk"])}</strong></p>'
            f'<p>working directory <code>{escape(item["cwd"])}</code> · workspace '
            f'<code>{escape(item["workspace"])}</code></p>'
            f'{expiry(item, now)}<ul class="reasons">{reasons}</ul>{covers}{buttons}'
            '</article>')


def queue_html(items: list[dict[str, Any]], total: int, page_number: int, csrf: str,
               can: bool) -> str:
    """One page of the queue, with how many wait in all and links to the pages around it
    (one agent's many requests cannot hide the others')."""
    now = time.time()
    cards = "".join(request_card(i, csrf, can, now) for i in items)
    pages = max((total + PAGE - 1) // PAGE, 1)
    links = "".join(f'<a href="/?page={n}" rel="{rel}">{label}</a> ' for n, rel, label in (
        (page_number - 1, "prev", "Previous page"),
        (page_number + 1, "next", "Next page")) if 1 <= n <= pages)
    head = (f'<p id="total" role="status">{total} waiting · page {page_number} of {pages}</p>'
            + (f'<nav aria-label="Pages" class="pages">{links}</nav>' if links else ""))
    empty = '<p id="empty">Nothing is waiting.</p>' if not items else ""
    return head + cards + empty


VERBS = {("allowed", "once"): "allowed once", ("allowed", "always"): "allowed always",
         ("denied", "once"): "denied", ("expired", None): "expired (a deny)"}


def confirmation(item: dict[str, Any] | None, me: str) -> str:
    """What became of a request just answered here: what was decided, by whom, when; or, if
    someone else's answer came first, that theirs stands."""
    if item is None:
        return ""
    if item["status"] == "pending":
        return ""
    said = VERBS.get((item["status"], item["scope"]), VERBS.get((item["status"], None),
                                                                item["status"]))
    by = item["answered_by"]
    who = "nobody answered it" if by is None else (
        f"by you ({escape(me)})" if by == me else f"by {escape(by)}")
    at = f' at {stamp(item["answered"])}' if item["answered"] else ""
    grant = "" if by in (None, me) else " That answer came first and stands; yours changed nothing."
    if item["scope"] == "always" and item["status"] == "allowed":
        grant += " " + always_covers(item).replace("Allow always adds a rule", "Rule added", 1)
    return (f'<div id="confirmation" class="confirm {escape(item["status"])}" role="status">'
            f'<p><strong>{escape(said.capitalize())}</strong>: '
            f'<code>{escape(item["summary"])}</code> of agent {agent_link(item["agent"])}, '
            f'{who}{at}.{grant}</p></div>')


def people_html(people: list[dict[str, Any]]) -> str:
    """Who has the console open (signed in, not signed out, session not expired)."""
    rows = "".join(
        f'<li><strong>{escape(str(p["name"]))}</strong> ({escape(str(p["role"]))}) since '
        f'{stamp(float(p["since"]))}'
        + (f', {p["open"]} sessions' if int(p["open"]) > 1 else "") + "</li>"
        for p in people)
    return ('<aside id="people" aria-labelledby="people-h"><h2 id="people-h">Signed in now'
            f'</h2><ul>{rows}</ul><p class="fine">Open console sessions: a browser closed '
            'without signing out stays here until its session expires.</p></aside>')
