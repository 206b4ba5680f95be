"""The console in a real headless Chromium (Debian's, driven by Playwright): an agent's ASK
appears live, a person clicks Allow once and the agent is released; Deny; expiry; a viewer
cannot answer; a forged form without its CSRF token is refused. Screenshots of each page are
saved under ``artifacts/console/`` for a reviewer."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from servekit import ANSWER_S, Server, in_process_token, server_env, start, stop

REQUIRED = os.environ.get("CLAWGATE_REQUIRE_BROWSER") == "1"
if REQUIRED:  # CI: a missing Playwright is a failure, not a skip
    import playwright.sync_api as playwright
else:
    playwright = pytest.importorskip("playwright.sync_api")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "console"
UI_MS = int(ANSWER_S * 1000)  # a hang guard for what the page shows, as for the service
pytestmark = pytest.mark.skipif(CHROMIUM is None and not REQUIRED,
                                reason="no chromium on this machine (scripts/serve-parts.sh)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    assert CHROMIUM is not None, "CLAWGATE_REQUIRE_BROWSER=1 but chromium is missing"
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"])
        yield launched
        launched.close()


def signed_in(browser: Any, server: Server, role: str) -> Any:
    page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone-sized screen
    page.set_default_timeout(UI_MS)
    page.goto(server.url + "/")
    page.get_by_label("Token").fill(in_process_token(server, role, f"{role}-person"))
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#queue")
    return page


def ask(server: Server, agent: str, command: str) -> dict[str, Any]:
    token = in_process_token(server, "agent", agent)
    with httpx.Client(base_url=server.url, timeout=30,
                      headers={"Authorization": f"Bearer {token}"}) as client:
        answer = client.post("/v1/check", json={"command": command}).json()
        assert answer["outcome"] == "ask"
        return {"id": answer["approval_id"], "token": token}


def wait_for_answer(server: Server, asked: dict[str, Any], box: list[dict[str, Any]]) -> None:
    with httpx.Client(base_url=server.url, timeout=60,
                      headers={"Authorization": f"Bearer {asked['token']}"}) as client:
        box.append(client.get(f"/v1/approvals/{asked['id']}", params={"wait": 30}).json())


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_an_ask_appears_live_and_allow_once_releases_the_agent(browser: Any,
                                                               server: Server) -> None:
    page = signed_in(browser, server, "approver")
    shot(page, "01-empty-queue")
    asked = ask(server, "console-agent", "deploy-prod --now")
    card = page.locator(f'article[data-id="{asked["id"]}"]')
    card.wait_for(timeout=UI_MS)  # arrived over server-sent events, no reload
    assert "deploy-prod --now" in card.inner_text()
    assert "deploys need a person" in card.inner_text()
    shot(page, "02-request-arrived")
    box: list[dict[str, Any]] = []
    waiter = threading.Thread(target=wait_for_answer, args=(server, asked, box))
    waiter.start()
    card.get_by_role("button", name="Allow once").click()
    waiter.join(ANSWER_S)
    assert box and box[0]["status"] == "allowed"
    card.wait_for(state="detached", timeout=UI_MS)
    shot(page, "03-answered")
    page.close()


def test_deny_from_the_console(browser: Any, server: Server) -> None:
    page = signed_in(browser, server, "approver")
    asked = ask(server, "denied-agent", "deploy-prod --force")
    card = page.locator(f'article[data-id="{asked["id"]}"]')
    card.wait_for(timeout=UI_MS)
    card.get_by_label("Note").fill("not today")
    card.get_by_role("button", name="Deny").click()
    card.wait_for(state="detached", timeout=UI_MS)
    box: list[dict[str, Any]] = []
    wait_for_answer(server, asked, box)
    assert (box[0]["status"], box[0]["note"], box[0]["outcome"]) == ("denied", "not today", "deny")
    page.close()


def test_a_viewer_sees_but_cannot_answer(browser: Any, server: Server) -> None:
    page = signed_in(browser, server, "viewer")
    asked = ask(server, "viewed-agent", "deploy-prod --viewer")
    card = page.locator(f'article[data-id="{asked["id"]}"]')
    card.wait_for(timeout=UI_MS)
    assert card.get_by_role("button").count() == 0
    shot(page, "04-viewer")
    forged = page.request.post(f"{server.url}/approvals/{asked['id']}",
                               form={"choice": "allow-once", "csrf": "x"})
    assert forged.status == 403
    page.close()


def test_a_forged_form_without_its_csrf_token_is_refused(browser: Any, server: Server) -> None:
    page = signed_in(browser, server, "approver")
    asked = ask(server, "csrf-agent", "deploy-prod --csrf")
    refused = page.request.post(f"{server.url}/approvals/{asked['id']}",
                                form={"choice": "allow-once"})
    assert refused.status == 403
    box: list[dict[str, Any]] = []
    with httpx.Client(base_url=server.url, headers={
            "Authorization": f"Bearer {asked['token']}"}) as client:
        box.append(client.get(f"/v1/approvals/{asked['id']}").json())
    assert box[0]["status"] == "pending"
    page.close()


def test_audit_and_policy_pages(browser: Any, server: Server) -> None:
    page = signed_in(browser, server, "viewer")
    page.get_by_role("link", name="Audit").click()
    page.wait_for_selector("table")
    assert "chain intact" in page.locator("[role=status]").inner_text()
    shot(page, "05-audit")
    page.get_by_role("link", name="Policy").click()
    page.wait_for_selector("h2")
    assert "Visible tools per agent" in page.content()
    shot(page, "06-policy")
    headers = page.request.get(f"{server.url}/").headers
    assert "script-src 'self'" in headers["content-security-policy"]
    page.close()


def test_an_unanswered_request_expires_as_a_deny(browser: Any,
                                                 tmp_path_factory: pytest.TempPathFactory) -> None:
    tmp = tmp_path_factory.mktemp("expiring")
    env = server_env(tmp)
    database = f"sqlite:///{tmp / 'serve.db'}"
    url, process = start(tmp, database, env, ttl=1.0)
    try:
        server = Server(url, database, env, process, {})
        page = signed_in(browser, server, "approver")
        asked = ask(server, "expiring-agent", "deploy-prod --late")
        box: list[dict[str, Any]] = []
        wait_for_answer(server, asked, box)
        assert (box[0]["status"], box[0]["outcome"]) == ("expired", "deny")
        page.locator(f'article[data-id="{asked["id"]}"]').wait_for(state="detached",
                                                                  timeout=UI_MS)
        page.close()
    finally:
        stop(process)
