"""Guard end to end: every step of a call, on a real workspace and the real host executor."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from clawgate.approval import (
    ApprovalAnswer,
    ApprovalRequest,
    ApprovalStore,
    CallbackApprover,
)
from clawgate.audit import verify
from clawgate.errors import ToolError, ToolErrorKind
from clawgate.guard import CallContext, Guard


def fake_aws_key() -> str:
    return "AKIA" + "".join("QWERTYUIOPASDFGH")  # built at run time: never a real key


def write_policy(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text("version: 1\n" + text)
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("hello\n")
    return root


def make_guard(tmp_path: Path, workspace: Path, policy: str = "", **kwargs: object) -> Guard:
    manifests = [write_policy(tmp_path, policy)] if policy else []
    kwargs.setdefault("approval_store", ApprovalStore(workspace, state_dir=tmp_path / "state"))
    return Guard.from_files(*manifests, workspace=workspace, audit_log=tmp_path / "audit.jsonl",
                            **kwargs)


def kind_of(call: object) -> ToolErrorKind:
    with pytest.raises(ToolError) as caught:
        call()  # type: ignore[operator]
    return caught.value.kind


def test_unknown_tool_is_not_found(tmp_path: Path, workspace: Path) -> None:
    guard = make_guard(tmp_path, workspace)
    assert kind_of(lambda: guard.call("nope", {})) is ToolErrorKind.NOT_FOUND


def test_a_tool_the_policy_hides_is_permission_denied(tmp_path: Path, workspace: Path) -> None:
    guard = make_guard(tmp_path, workspace, "tools: {deny: [web_fetch]}\n")
    assert "web_fetch" not in guard.visible_tools()
    assert kind_of(lambda: guard.call("web_fetch", {"url": "https://example.com"})) is (
        ToolErrorKind.PERMISSION_DENIED)


@pytest.mark.parametrize("args", [{}, {"command": 3}, {"command": "ls", "extra": 1},
                                  {"command": "x" * (1 << 20 + 1)}, [1, 2]])
def test_bad_arguments(tmp_path: Path, workspace: Path, args: object) -> None:
    guard = make_guard(tmp_path, workspace)
    assert kind_of(lambda: guard.call("exec_shell", args)) is (  # type: ignore[arg-type]
        ToolErrorKind.INVALID_ARGS)


def test_allowed_command_runs_and_denied_one_never_does(tmp_path: Path, workspace: Path) -> None:
    guard = make_guard(tmp_path, workspace)
    assert guard.call("exec_shell", {"command": "cat notes.txt"})["stdout"] == "hello\n"
    with pytest.raises(ToolError) as caught:
        guard.call("exec_shell", {"command": "touch made && rm -rf /"})
    assert caught.value.kind is ToolErrorKind.PERMISSION_DENIED
    assert caught.value.reasons and "CG-" in caught.value.message
    assert not (workspace / "made").exists()


def test_ask_goes_to_the_approver_and_allow_always_is_remembered(
        tmp_path: Path, workspace: Path) -> None:
    asked: list[ApprovalRequest] = []

    def answer(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request)
        return ApprovalAnswer.ALLOW_ALWAYS

    rule = ("shell: {rules: [{id: ask-echo, command: [echo], decision: ask, why: check it,"
            " examples: {match: [echo hi], not_match: [ls]}}]}\n")
    denying = make_guard(tmp_path, workspace, rule)
    assert kind_of(lambda: denying.call("exec_shell", {"command": "echo hi"})) is (
        ToolErrorKind.PERMISSION_DENIED)
    guard = make_guard(tmp_path, workspace, rule, approver=CallbackApprover(answer))
    assert guard.call("exec_shell", {"command": "echo hi"})["stdout"] == "hi\n"
    assert guard.call("exec_shell", {"command": "echo hi"})["stdout"] == "hi\n"
    assert len(asked) == 1
    assert "policy:policy.yaml#ask-echo" in [r.rule_id for r in asked[0].reasons]


def test_output_is_scrubbed_and_truncated(tmp_path: Path, workspace: Path) -> None:
    guard = make_guard(tmp_path, workspace)
    key = fake_aws_key()
    out = guard.call("exec_shell", {"command": f"echo {key}"})["stdout"]
    assert key not in out and "[REDACTED:aws" in out
    big = guard.call("exec_shell", {"command": "head -c 200000 /dev/zero | tr '\\0' a"})
    assert len(big["stdout"].encode()) <= 65536 and "truncated" in big["stdout"]


def test_every_call_is_audited_and_the_chain_verifies(tmp_path: Path, workspace: Path) -> None:
    guard = make_guard(tmp_path, workspace)
    guard.call("read_file", {"path": "notes.txt"})
    for bad in ({"path": "../../etc/passwd"}, {"path": 5}):
        with pytest.raises(ToolError):
            guard.call("read_file", bad)
    lines = (tmp_path / "audit.jsonl").read_text().splitlines()
    assert len(lines) == 3
    assert verify(tmp_path / "audit.jsonl").ok


def test_rate_limit_and_turn_budget(tmp_path: Path, workspace: Path) -> None:
    limited = make_guard(tmp_path, workspace, "rate_limit: {calls_per_minute: 1, burst: 2}\n")
    ctx = CallContext(session="s1")
    for _ in range(2):
        limited.call("read_file", {"path": "notes.txt"}, ctx)
    with pytest.raises(ToolError, match="retry in") as caught:
        limited.call("read_file", {"path": "notes.txt"}, ctx)
    assert caught.value.kind is ToolErrorKind.PERMISSION_DENIED
    budget = make_guard(tmp_path, workspace, "hooks: {budgets: {max_tool_iterations: 2}}\n")
    for _ in range(2):
        budget.call("read_file", {"path": "notes.txt"})
    assert kind_of(lambda: budget.call("read_file", {"path": "notes.txt"})) is (
        ToolErrorKind.PERMISSION_DENIED)
    budget.new_turn()
    budget.call("read_file", {"path": "notes.txt"})


def test_decorator_round_trip_sync_and_async(tmp_path: Path, workspace: Path) -> None:
    guard = make_guard(tmp_path, workspace)

    @guard.tool
    def add(a: int, b: int = 2) -> int:
        """Add two numbers."""
        return a + b

    @guard.tool(name="shout")
    async def loud(text: str) -> dict[str, str]:
        """Upper-case text."""
        return {"text": text.upper()}

    assert guard.call("add", {"a": 1}) == {"result": 3}
    assert kind_of(lambda: guard.call("add", {"a": "one"})) is ToolErrorKind.INVALID_ARGS
    assert asyncio.run(guard.acall("shout", {"text": "hi"})) == {"text": "HI"}
    assert guard.call("shout", {"text": "x"}) == {"text": "X"}
    spec = {s["name"]: s for s in guard.specs("anthropic")}["add"]
    assert spec["input_schema"]["required"] == ["a"]


def test_paths_urls_and_readonly(tmp_path: Path, workspace: Path) -> None:
    guard = make_guard(tmp_path, workspace)
    assert kind_of(lambda: guard.call("read_file", {"path": "/etc/hostname"})) is (
        ToolErrorKind.INVALID_PATH)
    assert kind_of(lambda: guard.call("web_fetch", {"url": "http://127.0.0.1:9/"})) is (
        ToolErrorKind.PERMISSION_DENIED)
    readonly = make_guard(tmp_path, workspace, "autonomy: readonly\n")
    assert kind_of(lambda: readonly.call("write_file", {"path": "x", "content": "y"})) is (
        ToolErrorKind.PERMISSION_DENIED)
    assert not (workspace / "x").exists()
    assert readonly.call("read_file", {"path": "notes.txt"})["content"] == "hello\n"


def test_custom_command_tool_quotes_its_arguments(tmp_path: Path, workspace: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GREETING_SOURCE", "hello-from-env")
    policy = ("tools:\n  custom:\n    - name: greet\n      description: say something\n"
              "      command: 'echo {{word}} $GREETING'\n      timeout_s: 5\n"
              "      env: {GREETING: GREETING_SOURCE}\n"
              "      parameters: {type: object, required: [word],"
              " properties: {word: {type: string}}, additionalProperties: false}\n")
    guard = make_guard(tmp_path, workspace, policy)
    out = guard.call("greet", {"word": "x; touch pwned"})["stdout"]
    assert out == "x; touch pwned hello-from-env\n"
    assert not (workspace / "pwned").exists()
    assert kind_of(lambda: guard.call("greet", {})) is ToolErrorKind.INVALID_ARGS
    # quoted, a substitution is only text; the rendered line is still checked like exec_shell
    assert guard.call("greet", {"word": "$(id)"})["stdout"] == "$(id) hello-from-env\n"
    assert guard.check("greet", {"word": "a"}).command == "echo a $GREETING"


def test_custom_tool_checked_by_the_engine(tmp_path: Path, workspace: Path) -> None:
    policy = ("tools:\n  custom:\n    - name: wipe\n      command: 'rm -rf {{target}}'\n"
              "      parameters: {type: object, properties: {target: {type: string}}}\n")
    guard = make_guard(tmp_path, workspace, policy)
    assert kind_of(lambda: guard.call("wipe", {"target": "/"})) is (
        ToolErrorKind.PERMISSION_DENIED)
