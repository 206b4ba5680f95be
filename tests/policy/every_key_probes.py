"""Probe factories for ``test_policy_every_key.py``: each returns ``probe(surface, world)``,
which drives the surface for real and asserts the key's effect there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from every_key import AGENT, PROVIDER, SHELL_TOOL, SURFACES, World, decide, fetch, visible

Probe = Callable[[str, World], None]


# -- probes ---------------------------------------------------------------------------------

def _norm(surface: str, outcome: str) -> str:
    return "deny" if surface == "gemini" and outcome == "ask" else outcome  # gemini cannot ask


def changes(command: str, with_: list[str], without: list[str], expect: tuple[str, str]
            ) -> Probe:
    """The command's outcome is expect[0] with the manifests, expect[1] without."""
    def probe(surface: str, world: World) -> None:
        got = (decide(surface, world, with_, command)[0],
               decide(surface, world, without, command)[0])
        assert got == tuple(_norm(surface, e) for e in expect), (surface, got)
    return probe


def changes_there(command: str, there: str, with_: list[str], without: list[str],
                  expect: tuple[str, str]) -> Probe:
    """As ``changes``, with the directory ``there`` made in the workspace first (a delete of
    what is not there deletes nothing, and is allowed whatever the key)."""
    def probe(surface: str, world: World) -> None:
        got = []
        for texts in (with_, without):  # made again: a surface that runs the command deletes it
            (world.ws / there).mkdir(parents=True, exist_ok=True)
            got.append(decide(surface, world, texts, command)[0])
        assert tuple(got) == tuple(_norm(surface, e) for e in expect), (surface, got)
    return probe


def says(command: str, texts: list[str], needle: str) -> Probe:
    def probe(surface: str, world: World) -> None:
        outcome, reasons = decide(surface, world, texts, command)
        assert needle in reasons, (surface, outcome, reasons)
    return probe


def refuses(texts: list[str], needle: str) -> Probe:
    """The manifests do not load: an error, or a hook's deny naming the failure."""
    def probe(surface: str, world: World) -> None:
        outcome, text = decide(surface, world, texts, "ls")
        assert outcome in ("error", "deny") and needle in text, (surface, outcome, text)
        if outcome == "deny":
            assert "could not decide" in text
    return probe


def hides(template: str, base: str = "", tool: str | None = None, **ctx: Any) -> Probe:
    """The tool is visible with ``base`` and hidden once ``template`` is added. ``{T}`` is
    the surface's command tool, ``{A}`` its agent and ``{P}`` its provider."""
    def probe(surface: str, world: World) -> None:
        fill = {"T": SHELL_TOOL[surface], "A": AGENT[surface], "P": PROVIDER[surface]}
        texts = [base.format(**fill)] if base else []
        assert visible(surface, world, texts, tool, **ctx), surface
        assert not visible(surface, world, [*texts, template.format(**fill)], tool, **ctx), \
            surface
    return probe


def shows(template: str, base: str, **ctx: Any) -> Probe:
    """The tool is hidden with the manifest ``base`` and visible with ``template`` (the same
    plus the key)."""
    def probe(surface: str, world: World) -> None:
        fill = {"T": SHELL_TOOL[surface], "A": AGENT[surface], "P": PROVIDER[surface]}
        assert not visible(surface, world, [base.format(**fill)], **ctx), surface
        assert visible(surface, world, [template.format(**fill)], **ctx), surface
    return probe


def fetches(template: str, url: str, expect: tuple[bool, bool]) -> Probe:
    def probe(surface: str, world: World) -> None:
        got = (fetch(surface, world, [template], url), fetch(surface, world, [], url))
        assert got == expect, (surface, got)
    return probe


def guard_only(check: Callable[[World], None]) -> Probe:
    def probe(surface: str, world: World) -> None:
        assert surface == "guard"
        check(world)
    return probe


def on(**probes: Probe) -> dict[str, Probe]:
    return {surface.replace("_", "-"): p for surface, p in probes.items()}


def everywhere(probe: Probe) -> dict[str, Probe]:
    return dict.fromkeys(SURFACES, probe)


def agent_side(probe: Probe) -> dict[str, Probe]:
    return dict.fromkeys(("guard", "claude-code", "gemini", "mcp-proxy"), probe)
