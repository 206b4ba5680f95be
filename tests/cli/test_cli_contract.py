"""The ``policy`` contract every subcommand keeps: click for all of them, ``-h``/``--help``,
``--version``, usage errors as exit 2 and one line, a closed stdout keeping the exit code."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import click
import pytest

import clawgate
from clawgate.cli import SUBCOMMANDS, main
from clawgate.cli.app import group
from clawgate.cli.exitcodes import ExitCode

ROOT = Path(__file__).resolve().parents[2]


def _paths() -> list[list[str]]:
    """Every subcommand, nested ones too, as the words that name it."""
    found: list[list[str]] = [[]]
    root = group(SUBCOMMANDS)
    ctx = click.Context(root)

    def walk(command: click.Command, words: list[str]) -> None:
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                child = command.get_command(ctx, name)
                assert child is not None, name
                found.append([*words, name])
                walk(child, [*words, name])

    walk(root, [])
    return found


PATHS = _paths()


def test_every_subcommand_is_a_click_command() -> None:
    ctx = click.Context(group(SUBCOMMANDS))
    for name in SUBCOMMANDS:
        assert isinstance(group(SUBCOMMANDS).get_command(ctx, name), click.Command), name
    assert ["audit", "verify"] in PATHS and ["hook", "install"] in PATHS


@pytest.mark.parametrize("words", PATHS, ids=lambda w: " ".join(w) or "policy")
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_everywhere(words: list[str], flag: str,
                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*words, flag]) == ExitCode.OK
    out = capsys.readouterr().out
    assert out.startswith(f"Usage: {' '.join(['policy', *words])} ")
    assert "-h, --help" in out


def test_version_is_pyproject_s(capsys: pytest.CaptureFixture[str]) -> None:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        expected = tomllib.load(handle)["project"]["version"]
    assert clawgate.__version__ == expected
    assert main(["--version"]) == ExitCode.OK
    assert capsys.readouterr().out == f"policy {expected}\n"


@pytest.mark.parametrize("argv", [
    [],
    ["nonsense"],
    ["audit"],
    ["check"],
    ["check", "--no-such-flag", "ls"],
    ["check", "-x", "ls"],
    ["check", "--json=yes", "ls"],
    ["check", "--policy"],
    ["check", "--cwd", "/nonexistent/dir", "ls"],
    ["check", "--cwd", __file__, "ls"],
    ["check", "--cwd=", "ls"],
    ["check", "--jsonl", "ls"],
    ["lint"],
    ["run", "--executor", "nowhere", "--", "ls"],
    ["tools", "--subagent-depth", "-1"],
    ["fuzz", "--invariant", "nope"],
    ["audit", "tail", "-n", "x", "f"],
    ["hook", "install", "vim"],
    ["import", "/nonexistent/settings.json"],
])
def test_usage_errors_exit_2_with_one_line(argv: list[str],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == ExitCode.USAGE
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1, captured.err
    assert captured.err.startswith("policy") and ": error: " in captured.err, captured.err
    assert captured.out == ""


def test_usage_error_names_the_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--cwd", "/nonexistent/dir", "ls"]) == ExitCode.USAGE
    assert capsys.readouterr().err == (
        "policy check: error: Invalid value for '--cwd': "
        "Directory '/nonexistent/dir' does not exist.\n")


def _with_closed_stdout(argv: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """Run ``policy ARGV`` with stdout a pipe whose reader is already gone (every write to it
    fails with EPIPE, as after ``| true``)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "clawgate", *argv], input=stdin,
                              stdout=write, stderr=subprocess.PIPE, check=False)
    finally:
        os.close(write)


@pytest.mark.parametrize(("argv", "code"), [
    (["check", "rm -rf /"], ExitCode.DENY),
    (["check", "--explain", "curl -s -X POST https://example.com"], ExitCode.ASK),
    (["check", "--json", "git status"], ExitCode.OK),
    (["schema"], ExitCode.OK),
    (["tools", "--explain"], ExitCode.OK),
    (["--help"], ExitCode.OK),
])
def test_a_closed_stdout_keeps_the_exit_code(argv: list[str], code: ExitCode) -> None:
    done = _with_closed_stdout(argv)
    assert done.returncode == code, done.stderr
    assert done.stderr == b""


def test_a_closed_stdout_keeps_jsonl_answering() -> None:
    done = _with_closed_stdout(["check", "--jsonl"], stdin=b'"ls"\n"rm -rf /"\n' * 2000)
    assert done.returncode == ExitCode.OK, done.stderr
    assert done.stderr == b""


def test_a_plain_shell_pipe_to_true_exits_4() -> None:
    script = f'{sys.executable} -m clawgate check "rm -rf /" | true; echo "${{PIPESTATUS[0]}}"'
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout == "4\n" and done.stderr == ""
