"""What the console shows a person, in a real headless Chromium (Debian's, driven by
Playwright): when each request was asked and a live countdown to its expiry (then a deny),
its session and working directory, what "Allow always" adds (before the click) and what was
decided by whom (after it), who is signed in, the audit trail (time, note, who answered; an
outcome chosen from a list; newest first, paged), a page per agent, charts by outcome and by
rule; and every page at a desktop's and a phone's width: its layout, its screenshot, axe-core's
accessibility rules, nothing fetched from anywhere but the service."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from consolekit import (
    REQUIRED,
    UI_MS,
    WIDTHS,
    agent_client,
    ask,
    landmark_problems,
    launch,
    layout_problems,
    reach_by_tab,
    screenshot_checked,
    serious_violations,
    sign_in,
    skip_without_browser,
)
from servekit import Server, server_env, start, stop, until

if REQUIRED:  # CI: a missing Playwright or axe-core is a failure, not a skip
    import axe_playwright_python  # noqa: F401
    import playwright.sync_api as playwright
else:
    playwright = pytest.importorskip("playwright.sync_api")
    pytest.importorskip("axe_playwright_python")

pytestmark = skip_without_browser()
STATIC = Path(__file__).resolve().parents[2] / "src" / "clawgate" / "serve" / "static"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch(playwright)


def card_of(page: Any, request: dict[str, Any]) -> Any:
    card = page.locator(f'article[data-id="{request["id"]}"]')
    card.wait_for(timeout=UI_MS)  # arrives over server-sent events, no reload
    return card


def utc(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def test_a_request_shows_when_it_was_asked_and_counts_down_to_a_deny(
        browser: Any, server: Server) -> None:
    page = sign_in(browser, server, "approver", "ann")
    with agent_client(server, "clock-agent") as agent:
        asked = ask(agent, "deploy-prod --clock")
    card = card_of(page, asked)
    times = card.locator(".when time")
    assert times.nth(0).get_attribute("datetime") == utc(asked["created"])
    assert times.nth(1).get_attribute("datetime") == utc(asked["expires"])
    assert "unanswered by then, it is a deny" in card.locator(".when").inner_text()
    countdown = card.locator(".countdown")
    first = countdown.inner_text()
    assert re.fullmatch(r"expires in \d+ min \d+ s", first), first
    assert until(lambda: countdown.inner_text() != first), "the countdown did not move"
    page.context.close()


def test_an_expiring_request_says_it_is_a_deny_when_its_time_is_up(
        browser: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    tmp = tmp_path_factory.mktemp("expiring-view")
    env = server_env(tmp)
    database = f"sqlite:///{tmp / 'serve.db'}"
    url, process = start(tmp, database, env, ttl=15.0)
    try:
        server = Server(url, database, env, process, {})
        page = sign_in(browser, server, "approver", "eve")
        with agent_client(server, "late-agent") as agent:
            asked = ask(agent, "deploy-prod --late")
            # the agent's own page has no live queue: the card stays, and its countdown ends
            page.goto(f"{server.url}/agents/late-agent")
            card = card_of(page, asked)
            card.locator(".countdown", has_text="expired: it counts as a deny").wait_for()
            assert card.get_by_role("button", name="Allow once").is_disabled()
            assert card.get_by_role("button", name="Allow always").is_disabled()
            shown = until(lambda: agent.get(f"/v1/approvals/{asked['id']}").json()
                          if agent.get(f"/v1/approvals/{asked['id']}").json()["status"]
                          != "pending" else None)
            assert (shown["status"], shown["outcome"]) == ("expired", "deny")
        page.context.close()
    finally:
        stop(process)


def test_a_request_shows_its_session_and_working_directory(browser: Any,
                                                          server: Server) -> None:
    page = sign_in(browser, server, "viewer", "val")
    with agent_client(server, "where-agent") as agent:
        asked = ask(agent, "deploy-prod --where", session="s-42", cwd="sub/dir")
    card = card_of(page, asked)
    assert asked["cwd"] == f"{asked['workspace']}/sub/dir"
    text = card.inner_text()
    assert "session s-42" in text
    assert f"working directory {asked['cwd']}" in text
    assert f"workspace {asked['workspace']}" in text
    page.context.close()


def test_allow_always_says_what_it_adds_before_the_click_and_confirms_after(
        browser: Any, server: Server) -> None:
    page = sign_in(browser, server, "approver", "alice")
    with agent_client(server, "always-agent") as agent, \
            agent_client(server, "other-agent") as other:
        asked = ask(agent, "deploy-prod --always", session="first")
        card = card_of(page, asked)
        button = card.get_by_role("button", name="Allow always")
        covers = page.locator(f'#{button.get_attribute("aria-describedby")}')
        assert covers.inner_text() == (
            "Allow always adds a rule: agent always-agent may run deploy-prod --always "
            f"(exactly this line) in {asked['cwd']}, workspace {asked['workspace']}, in any "
            "of its sessions, without asking again. Other agents, other arguments and other "
            "directories still ask. An admin can revoke it.")
        button.click()
        confirmed = page.locator("#confirmation")
        confirmed.wait_for()
        text = confirmed.inner_text()
        assert text.startswith("Allowed always: deploy-prod --always of agent always-agent, "
                               "by you (alice) at ")
        assert "Rule added: agent always-agent may run deploy-prod --always" in text
        assert confirmed.get_attribute("role") == "status"
        # what the words said is what the grant covers: another session of the same agent
        # is allowed, another agent still asks
        again = agent.post("/v1/check", json={"command": "deploy-prod --always",
                                              "session": "second"}).json()
        assert again["outcome"] == "allow"
        assert other.post("/v1/check", json={"command": "deploy-prod --always"}
                          ).json()["outcome"] == "ask"
    page.context.close()


def test_deny_is_confirmed_and_a_late_answer_says_whose_answer_stands(
        browser: Any, server: Server) -> None:
    first = sign_in(browser, server, "approver", "bob")
    late = sign_in(browser, server, "approver", "carol")
    with agent_client(server, "denied-view-agent") as agent:
        asked = ask(agent, "deploy-prod --deny")
    late.goto(f"{server.url}/agents/denied-view-agent")  # no live queue: the card stays
    late_card = card_of(late, asked)  # carol has the card open ...
    card = card_of(first, asked)
    card.get_by_label("Note").fill("not on a friday")
    card.get_by_role("button", name="Deny").click()  # ... bob answers first
    assert first.locator("#confirmation").inner_text().startswith(
        "Denied: deploy-prod --deny of agent denied-view-agent, by you (bob) at ")
    late_card.get_by_role("button", name="Allow once").click()
    said = late.locator("#confirmation").inner_text()
    assert said.startswith("Denied: deploy-prod --deny of agent denied-view-agent, by bob at ")
    assert said.endswith(" UTC. That answer came first and stands; yours changed nothing.")
    first.context.close()
    late.context.close()


def test_a_person_answers_by_keyboard_alone_and_a_live_update_keeps_their_note(
        browser: Any, server: Server) -> None:
    page = sign_in(browser, server, "approver", "kim")
    with agent_client(server, "keyboard-agent") as agent, \
            agent_client(server, "arriving-agent") as arriving:
        asked = ask(agent, "deploy-prod --keyboard")
        card = card_of(page, asked)
        note = card.get_by_label("Note")
        reach_by_tab(page, note)
        page.keyboard.type("typed before the update")
        card_of(page, ask(arriving, "deploy-prod --arriving"))  # the queue was redrawn
        assert note.input_value() == "typed before the update"
        assert note.evaluate("e => e === document.activeElement")
        page.keyboard.press("Tab")
        once = card.get_by_role("button", name="Allow once")
        assert once.evaluate("e => e === document.activeElement")
        assert once.evaluate("e => getComputedStyle(e).outlineStyle") == "solid"  # visible
        page.keyboard.press("Enter")
        assert page.locator("#confirmation").inner_text().startswith(
            "Allowed once: deploy-prod --keyboard of agent keyboard-agent, by you (kim) at ")
        shown = agent.get(f"/v1/approvals/{asked['id']}").json()
    assert (shown["status"], shown["answered_by"], shown["note"]) == (
        "allowed", "kim", "typed before the update")
    page.context.close()


def test_who_is_signed_in(browser: Any, server: Server) -> None:
    mine = sign_in(browser, server, "approver", "dora")
    assert mine.locator("header .who").inner_text() == "Signed in as dora (approver)"
    other = sign_in(browser, server, "viewer", "vic")
    mine.reload()
    people = mine.locator("#people li")
    names = people.all_inner_texts()
    assert any(n.startswith("dora (approver) since ") for n in names), names
    assert any(n.startswith("vic (viewer) since ") for n in names), names
    other.get_by_role("button", name="Sign out").click()
    other.get_by_label("Token").wait_for()
    mine.reload()
    assert not any(n.startswith("vic (viewer)") for n in mine.locator("#people li")
                   .all_inner_texts())
    mine.context.close()
    other.context.close()


def audit_cells(page: Any, column: int) -> list[str]:
    cells: list[str] = page.locator(f"table tbody tr td:nth-child({column})").all_inner_texts()
    return cells


def test_the_audit_trail_shows_time_note_and_who_answered(browser: Any,
                                                          server: Server) -> None:
    page = sign_in(browser, server, "approver", "erin")
    with agent_client(server, "audited-agent") as agent:
        asked = ask(agent, "deploy-prod --audited", session="s-audit")
    card_of(page, asked).get_by_label("Note").fill("checked the diff")
    card_of(page, asked).get_by_role("button", name="Allow once").click()
    page.locator("#confirmation").wait_for()
    page.get_by_role("link", name="Audit", exact=True).click()
    row = page.locator("tbody tr", has_text="checked the diff")
    cells = row.locator("td").all_inner_texts()
    # #, time, agent, session, tool, outcome, rule, what, note, answered by
    assert cells[2:] == ["audited-agent", "s-audit", "approval", "allow", "",
                         "answer: allow once to deploy-prod --audited", "checked the diff",
                         "erin"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", cells[1])
    asked_row = page.locator("tbody tr", has_text="deploy-prod --audited").filter(
        has_text="exec_shell")
    assert asked_row.locator("td").all_inner_texts()[5:7] == [
        "ask", "policy:policy.yaml#deploys-ask"]
    seqs = [int(s) for s in audit_cells(page, 1)]
    assert seqs == sorted(seqs, reverse=True)  # newest first
    page.context.close()


def test_the_audit_outcome_is_a_choice_and_the_trail_is_paged(browser: Any,
                                                              server: Server) -> None:
    page = sign_in(browser, server, "viewer", "fay")
    with agent_client(server, "paged-agent") as agent:
        for n in range(7):
            assert agent.post("/v1/check", json={"command": f"rm -rf / --paged-{n}"}
                              ).json()["outcome"] == "deny"
    page.goto(f"{server.url}/audit?limit=5")
    outcome = page.get_by_label("Outcome")
    assert outcome.evaluate("e => e.tagName") == "SELECT"
    assert outcome.locator("option").all_inner_texts() == [
        "any outcome", "allow", "ask", "deny", "conflict"]
    outcome.select_option("deny")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url(re.compile(r"outcome=deny"))
    assert page.get_by_label("Outcome").input_value() == "deny"
    first = [int(s) for s in audit_cells(page, 1)]
    assert len(first) == 5 and set(audit_cells(page, 6)) == {"deny"}
    page.get_by_role("link", name="Older records").click()
    page.wait_for_url(re.compile(r"page=2"))
    second = [int(s) for s in audit_cells(page, 1)]
    assert second and max(second) < min(first) and set(audit_cells(page, 6)) == {"deny"}
    assert page.get_by_label("Outcome").input_value() == "deny"  # the filter is kept
    page.get_by_role("link", name="Newer records").click()
    page.wait_for_url(re.compile(r"page=1"))
    assert [int(s) for s in audit_cells(page, 1)] == first
    page.context.close()


def test_a_page_per_agent_with_its_pending_count_and_recent_decisions(
        browser: Any, server: Server) -> None:
    page = sign_in(browser, server, "approver", "gil")
    with agent_client(server, "paged-by-agent") as agent:
        waiting = [ask(agent, f"deploy-prod --agent-page-{n}") for n in range(2)]
        assert agent.post("/v1/check", json={"command": "rm -rf / --agent-page"}
                          ).json()["outcome"] == "deny"
    card_of(page, waiting[0]).get_by_role("link", name="paged-by-agent").click()
    page.wait_for_url(f"{server.url}/agents/paged-by-agent")
    assert page.locator("#agent-pending").inner_text() == "2 requests wait for a person."
    assert sorted(page.locator("article").evaluate_all("a => a.map(e => e.dataset.id)")) == \
        sorted(w["id"] for w in waiting)
    recent = page.locator("section", has_text="Recent decisions")
    whats = recent.locator("tbody tr td:nth-child(8)").all_inner_texts()
    assert whats[:3] == ["rm -rf / --agent-page", "deploy-prod --agent-page-1",
                         "deploy-prod --agent-page-0"]
    assert set(recent.locator("tbody tr td:nth-child(3)").all_inner_texts()) == {
        "paged-by-agent"}
    page.get_by_role("link", name="Agents", exact=True).click()
    row = page.locator("tbody tr", has=page.get_by_role("link", name="paged-by-agent",
                                                        exact=True))
    assert row.locator("td").all_inner_texts()[:2] == ["3", "2"]
    page.context.close()


def test_charts_of_decisions_by_outcome_and_by_rule(browser: Any, server: Server) -> None:
    with agent_client(server, "charted-agent") as agent:
        assert agent.post("/v1/check", json={"command": "rm -rf / --charted"}
                          ).json()["outcome"] == "deny"
        ask(agent, "deploy-prod --charted")
    page = sign_in(browser, server, "viewer", "hal")
    page.get_by_role("link", name="Charts", exact=True).click()
    with server.client("viewer") as viewer:
        records = viewer.get("/v1/audit", params={"limit": 1000}).json()["records"]
    decisions = [r for r in records if r["tool"] != "approval"]
    outcomes = Counter(r["outcome"] for r in decisions)
    by_outcome = page.locator("#by-outcome")
    assert by_outcome.locator(".legend li").all_inner_texts() == [
        f"{o}: {outcomes[o]}" for o in ("allow", "ask", "deny")]
    chart = by_outcome.get_by_role("img")
    assert chart.get_attribute("aria-labelledby") == "by-outcome-t by-outcome-d"
    title = chart.locator("title").first.text_content()
    assert title == "Decisions by outcome, the last 24 hours"
    drawn: Counter[str] = Counter()  # each bar's title: "deny: 3 from 22:00 UTC"
    for bar in by_outcome.locator("rect title").all_text_contents():
        found = re.fullmatch(r"(\w+): (\d+) from .* UTC", bar)
        assert found is not None, bar
        drawn[found[1]] += int(found[2])
    assert drawn == Counter({o: n for o, n in outcomes.items() if n})
    rules = Counter(r["rule"] for r in decisions)
    legend = page.locator("#by-rule .legend li").all_inner_texts()
    assert f"policy:policy.yaml#deploys-ask: {rules['policy:policy.yaml#deploys-ask']}" in legend
    page.get_by_role("link", name="the last hour").click()
    page.wait_for_url(re.compile(r"window=1h"))
    assert page.get_by_role("link", name="the last hour").get_attribute("aria-current") == "page"
    assert page.locator("#by-outcome .legend li").all_inner_texts() == [
        f"{o}: {outcomes[o]}" for o in ("allow", "ask", "deny")]
    page.context.close()


PAGES = ("/", "/audit", "/agents", "/agents/shown-agent", "/charts", "/policy")


@pytest.mark.parametrize("size", sorted(WIDTHS))
def test_every_page_lays_out_is_not_blank_and_passes_axe(browser: Any, server: Server,
                                                         size: str) -> None:
    with agent_client(server, "shown-agent") as agent:
        ask(agent, f"deploy-prod --shown-{size}", session="s-shown", cwd="sub")
        agent.post("/v1/check", json={"command": "rm -rf / --shown"})
    page = sign_in(browser, server, "approver", f"ivy-{size}", size)
    fetched: list[str] = []
    errors: list[str] = []  # a refused inline script or style (CSP) is an error here
    page.on("request", lambda r: fetched.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    problems: dict[str, list[str]] = {}
    for path in PAGES:
        page.goto(server.url + path)
        page.wait_for_selector("main h2")
        name = path.strip("/").replace("/", "-") or "queue"
        screenshot_checked(page, f"{size}-{name}")
        problems[path] = (layout_problems(page) + landmark_problems(page)
                          + serious_violations(page))
    assert problems == {path: [] for path in PAGES}
    assert [u for u in fetched if not u.startswith(server.url + "/")] == []
    assert errors == []
    page.context.close()


def luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_the_chart_palette_stands_out_from_the_chart_background() -> None:
    """WCAG 1.4.11: each series colour at least 3:1 against the chart's white."""
    css = (STATIC / "console.css").read_text()
    fills = dict(re.findall(r"\.((?:o-|s)\w+) \{ fill: (#[0-9a-f]{6});", css))
    assert set(fills) == {"o-allow", "o-ask", "o-deny", *(f"s{i}" for i in range(6))}
    ratios = {name: (1.05) / (luminance(colour) + 0.05) for name, colour in fills.items()}
    assert {name: r for name, r in ratios.items() if r < 3.0} == {}
