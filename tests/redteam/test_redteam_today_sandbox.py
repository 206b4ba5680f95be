"""Red team, the sandbox's newest parts: the credential-free copy of ``~/.npmrc`` and the
placeholders that hold protected paths a workspace lacks. Each attack is what a command (or a
second run of the same workspace) can do; real bubblewrap, real file systems.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.executors import BwrapExecutor, ExecRequest, SpawnLimiter
from sandboxview import fake_home

# Fake credential-shaped strings: none may be readable inside a sandbox.
NPM_SECRETS = ("npm_FAKEuserinfoSECRET01", "npm_FAKEscopeSECRET02", "npm_FAKEcommentSECRET03",
               "npm_FAKEhashSECRET04")
NPMRC = (
    f"registry=https://me:{NPM_SECRETS[0]}@npm.mirror.example/\n"
    f"@corp:registry=\"https://{NPM_SECRETS[1]}@npm.corp.example/\"\n"
    f"fund=false ; //npm.corp.example/:_authToken={NPM_SECRETS[2]}\n"
    f"audit=false # _auth={NPM_SECRETS[3]}\n"
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fake_home(tmp_path, monkeypatch)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def limiter() -> SpawnLimiter:
    return SpawnLimiter(5)


@pytest.mark.bwrap
def test_npmrc_copy_holds_no_credential_of_a_url_or_a_comment(
        home: Path, workspace: Path, limiter: SpawnLimiter) -> None:
    """A registry URL's user information and a comment after a setting are credentials the
    copy must not carry: the command reads the copy and finds the hosts, not the tokens."""
    (home / ".npmrc").write_text(NPMRC, encoding="utf-8")
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter)
    result = sandbox.run(ExecRequest('cat "$npm_config_userconfig"', timeout_s=60))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        "registry=https://npm.mirror.example/",
        "@corp:registry=\"https://npm.corp.example/\"",
        "fund=false",
        "audit=false",
    ]
    assert [s for s in NPM_SECRETS if s in result.stdout + result.stderr] == []
