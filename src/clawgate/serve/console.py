"""The approval console at ``/``: server-rendered HTML, one small script, no build step.

Pages: the queue (pending requests arriving live over server-sent events, each with the command
or call, agent, workspace, risk, every reason with its rule id and hint, and Allow once / Allow
always / Deny buttons), the audit trail (filters, the chain's verification state) and the
effective policy (layers, visible tools per agent). The queue is shown a page at a time with
how many wait in all. Sign-in takes a token and opens a session (cookie ``HttpOnly``,
``SameSite=Strict``), signing out ends it on the server; every form carries a CSRF token and
a post from another site is refused; every response a strict Content-Security-Policy (no
inline script or style). Labels, headings and buttons are real elements, usable by keyboard
and on a phone-sized screen.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import AsyncIterator, Callable
from html import escape
from importlib import resources
from typing import Any

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse

from clawgate.serve.api import App, audit_rows, settled
from clawgate.serve.auth import COOKIE, SESSION_S, need, same_origin
from clawgate.serve.tokens import Principal

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
       "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
EVENT_POLL_S = 0.25
PAGE = 50  # requests on one page of the queue
PAGE_NUMBER = Query(1, alias="page", ge=1, le=100_000)


def page(title: str, body: str, principal: Principal | None = None) -> HTMLResponse:
    nav = ""
    if principal is not None:
        nav = ('<nav aria-label="Sections"><a href="/">Approvals</a> <a href="/audit">Audit</a> '
               '<a href="/policy">Policy</a> <form method="post" action="/logout" class="inline">'
               f'<button type="submit">Sign out ({escape(principal.role)})</button></form></nav>')
    html = (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{escape(title)} · clawgate</title>'
            f'<link rel="stylesheet" href="/static/console.css"></head><body>'
            f'<header><h1>clawgate</h1>{nav}</header><main>{body}</main>'
            f'<script src="/static/console.js"></script></body></html>')
    return HTMLResponse(html)


def request_card(item: dict[str, Any], csrf: str, can_answer: bool) -> str:
    reasons = "".join(
        f'<li><code>{escape(r["rule_id"])}</code> {escape(r["message"])}'
        + (f' <em>hint: {escape(r["hint"])}</em>' if r.get("hint") else "") + "</li>"
        for r in item["reasons"])
    buttons = ""
    if can_answer:
        buttons = (f'<form method="post" action="/approvals/{escape(item["id"])}" '
                   f'class="answer"><input type="hidden" name="csrf" value="{escape(csrf)}">'
                   '<label for="note-' + escape(item["id"]) + '">Note</label>'
                   f'<input id="note-{escape(item["id"])}" name="note" maxlength="2000">'
                   '<button name="choice" value="allow-once">Allow once</button>'
                   '<button name="choice" value="allow-always">Allow always</button>'
                   '<button name="choice" value="deny" class="deny">Deny</button></form>')
    return (f'<article class="request risk-{escape(item["risk"])}" data-id="{escape(item["id"])}"'
            f' aria-labelledby="t-{escape(item["id"])}">'
            f'<h3 id="t-{escape(item["id"])}"><code>{escape(item["summary"])}</code></h3>'
            f'<p>agent <strong>{escape(item["agent"] or "?")}</strong> · tool '
            f'{escape(item["tool"])} · risk <strong>{escape(item["risk"])}</strong> · '
            f'workspace <code>{escape(item["workspace"])}</code></p>'
            f'<ul class="reasons">{reasons}</ul>{buttons}</article>')


def router(app: App) -> APIRouter:
    console = APIRouter(include_in_schema=False)
    auth = app.authority

    def signed_in(request: Request) -> tuple[Principal, str] | None:
        cookie = request.cookies.get(COOKIE)
        found = auth.from_cookie(cookie) if cookie else None
        return None if found is None or cookie is None else (found, cookie)

    @console.get("/")
    async def home(request: Request, page_number: int = PAGE_NUMBER) -> Response:
        session = signed_in(request)
        if session is None:
            return login_page()
        principal, cookie = session
        need(principal, "viewer")
        csrf = auth.csrf(cookie)
        can = principal.at_least("approver")
        shown = await asyncio.to_thread(queue_page, app, page_number, csrf, can)
        return page("Approvals", f'<h2>Waiting for a person</h2><section id="queue" '
                    f'aria-live="polite" data-csrf="{escape(csrf)}" '
                    f'data-answer="{"yes" if can else "no"}">{shown["html"]}</section>',
                    principal)

    @console.post("/login")
    async def login(request: Request, token: str = Form(...)) -> Response:
        same_origin(request)
        principal = auth.bearer(token.strip())
        if principal is None or not principal.at_least("viewer"):
            return login_page("That token is not valid for the console.", status=401)
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, auth.session_cookie(principal), max_age=SESSION_S,
                            httponly=True, samesite="strict", secure=app.tls, path="/")
        return response

    @console.post("/logout")
    async def logout(request: Request) -> Response:
        same_origin(request)
        cookie = request.cookies.get(COOKIE)
        if cookie:
            auth.end_session(cookie)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    @console.post("/approvals/{request_id}")
    async def answer(request: Request, request_id: str, csrf: str = Form(""),
                     choice: str = Form(...), note: str = Form("")) -> Response:
        same_origin(request)
        session = signed_in(request)
        if session is None:
            raise HTTPException(401, "sign in first")
        principal, cookie = session
        if not hmac.compare_digest(csrf, auth.csrf(cookie)):
            raise HTTPException(403, "the form's CSRF token is missing or wrong")
        need(principal, "approver")
        if choice not in ("allow-once", "allow-always", "deny"):
            raise HTTPException(422, "choice is allow-once, allow-always or deny")
        settled(await app.service.answer(request_id, choice != "deny", choice == "allow-always",
                                         principal.agent or principal.token_id, note or None))
        return RedirectResponse("/", status_code=303)

    _pages(console, app, signed_in)
    return console


def _pages(console: APIRouter, app: App,
           signed_in: Callable[[Request], tuple[Principal, str] | None]) -> None:
    auth = app.authority

    @console.get("/events")
    async def events(request: Request,
                     page_number: int = PAGE_NUMBER) -> Response:
        session = signed_in(request)
        if session is None:
            raise HTTPException(401, "sign in first")
        principal, cookie = session
        need(principal, "viewer")
        csrf, can = auth.csrf(cookie), principal.at_least("approver")
        return StreamingResponse(_stream(app, request, page_number, csrf, can),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    @console.get("/audit")
    async def audit_page(request: Request, agent: str = "", outcome: str = "",
                         session_id: str = "") -> Response:
        session = signed_in(request)
        if session is None:
            return login_page()
        principal, _ = session
        need(principal, "viewer")
        rows = audit_rows(app, agent or None, session_id or None, outcome or None, None, None,
                          200)
        state = app.service.chain.verify()
        return page("Audit", _audit_html(rows, state, agent, outcome, session_id), principal)

    @console.get("/policy")
    async def policy_page(request: Request) -> Response:
        session = signed_in(request)
        if session is None:
            return login_page()
        principal, _ = session
        need(principal, "viewer")
        return page("Policy", _policy_html(app), principal)

    @console.get("/static/{name}")
    async def static(name: str) -> Response:
        if name not in ("console.js", "console.css"):
            raise HTTPException(404, "no such file")
        text = resources.files("clawgate.serve").joinpath("static", name).read_text()
        kind = "text/javascript" if name.endswith(".js") else "text/css"
        return Response(text, media_type=f"{kind}; charset=utf-8")


def login_page(message: str = "", status: int = 200) -> HTMLResponse:
    note = f'<p role="alert">{escape(message)}</p>' if message else ""
    response = page("Sign in", f'<h2>Sign in</h2>{note}<form method="post" action="/login">'
                    '<label for="token">Token</label>'
                    '<input id="token" name="token" type="password" autocomplete="off" required>'
                    '<button type="submit">Sign in</button></form>')
    response.status_code = status
    return response


async def _stream(app: App, request: Request, page_number: int, csrf: str,
                  can: bool) -> AsyncIterator[bytes]:
    """The queue's page whenever it changes, for as long as the session lasts (signing out,
    on any replica, ends the stream)."""
    last = None
    while not await request.is_disconnected():
        cookie = request.cookies.get(COOKIE, "")
        if await asyncio.to_thread(app.authority.from_cookie, cookie) is None:
            yield b"event: signed-out\ndata: {}\n\n"
            return
        shown = await asyncio.to_thread(queue_page, app, page_number, csrf, can)
        if shown != last:
            last = shown
            yield f"data: {json.dumps(shown)}\n\n".encode()
        await asyncio.sleep(EVENT_POLL_S)


def queue_page(app: App, page_number: int, csrf: str, can: bool) -> dict[str, Any]:
    """One page of the queue as HTML, with how many wait in all and links to the pages
    around it (one agent's many requests cannot hide the others')."""
    approvals = app.service.approvals
    items = approvals.pending(PAGE, (page_number - 1) * PAGE)
    total = approvals.total()
    cards = "".join(request_card(i, csrf, can) for i in items)
    pages = max((total + PAGE - 1) // PAGE, 1)
    links = "".join(f'<a href="/?page={n}" rel="{rel}">{label}</a> ' for n, rel, label in (
        (page_number - 1, "prev", "Previous page"),
        (page_number + 1, "next", "Next page")) if 1 <= n <= pages)
    head = (f'<p id="total" role="status">{total} waiting · page {page_number} of {pages}</p>'
            + (f'<nav aria-label="Pages" class="pages">{links}</nav>' if links else ""))
    empty = '<p id="empty">Nothing is waiting.</p>' if not items else ""
    return {"html": head + cards + empty, "count": total}


def _audit_html(rows: list[dict[str, Any]], state: dict[str, Any], agent: str, outcome: str,
                session_id: str) -> str:
    verified = (f'<p class="{"ok" if state["ok"] else "broken"}" role="status">Chain: '
                f'{escape(str(state["why"]))}</p>')
    form = ('<form method="get" action="/audit" class="filters">'
            f'<label for="f-agent">Agent</label><input id="f-agent" name="agent" '
            f'value="{escape(agent)}"><label for="f-outcome">Outcome</label>'
            f'<input id="f-outcome" name="outcome" value="{escape(outcome)}">'
            f'<label for="f-session">Session</label><input id="f-session" name="session_id" '
            f'value="{escape(session_id)}"><button type="submit">Filter</button></form>')
    body = "".join(
        f'<tr><td>{r["seq"]}</td><td>{escape(r["agent"])}</td><td>{escape(r["tool"])}</td>'
        f'<td>{escape(r["outcome"])}</td><td><code>{escape(r["rule"])}</code></td>'
        f'<td><code>{escape(_what(r["body"]))}</code></td></tr>' for r in rows)
    return (f'<h2>Audit trail</h2>{verified}{form}<table><caption>Newest first</caption>'
            '<thead><tr><th scope="col">#</th><th scope="col">Agent</th><th scope="col">Tool'
            '</th><th scope="col">Outcome</th><th scope="col">Rule</th><th scope="col">What'
            f'</th></tr></thead><tbody>{body}</tbody></table>')


def _what(body: dict[str, Any]) -> str:
    for key in ("command", "summary"):
        if isinstance(body.get(key), str):
            return str(body[key])[:200]
    return json.dumps(body.get("args", ""))[:200]


def _policy_html(app: App) -> str:
    from clawgate.policy.catalog import BUILTIN_TOOLS
    from clawgate.policy.visibility import ToolContext

    policy = app.service.policy
    layers = "".join(f"<li><code>{escape(layer.path)}</code>"
                     f"{' (locked)' if layer.locked else ''}</li>" for layer in policy.layers)
    agents = sorted({"", *policy.merged.children("tools", "agents")})
    rows = "".join(
        f'<tr><th scope="row">{escape(a or "(any agent)")}</th><td>'
        + escape(", ".join(policy.visible_tools(set(BUILTIN_TOOLS),
                                                ToolContext(agent=a or None)).tools))
        + "</td></tr>" for a in agents)
    return (f'<h2>Effective policy</h2><h3>Layers, in order</h3><ol>{layers}</ol>'
            f'<h3>Autonomy</h3><p>{escape(str(policy.engine_settings().autonomy.value))}</p>'
            '<h3>Visible tools per agent</h3><table><thead><tr><th scope="col">Agent</th>'
            f'<th scope="col">Tools</th></tr></thead><tbody>{rows}</tbody></table>')
