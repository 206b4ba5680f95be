"""Glob patterns are checked at every root they can expand to, and Gemini's web_fetch URLs are
read the way Gemini CLI reads them; both through the real hook entry points."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from clawgate.integrations.calls import BadInput
from clawgate.integrations.globs import glob_roots
from clawgate.integrations.webaddr import prompt_urls, url_problem

HookRunner = Callable[..., dict[str, Any]]  # the run_hook fixture (conftest.py)


@pytest.mark.parametrize(("pattern", "roots"), [
    ("src/**/*.py", ("src",)),
    ("{/etc,src}/*", ("src", "/etc")),
    ("{a,{b,/c}}/x/*", ("/c/x", "a/x", "b/x")),
    ("src/{a,b}/*.py", ("src/b", "src/a")),
    ("*.py", (".",)),
    ("/etc/*.conf", ("/etc",)),
    ("{/etc}/passwd", ("/etc/passwd",)),
])
def test_roots(pattern: str, roots: tuple[str, ...]) -> None:
    assert glob_roots(pattern) == roots


@pytest.mark.parametrize("pattern", [
    "*/../../../../etc/passwd", "**/../..", "..", "src/..", "{..,src}/*", "@(..|x)/y",
    "..\\..\\etc", "{a,b}/../x",
])
def test_climbing_patterns_are_refused(pattern: str) -> None:
    with pytest.raises(BadInput):
        glob_roots(pattern)


def test_brace_bombs_are_refused() -> None:
    with pytest.raises(BadInput):
        glob_roots("{a,b}" * 12)


def claude(ws: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"session_id": "s", "cwd": str(ws), "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": tool_input}


def gemini(ws: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"session_id": "s", "cwd": str(ws), "hook_event_name": "BeforeTool",
            "tool_name": tool, "tool_input": tool_input}


ADAPT_PATH, ADAPT_INPUT, ADAPT_URL = "CG-ADAPT-005", "CG-ADAPT-001", "CG-ADAPT-006"
GLOBS = [
    ("claude-code", "Glob", {"pattern": "{/etc,src}/*"}, ADAPT_PATH),
    ("claude-code", "Glob", {"pattern": "*/../../../../etc/passwd"}, ADAPT_INPUT),
    ("claude-code", "Glob", {"pattern": "**/../.."}, ADAPT_INPUT),
    ("claude-code", "Glob", {"pattern": "*", "path": "{/etc,src}"}, None),  # a literal dir
    ("claude-code", "Grep", {"pattern": "x", "glob": "{/etc,src}/*"}, ADAPT_PATH),
    ("claude-code", "Grep", {"pattern": "x", "path": "src", "glob": "../../*"}, ADAPT_INPUT),
    ("claude-code", "Glob", {"pattern": "src/{a,b}/*.py"}, None),
    ("gemini", "glob", {"pattern": "{/etc,src}/*"}, ADAPT_PATH),
    ("gemini", "glob", {"pattern": "*/../../x", "dir_path": "src"}, ADAPT_INPUT),
    ("gemini", "search_file_content", {"pattern": "x", "include": "{/etc,a}/*"}, ADAPT_PATH),
    ("gemini", "read_many_files", {"include": ["{src,/root}/**"]}, ADAPT_PATH),
    ("gemini", "read_many_files", {"paths": ["*/../../x"]}, ADAPT_INPUT),
    ("gemini", "read_many_files", {"include": ["src/**"], "exclude": ["/etc/**"]}, ADAPT_PATH),
    ("gemini", "read_many_files", {"include": ["src/**", "*.md"]}, None),
]


@pytest.mark.parametrize(("agent", "tool", "tool_input", "rule"), GLOBS)
def test_glob_patterns_in_hooks(run_hook: HookRunner, workspace: Path, agent: str, tool: str,
                                tool_input: dict[str, Any], rule: str | None) -> None:
    payload = (claude if agent == "claude-code" else gemini)(workspace, tool, tool_input)
    got = run_hook([agent], payload)
    said = got.get("decision") or got["hookSpecificOutput"]["permissionDecision"]
    reason = got.get("reason") or got["hookSpecificOutput"]["permissionDecisionReason"]
    assert (said, rule is None or rule in reason) == ("allow" if rule is None else "deny", True)


@pytest.mark.parametrize(("prompt", "urls"), [
    ("Summarise https://a.example/x and http://b.example.", ("https://a.example/x",
                                                            "http://b.example.")),
    ("see https://docs.python.org'@evil.example/ now", ("https://docs.python.org'@evil.example/",)),
    ("tab\thttps://a.example/\u00a0next https://b.example/", ("https://a.example/",
                                                            "https://b.example/")),
    ("no urls here", ()),
])
def test_prompt_urls_are_tokens_as_gemini_reads_them(prompt: str, urls: tuple[str, ...]) -> None:
    assert prompt_urls(prompt) == urls


@pytest.mark.parametrize(("url", "plain"), [
    ("https://docs.python.org/3/library/", True), ("http://127.0.0.1:8080/a?b=c#d", True),
    ("HTTPS://Docs.Python.org/", True), ("http://[::1]:80/", True),
    ("http://build_box.internal/", True),
    ("https://docs.python.org'@evil.example/", False), ("https://user@docs.python.org/", False),
    ("https://evil.example\\@docs.python.org/", False), ("https://evil.example\\.docs/", False),
    ("https://docs.python.org%2eevil.example/", False), ("https://evil\uff0eexample/", False),
    ("https://docs.python.org /x", False), ("https://a.example/\"x", False),
    ("ftp://a.example/", False), ("https://a.example:99999999/", False),
])
def test_plain_urls(url: str, plain: bool) -> None:
    assert (url_problem(url) is None) is plain


WEB_POLICY = "version: 1\nweb:\n  allowed_domains: [docs.python.org, 93.184.215.14]\n"


@pytest.mark.parametrize(("tool_input", "decision"), [
    ({"prompt": "see https://docs.python.org'@evil.example/ now"}, "deny"),
    ({"prompt": "see https://evil.example\\@docs.python.org/ now"}, "deny"),
    ({"prompt": "HTTPS://93.184.215.14/a and 'https://evil.example/'"}, "deny"),
    ({"prompt": "fetch https://93.184.215.14/docs"}, "allow"),
    ({"url": "https://docs.python.org'@evil.example/"}, "deny"),
    ({"url": "http://127.0.0.1:8080/"}, "deny"),
    ({"url": "https://93.184.215.14/x"}, "allow"),
    ({"prompt": "summarise", "url": "https://evil.example/"}, "deny"),
])
def test_gemini_web_fetch(run_hook: HookRunner, workspace: Path, tmp_path: Path,
                          tool_input: dict[str, Any], decision: str) -> None:
    policy = tmp_path / "web.yaml"
    policy.write_text(WEB_POLICY)
    got = run_hook(["gemini", "--policy", str(policy)], gemini(workspace, "web_fetch",
                                                               tool_input))
    assert got["decision"] == decision
    assert (decision == "allow") is ("CG-ADAPT-006" not in got["reason"])
