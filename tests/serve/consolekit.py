"""Driving the console in Debian's headless Chromium (Playwright): a browser, people signing
in, agents asking, and the checks every page gets (its layout at a desktop's and a phone's
width, its screenshot, axe-core's accessibility rules)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pngkit import ink
from servekit import ANSWER_S, Server, in_process_token

REQUIRED = os.environ.get("CLAWGATE_REQUIRE_BROWSER") == "1"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "console"
UI_MS = int(ANSWER_S * 1000)  # a hang guard for what the page shows, as for the service
WIDTHS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update",
               "--disable-sync"]


def launch(playwright: Any) -> Iterator[Any]:
    assert CHROMIUM is not None, "CLAWGATE_REQUIRE_BROWSER=1 but chromium is missing"
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, headless=True,
                                          args=LAUNCH_ARGS)
        yield launched
        launched.close()


def sign_in(browser: Any, server: Server, role: str, name: str,
            size: str = "phone") -> Any:
    """A page of a new browser context (its own cookies) signed in as ``name``."""
    context = browser.new_context(viewport=WIDTHS[size])
    page = context.new_page()
    page.set_default_timeout(UI_MS)
    page.goto(server.url + "/")
    page.get_by_label("Token").fill(in_process_token(server, role, name))
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#queue")
    return page


def agent_client(server: Server, agent: str) -> httpx.Client:
    token = in_process_token(server, "agent", agent)
    return httpx.Client(base_url=server.url, timeout=30,
                        headers={"Authorization": f"Bearer {token}"})


def ask(client: httpx.Client, command: str, **where: str) -> dict[str, Any]:
    """An ASK of ``client``'s agent; the request as the API shows it."""
    answer = client.post("/v1/check", json={"command": command, **where}).json()
    assert answer["outcome"] == "ask", answer
    shown = client.get(f"/v1/approvals/{answer['approval_id']}").json()
    assert isinstance(shown, dict)
    return shown


def layout_problems(page: Any) -> list[str]:
    """What is wrong with the layout at the page's width: the page scrolling sideways, a
    block of the page (header, each child of main, each button) reaching outside the viewport,
    blocks of main overlapping one another, buttons of one form overlapping."""
    found: list[str] = page.evaluate("""() => {
      const out = [], width = window.innerWidth;
      if (document.documentElement.scrollWidth > width + 1)
        out.push('the page scrolls sideways: ' + document.documentElement.scrollWidth);
      const box = (e) => e.getBoundingClientRect();
      const blocks = [document.querySelector('header'), ...document.querySelectorAll(
        'main > *, main article, main figure')];
      for (const e of [...blocks, ...document.querySelectorAll('button')]) {
        const r = box(e);
        if (r.width === 0 && r.height === 0) continue;
        if (r.left < -1 || r.right > width + 1)
          out.push(`${e.tagName}#${e.id} leaves the viewport: ${r.left}..${r.right}`);
      }
      const stacked = [...document.querySelectorAll('main > *')].filter(
        (e) => box(e).height > 0);
      for (let i = 1; i < stacked.length; i++) {
        if (box(stacked[i - 1]).bottom > box(stacked[i]).top + 1)
          out.push(`${stacked[i - 1].tagName} overlaps ${stacked[i].tagName}`);
      }
      for (const form of document.querySelectorAll('form')) {
        const buttons = [...form.querySelectorAll('button')].map(box);
        for (let i = 0; i < buttons.length; i++) for (let j = i + 1; j < buttons.length; j++) {
          const a = buttons[i], b = buttons[j];
          if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1
              && b.top < a.bottom - 1) out.push('two buttons of a form overlap');
        }
      }
      return out;
    }""")
    return found


def screenshot_checked(page: Any, name: str) -> None:
    """Save the screenshot for a reviewer and check it is no blank page: some of it differs
    from the background, in more than a couple of colours (text, borders, buttons)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    png = page.screenshot(path=str(SHOTS / f"{name}.png"))
    share, colours = ink(png)
    assert share > 0.01 and colours > 8, (name, share, colours)


def serious_violations(page: Any) -> list[str]:
    """axe-core's violations of impact serious or critical (its bundled script, run in the
    page; nothing is fetched)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']]}"
            for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


def skip_without_browser() -> Any:
    return pytest.mark.skipif(CHROMIUM is None and not REQUIRED,
                              reason="no chromium on this machine (scripts/serve-parts.sh)")


def landmark_problems(page: Any) -> list[str]:
    """Everything on the page inside a landmark: one banner (the header, with the sections'
    navigation), one main; nothing else in the body but the script."""
    found: list[str] = page.evaluate("""() => {
      const out = [];
      for (const e of document.body.children)
        if (!['HEADER', 'MAIN', 'SCRIPT'].includes(e.tagName)) out.push('outside: ' + e.tagName);
      if (document.querySelectorAll('body > header').length !== 1) out.push('no one header');
      if (document.querySelectorAll('main').length !== 1) out.push('no one main');
      if (!document.querySelector('header nav[aria-label]')) out.push('no labelled nav');
      return out;
    }""")
    return found


def reach_by_tab(page: Any, target: Any, presses: int = 300) -> None:
    """Press Tab until ``target`` has the focus (a hang guard of ``presses``)."""
    for _ in range(presses):
        if target.evaluate("e => e === document.activeElement"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {target}")
