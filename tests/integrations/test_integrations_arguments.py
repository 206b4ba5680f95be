"""What an MCP tool's arguments are read as: commands, paths, URLs."""

from __future__ import annotations

from typing import Any

import pytest

from clawgate.integrations.arguments import mcp_call
from clawgate.integrations.calls import BadInput, glob_base


@pytest.mark.parametrize(("args", "commands", "paths", "urls"), [
    ({"command": "ls -la"}, ("ls -la",), (), ()),
    ({"cmd": "git", "args": ["log", "-n", "1"]}, ("git log -n 1", "log", "-n", "1"), (), ()),
    ({"command": "ls -la", "args": "x; id"}, ("ls -la x; id",), (), ()),
    ({"args": ["rm", "-rf", "a b"]}, ("rm -rf 'a b'", "rm", "-rf", "a b"), (), ()),
    ({"script": ["python3", "-c", "print(1)"]},
     ("python3 -c 'print(1)'", "python3", "-c", "print(1)"), (), ()),
    ({"command": ["curl x | sh"]}, ("'curl x | sh'", "curl x | sh"), (), ()),
    ({"command": "ls", "shell": True}, ("ls",), (), ()),
    ({"path": ["a.txt", "/etc/passwd"], "url": ["https://a.example/", "file:///etc"]}, (),
     ("a.txt", "/etc/passwd", "/etc"), ("https://a.example/",)),
    ({"args": [1, 2], "count": 2}, (), (), ()),
    ({"shell": "echo hi", "cwd": "/tmp"}, ("echo hi",), ("/tmp",), ()),
    ({"path": "a.txt", "options": {"file": "b.txt", "deep": [{"dir": "c"}]}}, (),
     ("a.txt", "b.txt", "c"), ()),
    ({"url": "https://example.com/x"}, (), (), ("https://example.com/x",)),
    ({"uri": "file:///etc/passwd"}, (), ("/etc/passwd",), ()),
    ({"uri": "repo://issues/1"}, (), (), ()),
    ({"query": "see HTTP://10.0.0.1/a", "links": ["https://a.example/"]}, (), (),
     ("https://a.example/",)),
    ({"note": "http://10.0.0.1/a"}, (), (), ("http://10.0.0.1/a",)),
])
def test_arguments(args: dict[str, Any], commands: tuple[str, ...], paths: tuple[str, ...],
                   urls: tuple[str, ...]) -> None:
    call = mcp_call("srv__tool", args)
    assert (call.commands, call.reads, call.urls) == (commands, paths, urls)
    assert call.tool == "srv__tool"


@pytest.mark.parametrize(("args", "said"), [
    ({"command": 42}, "'command' must be a command line (a string) or an argv (a non-empty "
                      "list of strings), not a number"),
    ({"command": None}, "not null"),
    ({"cmd": {"line": "ls"}}, "not an object"),
    ({"script": True}, "not a bool"),
    ({"command": []}, "not an empty list"),
    ({"command": ["ls", 3]}, "not a list holding a non-string"),
    ({"command": "ls", "args": {"a": 1}}, "'args' beside a command must be a list of strings"),
    ({"command": "ls", "args": [None]}, "'args' beside a command must be a list of strings"),
    ({"path": 7}, "'path' must be a string or a list of strings, not a number"),
    ({"file": None}, "'file' must be a string or a list of strings, not null"),
    ({"dir": ["a", {"b": 1}]}, "not a list holding a non-string"),
    ({"url": {"href": "https://x"}}, "'url' must be a string or a list of strings"),
    ({"nested": {"deeper": {"cwd": False}}}, "'cwd' must be a string or a list of strings"),
])
def test_what_cannot_be_checked_is_refused(args: dict[str, Any], said: str) -> None:
    with pytest.raises(BadInput) as caught:
        mcp_call("srv__tool", args)
    assert said in str(caught.value)


def test_deep_nesting_is_refused() -> None:
    value: dict[str, Any] = {"x": "y"}
    for _ in range(40):
        value = {"inner": value}
    with pytest.raises(BadInput):
        mcp_call("srv__tool", value)


@pytest.mark.parametrize(("pattern", "base"), [
    ("**/*.py", "."), ("src/**/*.py", "src"), ("/etc/*.conf", "/etc"), ("../x/*", "../x"),
    ("/etc/passwd", "/etc/passwd"), ("/*", "/"), ("a/{b,c}/d", "a"),
])
def test_glob_base(pattern: str, base: str) -> None:
    assert glob_base(pattern) == base
