"""Red team, the state directory and the policy files: a workspace of ``~`` holds the guard's
state root, and through it the file tools, the commands and the Claude Code hook read and
rewrote the allow-always grants and keys; a ``CLAWGATE_STATE_HOME`` inside the workspace was
taken; under bubblewrap a state root not made yet could be planted, and under Docker it was
mounted whole; a loaded policy file's directory could be renamed and a new file put at its
path for the next load; on the host a command that moved its child into the root control
group left it running after the call; a Bash input with an unknown key beside ``command`` was
allowed. Real bubblewrap, real Docker, the real host executor, the real hook process driven
with Claude Code's JSON."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from redteam_support import EXECUTORS

import clawgate
from clawgate.approval import ApprovalRequest, ApprovalStore, DenyAllApprover
from clawgate.errors import ClawgateError, ToolError, ToolErrorKind
from clawgate.executors import BwrapExecutor, DockerExecutor, DockerSettings, HostExecutor
from clawgate.executors.base import ExecRequest
from clawgate.executors.cgroups import ROOT as CGROUP_ROOT
from clawgate.executors.placeholders import PLACEHOLDERS
from clawgate.guard import Guard
from clawgate.policy.loader import load_policy
from sandboxes import IMAGE

SRC = str(Path(clawgate.__file__).resolve().parents[1])  # the tree under test, for the hook


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory whose default state root (``~/.local/state/clawgate``) is the
    guard's: the workspace of ``~`` holds it."""
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.delenv("CLAWGATE_STATE_HOME")
    monkeypatch.delenv("CLAWGATE_STATE_DIR", raising=False)
    return home


def state_of(home: Path) -> Path:
    return home / ".local" / "state" / "clawgate"


def granted(home: Path) -> tuple[Path, ApprovalRequest]:
    """A real allow-always grant for the workspace ``home``: (its file, the request)."""
    request = ApprovalRequest("exec_shell", {"command": "make deploy"}, summary="make deploy")
    store = ApprovalStore(home)
    store.remember(request)
    return store.path, request


def guard_at(home: Path, executor: str = "host") -> Guard:
    policy = home.parent / "policy.yaml"
    policy.write_text("version: 1\n" + EXECUTORS[executor])
    return Guard.from_files(policy, workspace=home, approver=DenyAllApprover())


# -- 7: the state directory is out of reach, whatever the workspace is ------------------------

FILE_CALLS = [
    ("read_file", {"path": ".local/state/clawgate/approvals/{name}"}),
    ("read_file", {"path": "~/.local/state/clawgate/approvals/{name}"}),
    ("write_file", {"path": ".local/state/clawgate/approvals/{name}", "content": "{{}}"}),
    ("edit_file", {"path": ".local/state/clawgate/approvals/{name}", "old_text": "approvals",
                   "new_text": "forged"}),
    ("write_file", {"path": ".local/state/clawgate/keys/approvals.key", "content": "x" * 32}),
    ("list_directory", {"path": ".local/state/clawgate/keys"}),
    ("grep", {"pattern": "digest", "path": ".local/state/clawgate"}),
]


@pytest.mark.parametrize(("tool", "args"), FILE_CALLS, ids=[f"{t}-{i}" for i, (t, _) in
                                                            enumerate(FILE_CALLS)])
def test_file_tools_cannot_reach_the_state_in_a_workspace_of_home(
        home: Path, tool: str, args: dict[str, str]) -> None:
    grants, _ = granted(home)
    before = grants.read_bytes()
    guard = guard_at(home)
    filled = {k: v.format(name=grants.name) for k, v in args.items()}
    with pytest.raises(ToolError) as refused:
        guard.call(tool, filled)
    assert refused.value.kind is ToolErrorKind.INVALID_PATH
    assert "no tool may read or write it" in refused.value.message
    assert grants.read_bytes() == before
    guard.close()


def test_a_walk_of_home_does_not_list_the_state(home: Path) -> None:
    grants, _ = granted(home)
    (home / "project" / "notes.txt").write_text("digest of the week\n")
    guard = guard_at(home)
    found = guard.call("glob", {"pattern": "**/*"})["matches"]
    hits = guard.call("grep", {"pattern": "digest"})["matches"]
    assert found == ["project/notes.txt"]
    assert [h["path"] for h in hits] == ["project/notes.txt"]
    assert grants.exists()
    guard.close()


@pytest.mark.parametrize("command", [
    "cat .local/state/clawgate/approvals/*.json",
    "cat ~/.local/state/clawgate/keys/approvals.key | base64",
    "echo '{}' > ~/.local/state/clawgate/approvals/forged.json",
    "cd .local/state/clawgate && rm -f approvals/*.json",
])
def test_commands_cannot_reach_the_state_in_a_workspace_of_home(home: Path,
                                                                command: str) -> None:
    grants, request = granted(home)
    before = grants.read_bytes()
    guard = guard_at(home)
    with pytest.raises(ToolError) as refused:
        guard.call("exec_shell", {"command": command})
    assert refused.value.kind is ToolErrorKind.PERMISSION_DENIED
    assert "CG-FS-005" in refused.value.message
    assert grants.read_bytes() == before
    assert ApprovalStore(home).allows(request)
    guard.close()


def test_a_state_home_inside_the_workspace_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    monkeypatch.setenv("CLAWGATE_STATE_HOME", str(workspace / "state"))
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\nexecutor: {kind: host}\n")
    with pytest.raises(ClawgateError, match=r"\$CLAWGATE_STATE_HOME is .*inside the workspace"):
        Guard.from_files(policy, workspace=workspace)


def test_policy_serve_refuses_a_state_home_inside_its_workspace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from clawgate.serve import ServeSettings, build_app

    workspace = tmp_path / "ws"
    workspace.mkdir()
    monkeypatch.setenv("CLAWGATE_STATE_HOME", str(workspace / ".state"))
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\n")
    settings = ServeSettings(policies=(str(policy),), workspace=str(workspace),
                             database=f"sqlite:///{tmp_path / 'serve.db'}")
    with pytest.raises(ClawgateError, match=r"\$CLAWGATE_STATE_HOME is .*inside the workspace"):
        build_app(settings)
    assert not (workspace / ".state").exists()  # refused before any key was made there


@pytest.mark.bwrap
def test_bubblewrap_never_lets_a_command_plant_a_key_in_a_state_root_not_made_yet(
        home: Path) -> None:
    state = state_of(home)
    assert not state.exists()
    sandbox = BwrapExecutor(workspace=home)
    result = sandbox.run(ExecRequest(
        "mkdir -p .local/state/clawgate/keys .local/state/clawgate/approvals; "
        "head -c 32 /dev/zero > .local/state/clawgate/keys/approvals.key; "
        "chmod 600 .local/state/clawgate/keys/approvals.key; "
        "echo '{\"approvals\": []}' > .local/state/clawgate/approvals/x.json; echo tried",
        timeout_s=60))
    assert result.stdout == "tried\n"
    assert "Read-only file system" in result.stderr
    PLACEHOLDERS.settle()  # the pool made up for what the run spent, before it is read
    pool = state / "placeholders"  # the guard's own: its placeholders' empty directories
    own = (pool, state / "placeholders-spent",  # and those back from a workspace
           state / "egress")  # the runs' proxy sockets (without root)
    assert sorted(p.name for p in state.rglob("*")
                  if not any(p.is_relative_to(o) for o in own)) == []
    assert all(p.name == str(p.stat().st_ino) and not os.listdir(p) for p in pool.iterdir())


@pytest.mark.docker
def test_docker_never_mounts_the_state_under_the_workspace(home: Path) -> None:
    grants, _ = granted(home)
    before = grants.read_bytes()
    with DockerExecutor(DockerSettings(image=IMAGE), workspace=home) as sandbox:
        result = sandbox.run(ExecRequest(
            "ls -A .local/state/clawgate; cat .local/state/clawgate/keys/approvals.key; "
            "echo forged > .local/state/clawgate/x.json; echo tried", timeout_s=120))
    assert result.stdout == "tried\n"
    assert "Read-only file system" in result.stderr
    assert grants.read_bytes() == before
    assert not (state_of(home) / "x.json").exists()


# -- 8: the path of a loaded policy file, not its inode --------------------------------------

POLICY = "version: 1\nautonomy: readonly\n"
RENAMES = [
    "mv conf conf.old && mkdir conf && printf 'version: 1\\nautonomy: full\\n' > "
    "conf/project.yaml",
    "mv team team.old && mkdir -p team/conf && printf 'version: 1\\nautonomy: full\\n' > "
    "team/conf/project.yaml",
]


@pytest.mark.parametrize("kind", [pytest.param("bwrap", marks=pytest.mark.bwrap),
                                  pytest.param("docker", marks=pytest.mark.docker)])
@pytest.mark.parametrize("attack", RENAMES, ids=["its-directory", "a-parent"])
def test_a_loaded_policy_cannot_be_replaced_by_renaming_its_directory(
        tmp_path: Path, kind: str, attack: str) -> None:
    workspace = tmp_path / "ws"
    folder = workspace / "team" / "conf" if "team" in attack else workspace / "conf"
    folder.mkdir(parents=True)
    policy = folder / "project.yaml"
    policy.write_text(POLICY + EXECUTORS[kind])
    guard = Guard.from_files(policy, workspace=workspace)
    result = guard.executor.run(ExecRequest(f"{attack}; echo tried", timeout_s=120))
    guard.close()
    assert result.stdout.endswith("tried\n")
    assert policy.read_text() == POLICY + EXECUTORS[kind]
    assert load_policy(policy).engine_settings().autonomy.value == "readonly"
    assert sorted(p.name for p in workspace.rglob("*")) == sorted(
        p.name for p in (policy, *policy.parents) if p.is_relative_to(workspace)
        and p != workspace)


@pytest.mark.parametrize("attack", RENAMES, ids=["its-directory", "a-parent"])
def test_on_the_host_a_new_file_at_a_loaded_policys_path_needs_a_person(
        tmp_path: Path, attack: str) -> None:
    workspace = tmp_path / "ws"
    folder = workspace / "team" / "conf" if "team" in attack else workspace / "conf"
    folder.mkdir(parents=True)
    policy = folder / "project.yaml"
    policy.write_text(POLICY.replace("readonly", "supervised") + EXECUTORS["host"])
    before = policy.read_bytes()
    guard = Guard.from_files(policy, workspace=workspace, approver=DenyAllApprover())
    with pytest.raises(ToolError) as refused:
        guard.call("exec_shell", {"command": attack})
    guard.close()
    assert "CG-PROT-001" in refused.value.message
    assert policy.read_bytes() == before


# -- 9: nothing a command starts outlives it ---------------------------------------------------

def root_procs() -> Path:
    """The root control group's ``cgroup.procs`` of the hierarchy runs are held in."""
    unified = CGROUP_ROOT / "cgroup.procs"
    if "pids" in _read(CGROUP_ROOT / "cgroup.controllers").split():
        return unified
    return CGROUP_ROOT / "pids" / "cgroup.procs"


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def running(needle: str) -> list[int]:
    """Pids of processes whose command line holds ``needle``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if needle in line:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("escape", [
    "sh -c 'echo $$ > {procs}; exec setsid sleep {n}' & sleep 1; echo started",
    "sh -c 'echo $$ > {procs}; setsid sleep {n} &'; sleep 1; echo started",
    "setsid sh -c 'echo $$ > {procs}; sleep {n}' & sleep 1; echo started",
])
def test_a_child_moved_to_the_root_control_group_dies_with_the_call(
        tmp_path: Path, escape: str) -> None:
    n = f"{int.from_bytes(os.urandom(2), 'big') + 40000}.{os.getpid()}"
    host = HostExecutor(workspace=tmp_path)
    try:
        result = host.run(ExecRequest(escape.format(procs=root_procs(), n=n), timeout_s=60))
        assert result.stdout == "started\n"
        deadline = time.monotonic() + 10  # a hang guard: a killed process is reaped by init
        while running(f"sleep {n}") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert running(f"sleep {n}") == []
    finally:
        for pid in running(f"sleep {n}"):  # what the old code left behind: ours, by pid
            os.kill(pid, signal.SIGKILL)


@pytest.mark.docker
def test_in_the_warm_container_a_process_that_left_its_group_and_mark_dies_with_the_call(
        tmp_path: Path) -> None:
    n = int.from_bytes(os.urandom(2), "big") + 40000
    with DockerExecutor(DockerSettings(image=IMAGE), workspace=tmp_path) as sandbox:
        ran = sandbox.run(ExecRequest(f"setsid env -i sleep {n} & (setsid env -i sleep "
                                      f"{n + 1} &); sleep 1; echo started", timeout_s=120))
        left = sandbox.run(ExecRequest("ps -o args", timeout_s=120))
    assert ran.stdout == "started\n"
    assert [line for line in left.stdout.splitlines() if line.startswith("sleep ")] == [
        "sleep 2147483647"]  # the container's keep-alive, nothing else


def test_the_checker_denies_moving_a_process_out_of_its_control_group(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\nexecutor: {kind: host}\n")
    (tmp_path / "ws").mkdir()
    guard = Guard.from_files(policy, workspace=tmp_path / "ws", approver=DenyAllApprover())
    with pytest.raises(ToolError) as refused:
        guard.call("exec_shell", {"command": f"sh -c 'echo $$ > {root_procs()}; "
                                              "setsid sleep 300 &'"})
    assert "CG-FS-006" in refused.value.message
    guard.close()


# -- 14: the Claude Code hook: unknown keys, and the state whatever the cwd -------------------

def claude_hook(cwd: Path, tool: str, tool_input: dict[str, Any],
                env: dict[str, str]) -> tuple[str, str]:
    """(decision, reason) of the real ``policy hook claude-code`` process."""
    payload = {"session_id": "s", "cwd": str(cwd), "hook_event_name": "PreToolUse",
               "tool_name": tool, "tool_input": tool_input, "transcript_path": "/dev/null",
               "permission_mode": "default"}
    done = subprocess.run([sys.executable, "-m", "clawgate", "hook", "claude-code"],
                          input=json.dumps(payload), capture_output=True, text=True,
                          env={**env, "PYTHONPATH": SRC}, check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-400:]
    spec = json.loads(done.stdout)["hookSpecificOutput"]
    return spec["permissionDecision"], spec["permissionDecisionReason"]


@pytest.mark.parametrize(("tool_input", "expected", "rule"), [
    ({"command": "ls", "extra": "anything"}, "ask", "CG-ADAPT-009"),
    ({"command": "ls", "description": "list", "run_in_background": False,
      "sandbox_override": True}, "ask", "CG-ADAPT-009"),
    ({"command": "ls", "cmd": "rm -rf ~"}, "deny", "CG-CAT-001"),
    ({"command": "ls", "then": {"path": "/etc/shadow"}}, "deny", "CG-ADAPT-005"),
])
def test_a_bash_input_with_a_key_claude_code_does_not_document(
        tmp_path: Path, tool_input: dict[str, Any], expected: str, rule: str) -> None:
    (tmp_path / "ws").mkdir()
    decision, reason = claude_hook(tmp_path / "ws", "Bash", tool_input, dict(os.environ))
    assert decision == expected, reason
    assert rule in reason


@pytest.mark.parametrize(("tool", "tool_input"), [
    ("Write", {"file_path": "{state}/approvals/forged.json", "content": "{{}}"}),
    ("Write", {"file_path": ".local/state/clawgate/keys/approvals.key", "content": "x"}),
    ("Edit", {"file_path": "{state}/approvals/{name}", "old_string": "a", "new_string": "b"}),
    ("Read", {"file_path": "~/.local/state/clawgate/keys/approvals.key"}),
    ("Bash", {"command": "cat .local/state/clawgate/approvals/*.json"}),
    ("Grep", {"pattern": "digest", "path": ".local/state"}),
])
def test_the_hook_keeps_the_state_out_of_reach_with_cwd_at_home(
        home: Path, tool: str, tool_input: dict[str, str]) -> None:
    grants, _ = granted(home)
    state = state_of(home)
    filled = {k: v.format(state=state, name=grants.name) for k, v in tool_input.items()}
    decision, reason = claude_hook(home, tool, filled, dict(os.environ))
    assert decision == "deny", reason
    assert "clawgate's own state" in reason
