"""Red team, the limits (issue 14): 30 commands at ``exec_per_minute: 2``; 50 threads against
the spawn cap of 5 (live processes, not calls); ``curl`` from a command to a real server on
127.0.0.1 and to the metadata address, and ``web_fetch`` to the same server. Real processes,
a real local HTTP server."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from redteam_support import EXECUTORS, guard_for

from clawgate.approval import DenyAllApprover
from clawgate.errors import ToolError, ToolErrorKind


def test_thirty_commands_at_two_a_minute_run_two(tmp_path: Path) -> None:
    guard = guard_for(tmp_path, EXECUTORS["host"] +
                      "rate_limit: {exec_per_minute: 2, calls_per_minute: 1000, burst: 100}\n"
                      "hooks: {budgets: {max_tool_iterations: 100}}\n")
    refused: list[str] = []
    for n in range(30):
        try:
            guard.call("exec_shell", {"command": f"touch ran-{n}"})
        except ToolError as exc:
            refused.append(exc.message)
    ran = sorted(p.name for p in (tmp_path / "ws").glob("ran-*"))
    assert (len(ran), len(refused)) == (2, 28)
    assert all("rate limit" in m for m in refused)
    guard.close()


def test_fifty_threads_never_run_more_than_the_cap_at_once(tmp_path: Path) -> None:
    guard = guard_for(tmp_path, "executor: {kind: host, max_concurrent: 5, queue_timeout_s: 0}\n"
                      "rate_limit: {exec_per_minute: 1000, calls_per_minute: 1000, burst: 1000}\n"
                      "hooks: {budgets: {max_tool_iterations: 1000}}\n")
    workspace = tmp_path / "ws"
    # each run marks itself in, waits until the test lets it go, marks itself out: the most
    # that are ever in at once is what the cap let through
    gate = workspace / "go"
    command = ("mkdir -p in && t=$(mktemp in/XXXXXX) && ls in | wc -l >> peaks && "
               "while [ ! -e go ]; do sleep 0.05; done; rm -f $t")
    start = threading.Barrier(50)
    results: list[str] = []

    def one() -> None:
        start.wait()
        try:
            guard.call("exec_shell", {"command": command, "timeout": 60})
            results.append("ran")
        except ToolError as exc:
            results.append(exc.kind.value)

    threads = [threading.Thread(target=one) for _ in range(50)]
    for thread in threads:
        thread.start()
    while len(list((workspace / "in").glob("*")) if (workspace / "in").exists() else []) < 5:
        if len(results) == 50:
            break
        threading.Event().wait(0.02)
    gate.write_text("")
    for thread in threads:
        thread.join()
    peaks = [int(x) for x in (workspace / "peaks").read_text().split()]
    assert max(peaks) <= 5
    assert results.count("ran") >= 5
    guard.close()


class _Recorder(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"local service\n")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def local_server() -> Iterator[tuple[int, list[str]]]:
    hits: list[str] = []
    handler = type("Recorder", (_Recorder,), {"hits": hits})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], hits
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.parametrize("spelling", ["127.0.0.1", "127.1", "0x7f000001", "2130706433",
                                      "localhost", "[::ffff:127.0.0.1]"])
def test_commands_to_a_local_service_are_high_and_need_approval(
        tmp_path: Path, local_server: tuple[int, list[str]], spelling: str) -> None:
    port, hits = local_server
    guard = guard_for(tmp_path, EXECUTORS["host"], approver=DenyAllApprover())
    for command in (f"curl -s http://{spelling}:{port}/curl",
                    f"wget -qO- http://{spelling}:{port}/wget",
                    f"python3 -c 'import urllib.request as u; "
                    f"u.urlopen(\"http://{spelling}:{port}/py\")'"):
        assert guard.check("exec_shell", {"command": command}).risk.name == "HIGH", command
        with pytest.raises(ToolError) as refused:
            guard.call("exec_shell", {"command": command})
        assert refused.value.kind is ToolErrorKind.PERMISSION_DENIED
    with pytest.raises(ToolError):
        guard.call("web_fetch", {"url": f"http://{spelling}:{port}/fetch"})
    assert hits == []
    guard.close()


@pytest.mark.parametrize("command", [
    "curl http://169.254.169.254/latest/meta-data/",
    "curl http://2852039166/latest/meta-data/",
    "wget -qO- http://0xa9fea9fe/latest/",
    "python3 -c 'import urllib.request as u; u.urlopen(\"http://169.254.169.254/\")'",
])
def test_the_metadata_address_is_denied_in_every_spelling(tmp_path: Path, command: str) -> None:
    guard = guard_for(tmp_path, EXECUTORS["host"])
    assert guard.check("exec_shell", {"command": command}).outcome.name == "DENY"
    guard.close()
