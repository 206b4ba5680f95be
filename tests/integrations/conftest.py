"""Shared by the adapter tests: a workspace, a test policy, and a way to feed a hook."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

POLICY = """\
version: 1
tools:
  deny: [web_search, fs__delete, demo__hidden]
shell:
  rules:
    - id: no-deploy
      command: [deploy-prod]
      decision: deny
      why: deploys to production
      hint: use the release pipeline
      examples: {match: [deploy-prod --now], not_match: [deploy-staging]}
    - id: ask-publish
      command: [publish-release]
      decision: ask
      why: publishes a release
      examples: {match: [publish-release v1], not_match: [publish-notes]}
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "notes.txt").write_text("hello\n")
    return Path(os.path.realpath(root))


@pytest.fixture
def policy_file(tmp_path: Path) -> Path:
    path = tmp_path / "test.yaml"
    path.write_text(POLICY)
    return path


HookRunner = Callable[..., dict[str, Any]]


@pytest.fixture
def run_hook(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> HookRunner:
    """Feed ``payload`` (an object, or raw text) to ``policy hook ARGS`` in-process."""
    from clawgate.cli import main

    def run(args: list[str], payload: object) -> dict[str, Any]:
        raw = payload if isinstance(payload, str) else json.dumps(payload)
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(raw.encode())))
        code = main(["hook", *args])
        out = capsys.readouterr().out
        assert code == 0
        assert out.count("\n") == 1
        value: dict[str, Any] = json.loads(out)
        return value

    return run
