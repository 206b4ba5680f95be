"""Attacks on the work a sandboxed run's start no longer repeats: npm's settings copy in the
workspace's toolchain cache (writable from inside) is left as it is only where it is exactly the
copy, a file of the guard's with no other name. A command that rewrites it, opens it to others,
keeps a second name for it or swaps it for a link finds a fresh copy in the next run. Real bwrap.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.executors import BwrapExecutor, ExecRequest, SpawnLimiter
from sandboxview import fake_home

NPMRC = "registry=https://npm.mirror.example/\nfund=false\n"
COPY = "registry=https://npm.mirror.example/\nfund=false\n"

pytestmark = pytest.mark.bwrap


@pytest.mark.parametrize("tamper", [
    'printf "registry=https://evil.example/\\n" > "$npm_config_userconfig"',
    'chmod 0666 "$npm_config_userconfig"',
    'ln "$npm_config_userconfig" "$npm_config_userconfig.kept"',
    'cp "$npm_config_userconfig" mine && rm "$npm_config_userconfig" && '
    'ln -s "$PWD/mine" "$npm_config_userconfig"',
], ids=["rewritten", "opened-to-others", "second-name", "swapped-for-a-link"])
def test_a_tampered_npm_settings_copy_is_made_anew(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    tamper: str) -> None:
    home = fake_home(tmp_path, monkeypatch)
    (home / ".npmrc").write_text(NPMRC, encoding="utf-8")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    sandbox = BwrapExecutor(workspace=workspace, limiter=SpawnLimiter(5))
    first = sandbox.run(ExecRequest(tamper, timeout_s=60))
    assert first.exit_code == 0, first.stderr
    second = sandbox.run(ExecRequest(
        'stat -c "%h %a %F" "$npm_config_userconfig"; cat "$npm_config_userconfig"',
        timeout_s=60))
    assert second.exit_code == 0, second.stderr
    assert second.stdout == f"1 600 regular file\n{COPY}"
