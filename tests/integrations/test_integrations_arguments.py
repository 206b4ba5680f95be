"""What an MCP tool's arguments are read as: commands, paths, URLs."""

from __future__ import annotations

from typing import Any

import pytest

from clawgate.integrations.arguments import mcp_call
from clawgate.integrations.calls import BadInput, glob_base


@pytest.mark.parametrize(("args", "commands", "paths", "urls"), [
    ({"command": "ls -la"}, ("ls -la",), (), ()),
    ({"cmd": "git", "args": ["log", "-n", "1"]}, ("git log -n 1",), (), ()),
    ({"args": ["rm", "-rf", "a b"]}, ("rm -rf 'a b'",), (), ()),
    ({"script": ["python3", "-c", "print(1)"]}, ("python3 -c 'print(1)'",), (), ()),
    ({"shell": "echo hi", "cwd": "/tmp"}, ("echo hi",), ("/tmp",), ()),
    ({"path": "a.txt", "options": {"file": "b.txt", "deep": [{"dir": "c"}]}}, (),
     ("a.txt", "b.txt", "c"), ()),
    ({"url": "https://example.com/x"}, (), (), ("https://example.com/x",)),
    ({"uri": "file:///etc/passwd"}, (), ("/etc/passwd",), ()),
    ({"uri": "repo://issues/1"}, (), (), ()),
    ({"query": "see HTTP://10.0.0.1/a", "links": ["https://a.example/"]}, (), (),
     ("https://a.example/",)),
    ({"note": "http://10.0.0.1/a"}, (), (), ("http://10.0.0.1/a",)),
    ({"command": 3, "count": 2}, (), (), ()),
])
def test_arguments(args: dict[str, Any], commands: tuple[str, ...], paths: tuple[str, ...],
                   urls: tuple[str, ...]) -> None:
    call = mcp_call("srv__tool", args)
    assert (call.commands, call.reads, call.urls) == (commands, paths, urls)
    assert call.tool == "srv__tool"


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
