"""Red team, the sandbox's newest parts: the credential-free copy of ``~/.npmrc`` and the
placeholders that hold protected paths a workspace lacks. Each attack is what a command (or a
second run of the same workspace) can do; real bubblewrap, real file systems.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from clawgate.errors import ExecutorError
from clawgate.executors import BwrapExecutor, ExecRequest, SpawnLimiter
from clawgate.executors.egress.netns import can_join, listen_in
from clawgate.executors.placeholders import Placeholders
from clawgate.executors.view import build_view
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


def _github_without_workflows(workspace: Path) -> Path:
    """A workspace whose ``.github`` has no ``workflows``: the sandbox holds that path empty."""
    (workspace / ".github" / "ISSUE_TEMPLATE").mkdir(parents=True)
    return workspace / ".github" / "workflows"


def test_no_placeholder_is_made_through_a_parent_swapped_for_a_link(
        home: Path, workspace: Path, tmp_path: Path) -> None:
    """Between the view and its mount points, a run of the same workspace swaps ``.github``
    for a link to a folder outside it: the mount point is not made there (a directory outside
    the workspace, by the guard's hand), and the run does not go on."""
    held_path = _github_without_workflows(workspace)
    view = build_view(workspace)
    assert str(held_path) in {m.path for m in view.mounts if m.placeholder}
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / ".github").rename(workspace / ".github-old")
    (workspace / ".github").symlink_to(outside)
    holds = Placeholders(linger_s=3600.0)
    refusals: list[str] = []
    with holds.hold(workspace) as held:
        try:
            held.claim(view)
        except ExecutorError as exc:
            refusals.append(str(exc))
        assert os.listdir(outside) == []  # what a sandbox started now would have
    holds.settle(workspace)
    assert os.listdir(outside) == []
    assert len(refusals) == 1
    assert "replaced by a link or a file" in refusals[0]


def test_removal_spares_the_users_own_directory_made_where_a_placeholder_was(
        home: Path, workspace: Path) -> None:
    """After a run, the user removes the empty placeholder and makes a directory of that name
    (the file system gives it the freed inode): the guard's removal must leave the user's
    directory alone."""
    held_path = _github_without_workflows(workspace)
    holds = Placeholders(linger_s=3600.0)
    with holds.hold(workspace) as held:
        held.claim(build_view(workspace))
    assert held_path.is_dir()
    held_path.rmdir()
    held_path.mkdir()
    holds.settle(workspace)
    assert held_path.is_dir()


UNSHARE, IP = shutil.which("unshare"), shutil.which("ip")
LOOPBACK_LATE_S = 1.5  # how long after it reports the namespace's loopback gets its address


@pytest.fixture
def late_loopback() -> Iterator[int]:
    """A process in a network namespace of its own whose loopback is up without 127.0.0.1 for
    a moment after it reports: the state bubblewrap's sandbox passes through while its loopback
    comes up (the kernel marks it up, then gives it its address), widened."""
    if UNSHARE is None or IP is None or not can_join():
        pytest.skip("needs unshare, ip and CAP_SYS_ADMIN")
    script = (f"{IP} link set lo up && {IP} addr del 127.0.0.1/8 dev lo && echo up; "
              f"sleep {LOOPBACK_LATE_S}; {IP} addr add 127.0.0.1/8 dev lo; exec sleep 120")
    child = subprocess.Popen([UNSHARE, "--net", "sh", "-c", script], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == b"up\n"
        yield child.pid
    finally:
        child.kill()
        child.wait(timeout=60)
        if child.stdout is not None:
            child.stdout.close()


def test_the_proxys_listener_waits_for_the_sandboxs_loopback(late_loopback: int) -> None:
    """The listener is made in a sandbox whose loopback has no address yet: it is made once
    the address is there, instead of failing the run ("Cannot assign requested address")."""
    listener = listen_in(late_loopback, 3128)
    try:
        assert listener.getsockname() == ("127.0.0.1", 3128)
        assert listener.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) == 1
    finally:
        listener.close()


def test_a_second_process_leaves_the_first_ones_placeholders_empty(
        home: Path, workspace: Path) -> None:
    """Two processes run in one workspace at once (two ``Placeholders``, each with its own
    lock on the workspace, as two processes have). The second must not make its mount points
    inside the first one's placeholders: they could then not be removed, and the workspace
    would be left with ``.cargo/config.toml`` a directory (cargo on the host then fails)."""
    first, second = Placeholders(linger_s=3600.0), Placeholders(linger_s=3600.0)
    with first.hold(workspace) as held_first:
        held_first.claim(build_view(workspace))
        assert (workspace / ".cargo").is_dir()
        with second.hold(workspace) as held_second:
            view = held_second.claim(build_view(workspace))
        second.settle(workspace)
    first.settle(workspace)
    second.settle(workspace)
    assert sorted(os.listdir(workspace)) == []
    assert str(workspace / ".cargo") in {m.path for m in view.mounts if m.placeholder}
