"""The approval console at ``/``: server-rendered HTML, one small script, no build step.

Pages: the queue (pending requests arriving live over server-sent events; each with the
command or call, agent, session, working directory, workspace, risk, every reason with its rule
id and hint, when it was asked and a live countdown to its expiry, what "Allow always" would
add, and Allow once / Allow always / Deny buttons; after an answer, what was decided and by
whom; who has the console open), the audit trail (newest first, a page at a time, filters, the
chain's state), a page per agent (its pending requests and recent decisions), charts of the
decisions by outcome and by rule, and the effective policy. Sign-in takes a token and opens a
session (cookie ``HttpOnly``, ``SameSite=Strict``), signing out ends it on the server; every
form carries a CSRF token and a post from another site is refused; every response a strict
Content-Security-Policy (no inline script or style). Labels, headings and buttons are real
elements, usable by keyboard and on a phone-sized screen.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import time
from collections.abc import AsyncIterator, Callable
from html import escape
from importlib import resources
from typing import Any, Literal

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse

from clawgate.serve.agentsview import RECENT, agent_html, agents_html
from clawgate.serve.api import App, audit_rows
from clawgate.serve.auditview import PER_PAGE, audit_html
from clawgate.serve.auth import COOKIE, SESSION_S, need, same_origin
from clawgate.serve.cards import PAGE, confirmation, people_html, queue_html
from clawgate.serve.charts import charts_html
from clawgate.serve.html import name_of, page
from clawgate.serve.tokens import Principal

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
       "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
EVENT_POLL_S = 0.25
PAGE_NUMBER = Query(1, alias="page", ge=1, le=100_000)
Session = tuple[Principal, str]


def router(app: App) -> APIRouter:
    console = APIRouter(include_in_schema=False)
    auth = app.authority

    def signed_in(request: Request) -> Session | None:
        cookie = request.cookies.get(COOKIE)
        found = auth.from_cookie(cookie) if cookie else None
        return None if found is None or cookie is None else (found, cookie)

    @console.get("/")
    async def home(request: Request, page_number: int = PAGE_NUMBER,
                   answered: str = Query("", max_length=64)) -> Response:
        session = signed_in(request)
        if session is None:
            return login_page()
        principal, cookie = session
        need(principal, "viewer")
        csrf = auth.csrf(cookie)
        can = principal.at_least("approver")
        shown = await asyncio.to_thread(queue_page, app, page_number, csrf, can)
        done = await asyncio.to_thread(app.service.approvals.get, answered) if answered else None
        people = await asyncio.to_thread(auth.signed_in)
        return page("Approvals", f'{confirmation(done, name_of(principal))}'
                    f'<h2>Waiting for a person</h2><section id="queue" aria-live="polite" '
                    f'aria-label="Pending requests" data-csrf="{escape(csrf)}" '
                    f'data-answer="{"yes" if can else "no"}">'
                    f'{shown["html"]}</section>{people_html(people)}', principal)

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
        """Answer, then show what stands: this answer, or an earlier one that came first."""
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
        answered = await app.service.answer(request_id, choice != "deny",
                                            choice == "allow-always", name_of(principal),
                                            note or None)
        if answered is None:
            raise HTTPException(404, "no such request")
        if not answered.first:  # 409, as the API says it, and whose answer stands
            late = page("Answered already", '<h2>Answered already</h2>'
                        + confirmation(answered.request, name_of(principal))
                        + '<p><a href="/">Back to the queue</a></p>', principal)
            late.status_code = 409
            return late
        return RedirectResponse(f"/?answered={answered.request['id']}", status_code=303)

    _pages(console, app, signed_in)
    return console


def _pages(console: APIRouter, app: App, signed_in: Callable[[Request], Session | None]) -> None:
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
                         session_id: str = "", page_number: int = PAGE_NUMBER,
                         limit: int = Query(PER_PAGE, ge=5, le=200)) -> Response:
        principal = viewer(request)
        if principal is None:
            return login_page()
        rows = await asyncio.to_thread(audit_rows, app, agent or None, session_id or None,
                                       outcome or None, None, None, limit + 1,
                                       (page_number - 1) * limit)
        state = await asyncio.to_thread(app.service.chain.verify)
        query = {"agent": agent, "outcome": outcome, "session_id": session_id, "limit": limit}
        return page("Audit", audit_html(rows[:limit], len(rows) > limit, state, query,
                                        page_number), principal)

    @console.get("/agents")
    async def agents_page(request: Request) -> Response:
        principal = viewer(request)
        if principal is None:
            return login_page()
        engine = app.service.chain.engine
        return page("Agents", await asyncio.to_thread(agents_html, engine), principal)

    @console.get("/agents/{agent:path}")
    async def agent_page(request: Request, agent: str) -> Response:
        session = signed_in(request)
        if session is None:
            return login_page()
        principal, cookie = session
        need(principal, "viewer")
        queue = app.service.approvals
        pending = await asyncio.to_thread(queue.pending, PAGE, 0, agent)
        total = await asyncio.to_thread(queue.total, agent)
        recent = await asyncio.to_thread(audit_rows, app, agent, None, None, None, None, RECENT)
        return page(f"Agent {agent}", agent_html(agent, pending, total, recent, auth.csrf(cookie),
                                                 principal.at_least("approver")), principal)

    @console.get("/charts")
    async def charts_page(request: Request,
                          window: Literal["1h", "24h", "7d"] = "24h") -> Response:
        principal = viewer(request)
        if principal is None:
            return login_page()
        html = await asyncio.to_thread(charts_html, app.service.chain.engine, window, time.time())
        return page("Charts", html, principal)

    @console.get("/policy")
    async def policy_page(request: Request) -> Response:
        principal = viewer(request)
        if principal is None:
            return login_page()
        return page("Policy", _policy_html(app), principal)

    @console.get("/static/{name}")
    async def static(name: str) -> Response:
        if name not in ("console.js", "console.css"):
            raise HTTPException(404, "no such file")
        text = resources.files("clawgate.serve").joinpath("static", name).read_text()
        kind = "text/javascript" if name.endswith(".js") else "text/css"
        return Response(text, media_type=f"{kind}; charset=utf-8")

    def viewer(request: Request) -> Principal | None:
        """The signed-in person (403 below viewer), or None: the page is the sign-in form."""
        session = signed_in(request)
        if session is None:
            return None
        need(session[0], "viewer")
        return session[0]


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
    on any replica, ends the stream). Each message carries the service's clock, so that the
    countdowns count from it, not from the browser's."""
    last = None
    while not await request.is_disconnected():
        cookie = request.cookies.get(COOKIE, "")
        if await asyncio.to_thread(app.authority.from_cookie, cookie) is None:
            yield b"event: signed-out\ndata: {}\n\n"
            return
        shown = await asyncio.to_thread(queue_page, app, page_number, csrf, can)
        if shown != last:
            last = shown
            yield f"data: {json.dumps({**shown, 'now': time.time()})}\n\n".encode()
        await asyncio.sleep(EVENT_POLL_S)


def queue_page(app: App, page_number: int, csrf: str, can: bool) -> dict[str, Any]:
    """One page of the queue as HTML, and how many wait in all."""
    approvals = app.service.approvals
    items = approvals.pending(PAGE, (page_number - 1) * PAGE)
    total = approvals.total()
    return {"html": queue_html(items, total, page_number, csrf, can), "count": total}


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
