"""Every text of a failed call reaches the model scrubbed and capped, and so does its audit
line: a tool raising with a secret in its message, a pydantic ValidationError echoing its
input, a JSON Schema error echoing an argument, the caller's own secret environment values.
The adapters' Gate writes its audit lines through the same path."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from clawgate.approval import ApprovalStore
from clawgate.errors import ToolError, ToolErrorKind
from clawgate.executors import FakeExecutor
from clawgate.guard import CallContext, Guard
from clawgate.integrations.calls import Call
from clawgate.integrations.gate import Gate
from clawgate.policy.loader import load_policy

ENV_NAME = "CLAWGATE_PROBE_SERVICE_TOKEN"


def aws_key() -> str:
    return "AKIA" + "".join("QWERTYUIOPASDFGH")  # built at run time: never a real key


def env_secret() -> str:
    return "svc-" + os.urandom(12).hex()  # a value only this test knows


class Port(BaseModel):
    port: int


def _raises(secret: str) -> Callable[..., Any]:
    def leak(text: str) -> str:
        raise RuntimeError(f"the service refused the key {secret}")
    return leak


def _raises_tool_error(secret: str) -> Callable[..., Any]:
    def leak(text: str) -> str:
        raise ToolError(ToolErrorKind.EXECUTION_FAILED, f"upstream said: bad token {secret}")
    return leak


def _pydantic(secret: str) -> Callable[..., Any]:
    def leak(text: str) -> str:
        Port.model_validate({"port": secret})  # ValidationError: input_value='<secret>'
        return "unreachable"
    return leak


def _counts(secret: str) -> Callable[..., Any]:
    def leak(count: int) -> str:
        return str(count)
    return leak


# (case, the tool, its arguments, the kind the model sees)
CASES: list[tuple[str, Callable[[str], Callable[..., Any]], Callable[[str], dict[str, Any]],
                  ToolErrorKind]] = [
    ("exception", _raises, lambda s: {"text": "x"}, ToolErrorKind.EXECUTION_FAILED),
    ("tool-error", _raises_tool_error, lambda s: {"text": "x"}, ToolErrorKind.EXECUTION_FAILED),
    ("pydantic", _pydantic, lambda s: {"text": "x"}, ToolErrorKind.EXECUTION_FAILED),
    ("jsonschema", _counts, lambda s: {"count": s}, ToolErrorKind.INVALID_ARGS),
    ("arguments", _raises, lambda s: {"text": s}, ToolErrorKind.EXECUTION_FAILED),
]


def guard_with(tmp_path: Path, tool: Callable[..., Any]) -> Guard:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    guard = Guard.from_files(workspace=workspace, executor=FakeExecutor(),
                             audit_log=tmp_path / "audit.jsonl",
                             approval_store=ApprovalStore(workspace, state_dir=tmp_path / "st"))
    guard.tool(tool, name="leak")
    return guard


@pytest.mark.parametrize("where", ["detector", "environment"])
@pytest.mark.parametrize(("case", "make", "args", "kind"), CASES, ids=[c[0] for c in CASES])
def test_a_secret_in_an_error_never_reaches_the_model_or_the_audit_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, case: str,
        make: Callable[[str], Callable[..., Any]], args: Callable[[str], dict[str, Any]],
        kind: ToolErrorKind) -> None:
    secret = aws_key() if where == "detector" else env_secret()
    monkeypatch.setenv(ENV_NAME, env_secret() if where == "detector" else secret)
    guard = guard_with(tmp_path, make(secret))
    with pytest.raises(ToolError) as caught:
        guard.call("leak", args(secret))
    error = caught.value
    assert error.kind is kind
    shown = " ".join([str(error), error.message, repr(error.args), repr(error.reasons)])
    assert secret not in shown
    assert "[REDACTED:" in error.message
    assert error.__cause__ is None and error.__suppress_context__  # no raw text chained
    assert secret not in (tmp_path / "audit.jsonl").read_text()


def test_an_error_message_is_capped_like_a_result(tmp_path: Path) -> None:
    def flood(text: str) -> str:
        raise RuntimeError("x" * 1_000_000)

    guard = guard_with(tmp_path, flood)
    with pytest.raises(ToolError) as caught:
        guard.call("leak", {"text": "x"})
    message = caught.value.message
    assert len(message.encode()) <= guard.setup.max_result_bytes
    assert "bytes truncated" in message


def test_the_gate_audits_through_the_same_env_aware_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = env_secret()
    monkeypatch.setenv(ENV_NAME, secret)
    gate = Gate(load_policy(), workspace=tmp_path / "ws", audit_log=tmp_path / "audit.jsonl")
    call = Call("exec_shell", {"command": f"curl -H 'X-Token: {secret}' http://127.0.0.1/"},
                commands=(f"curl -H 'X-Token: {secret}' http://127.0.0.1/",))
    ctx = CallContext()
    gate.record(call, ctx, gate.decide(call, ctx), {"error": f"refused {secret}"})
    text = (tmp_path / "audit.jsonl").read_text()
    assert secret not in text
    assert "[REDACTED:" in text
    assert gate.path is not None and gate.path.scrubber is gate.scrubber


def test_check_refusals_are_scrubbed_too(tmp_path: Path) -> None:
    guard = guard_with(tmp_path, _counts(""))
    with pytest.raises(ToolError) as caught:
        guard.check("leak", {"count": aws_key()})
    assert caught.value.kind is ToolErrorKind.INVALID_ARGS
    assert aws_key() not in str(caught.value)
