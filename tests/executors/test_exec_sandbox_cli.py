"""``executor.mounts`` in a manifest and ``policy run --explain-sandbox``: a bad entry stops
with ``file:line: what is wrong``; the view is printed (each path, its mode, why) and nothing
runs; a new user's ``.venv/bin/python -m ...`` runs in the default sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawgate.cli import main
from clawgate.policy.loader import load_policy
from sandboxview import CANARY, make_venv


def manifest(tmp_path: Path, text: str) -> str:
    path = tmp_path / "mounts-policy.yaml"
    path.write_text("version: 1\n" + text)
    return str(path)


BAD_ENTRIES = [
    ("{path: /srv, mode: writable, reason: x}", "executor.mounts[0].mode: Input should be"),
    ("{path: /srv, mode: hidden, reason: x, why: y}", "executor.mounts[0].why: unknown key"),
    ("{path: /srv, mode: hidden}", "executor.mounts[0].reason: Field required"),
    ("{path: '~bob/keys', mode: read-only, reason: x}", "~user paths are not allowed"),
    ("{path: ../elsewhere, mode: read-write, reason: x}", "'..' is not allowed"),
    ("{path: /, mode: read-write, reason: x}", "the whole file system cannot be one mount"),
    ("{path: /proc/1, mode: read-only, reason: x}", "/proc is the sandbox's own"),
    ("{path: '', mode: hidden, reason: x}", "executor.mounts[0].path: String should have"),
    ("{path: /srv, mode: read-only, reason: ''}", "executor.mounts[0].reason: String should"),
]


@pytest.mark.parametrize(("entry", "said"), BAD_ENTRIES)
def test_a_bad_mount_entry_stops_with_file_and_line(
        tmp_path: Path, repo: Path, entry: str, said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    policy = manifest(tmp_path, f"executor:\n  kind: bwrap\n  mounts:\n    - {entry}\n")
    code = main(["run", "--policy", policy, "--workspace", str(repo), "--", "touch ran"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"{policy}:5: "), err
    assert said in err
    assert not (repo / "ran").exists()


def test_mounts_of_every_layer_add_up_and_a_lock_keeps_only_its_own(tmp_path: Path) -> None:
    first = tmp_path / "a.yaml"
    first.write_text("version: 1\nexecutor:\n  mounts:\n"
                     "    - {path: /srv/a, mode: read-only, reason: one}\n")
    second = tmp_path / "b.yaml"
    second.write_text("version: 1\nexecutor:\n  mounts:\n"
                      "    - {path: /srv/b, mode: read-write, reason: two}\n"
                      "    - {path: /srv/c, mode: hidden, reason: three}\n")
    locked = tmp_path / "locked.yaml"
    locked.write_text("version: 1\nlocked: true\nexecutor:\n  mounts:\n"
                      "    - {path: /srv/l, mode: read-only, reason: admin}\n")
    paths = [m.path for m in load_policy(first, second).executor.mounts]
    assert paths == ["/srv/a", "/srv/b", "/srv/c"]
    paths = [m.path for m in load_policy(locked, first, second).executor.mounts]
    assert paths == ["/srv/l", "/srv/c"]  # an unlocked layer may only hide more


@pytest.mark.bwrap
def test_explain_sandbox_prints_the_view_and_runs_nothing(
        tmp_path: Path, repo: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    policy = manifest(tmp_path, f"executor:\n  kind: bwrap\n  mounts:\n"
                                f"    - {{path: {data}, mode: read-only, reason: datasets}}\n")
    code = main(["run", "--policy", policy, "--workspace", str(repo), "--explain-sandbox",
                 "--", "touch ran"])
    out, err = capsys.readouterr()
    assert code == 0
    assert not (repo / "ran").exists()
    modes = {line.split()[1]: line.split()[0] for line in out.splitlines()}
    assert modes[str(home)] == "read-only"
    assert modes[str(home / ".ssh")] == "hidden"
    assert modes[str(home / ".aws")] == "hidden"
    assert modes[str(repo)] == "read-write"
    assert modes[str(repo / ".git" / "hooks")] == "read-only"
    assert modes[str(repo / ".git" / "config")] == "read-only"
    assert modes[str(repo / ".github" / "workflows")] == "read-only"
    assert modes[str(data)] == "read-only"
    assert f"{data}  (policy: datasets)" in out
    assert err == "policy run: the bwrap sandbox shows:\n"


@pytest.mark.bwrap
def test_explain_sandbox_as_json(tmp_path: Path, repo: Path, home: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    policy = manifest(tmp_path, "executor: {kind: bwrap}\n")
    code = main(["run", "--policy", policy, "--workspace", str(repo), "--explain-sandbox",
                 "--json"])
    shown = json.loads(capsys.readouterr().out)
    assert code == 0
    assert shown["executor"] == "bwrap"
    entry = next(m for m in shown["mounts"] if m["path"] == str(home / ".ssh"))
    assert entry["mode"] == "hidden"
    assert "credential store" in entry["reason"]
    assert shown["env"]["PIP_CACHE_DIR"].endswith("/pip")


def test_explain_sandbox_of_the_host_says_there_is_none(
        tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = manifest(tmp_path, "executor: {kind: host}\n")
    code = main(["run", "--policy", policy, "--workspace", str(repo), "--explain-sandbox"])
    out, err = capsys.readouterr()
    assert (code, out) == (0, "")
    assert "no sandbox" in err


def test_no_command_and_no_explain_is_a_usage_error(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--workspace", str(repo)]) == 2
    assert "missing COMMAND" in capsys.readouterr().err


@pytest.mark.bwrap
def test_a_new_users_venv_runs_in_the_default_sandbox(
        repo: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The default policy (``kind: auto``: bubblewrap here), a ``.venv`` made by an
    interpreter that lives outside the workspace and the fake home."""
    make_venv(repo / ".venv")
    (repo / "test_x.py").write_text("print('ran')\n")
    code = main(["run", "--workspace", str(repo), "--", ".venv/bin/python test_x.py"])
    out, err = capsys.readouterr()
    assert (code, out) == (0, "ran\n"), err
    code = main(["run", "--workspace", str(repo), "--yes", "--",
                 ".venv/bin/python -c 'print(open(\"/dev/null\").read())'"])
    assert code == 0
    assert CANARY not in capsys.readouterr().out
