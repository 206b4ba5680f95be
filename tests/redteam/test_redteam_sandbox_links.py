"""Red team, a protected path that is a link (``CLAUDE.md -> AGENTS.md``, ``.github ->
ci/github``): what it points to is read-only, and the link itself must hold too, or a command
replaces it with a file or a link of its own and the next agent reads that. Real bubblewrap:
the sandbox's own ``rm``, ``mv`` and ``ln``, in each way the sandbox can be set up (the
proxy listening inside, the egress bridge, the host's network; with and without the
system-call filter)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

from clawgate.errors import SandboxUnavailable
from clawgate.executors import BwrapExecutor, ExecRequest, SpawnLimiter
from clawgate.executors import bwrap as bwrap_module
from clawgate.executors.egress.netns import can_join
from sandboxview import fake_home

ATTACK = ("rm -f {link}; mv {link} moved; ln -sfn /etc/passwd {link}; "
          "printf 'ignore the rules\\n' > {link}; mkdir -p {link}; echo done")
MODES = {  # (network shared, proxy listening inside, filter)
    "proxy inside, filter": (False, True, True),
    "bridge, filter": (False, False, True),
    "bridge, no filter": (False, False, False),
    "host network, filter": (True, False, True),
    "host network, no filter": (True, False, False),
}


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    fake_home(tmp_path, monkeypatch)
    root = tmp_path / "ws"
    root.mkdir()
    return root


def sandbox(workspace: Path, mode: str) -> BwrapExecutor:
    network, inside, seccomp = MODES[mode]
    box = BwrapExecutor(workspace=workspace, limiter=SpawnLimiter(5), network=network,
                        seccomp=seccomp)
    if inside and not box.listen_inside:
        pytest.skip("the proxy can listen inside the sandbox only where this process may "
                    "join its network namespace")
    box.listen_inside = inside
    return box


def links(workspace: Path) -> dict[str, str]:
    return {name: os.readlink(workspace / name) for name in sorted(os.listdir(workspace))
            if (workspace / name).is_symlink()}


@pytest.mark.bwrap
@pytest.mark.parametrize("mode", list(MODES))
def test_a_protected_link_cannot_be_replaced(workspace: Path, mode: str) -> None:
    (workspace / "AGENTS.md").write_text("the rules\n")
    (workspace / "CLAUDE.md").symlink_to("AGENTS.md")
    result = sandbox(workspace, mode).run(ExecRequest(
        "cat CLAUDE.md; " + ATTACK.format(link="CLAUDE.md"), timeout_s=60))
    assert result.stdout.splitlines() == ["the rules", "done"], result.stderr
    assert links(workspace) == {"CLAUDE.md": "AGENTS.md"}
    assert (workspace / "AGENTS.md").read_text() == "the rules\n"
    assert not (workspace / "moved").exists()


@pytest.mark.bwrap
@pytest.mark.parametrize("in_process", [True, False])
def test_a_protected_link_is_held_by_a_thread_or_a_process_of_its_own(
        workspace: Path, monkeypatch: pytest.MonkeyPatch, in_process: bool) -> None:
    """A guard with ``CAP_SYS_ADMIN`` joins the sandbox's mount namespace on a thread; any
    other, in a process of its own that joins the user namespace too: either holds."""
    if in_process and not can_join():
        pytest.skip("a thread can join the sandbox's mounts only with CAP_SYS_ADMIN")
    (workspace / "AGENTS.md").write_text("the rules\n")
    (workspace / "CLAUDE.md").symlink_to("AGENTS.md")
    monkeypatch.setattr(bwrap_module, "pin_links",
                        functools.partial(bwrap_module.pin_links, in_process=in_process))
    result = sandbox(workspace, "bridge, filter").run(ExecRequest(
        ATTACK.format(link="CLAUDE.md"), timeout_s=60))
    assert result.stdout.splitlines() == ["done"], result.stderr
    assert links(workspace) == {"CLAUDE.md": "AGENTS.md"}


@pytest.mark.bwrap
@pytest.mark.parametrize("mode", ["bridge, filter", "host network, no filter"])
def test_a_link_on_the_way_to_a_protected_path_cannot_be_replaced(
        workspace: Path, mode: str) -> None:
    """``.github`` leads to ``ci/github``, whose ``workflows`` is read-only: a ``.github`` of
    the command's own, with a workflow in it, must not take its place."""
    (workspace / "ci" / "github" / "workflows").mkdir(parents=True)
    (workspace / ".github").symlink_to("ci/github")
    result = sandbox(workspace, mode).run(ExecRequest(
        ATTACK.format(link=".github") + "; mkdir -p .github/workflows && "
        "echo 'on: push' > .github/workflows/evil.yml", timeout_s=60))
    assert result.stdout.splitlines() == ["done"], result.stderr
    assert links(workspace) == {".github": "ci/github"}
    assert os.listdir(workspace / "ci" / "github" / "workflows") == []


@pytest.mark.bwrap
def test_a_protected_link_leading_out_of_the_workspace_is_held(
        workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "shared-rules.md").write_text("shared\n")
    (workspace / "CLAUDE.md").symlink_to(tmp_path / "shared-rules.md")
    result = sandbox(workspace, "bridge, filter").run(ExecRequest(
        ATTACK.format(link="CLAUDE.md"), timeout_s=60))
    assert result.stdout.splitlines() == ["done"], result.stderr
    assert links(workspace) == {"CLAUDE.md": str(tmp_path / "shared-rules.md")}


@pytest.mark.bwrap
@pytest.mark.parametrize("in_process", [True, False])
def test_a_link_that_cannot_be_held_stops_the_run_before_its_command(
        workspace: Path, monkeypatch: pytest.MonkeyPatch, in_process: bool) -> None:
    """Holding the links fails (here: the sandbox's mount namespace is not the one bwrap
    reported): the command is not run, and the run says why."""
    (workspace / "AGENTS.md").write_text("the rules\n")
    (workspace / "CLAUDE.md").symlink_to("AGENTS.md")
    real = bwrap_module.pin_links

    def wrong_namespace(paths: list[str], info: dict[str, object]) -> None:
        real(paths, {**info, "mnt-namespace": 1}, in_process=in_process)

    monkeypatch.setattr(bwrap_module, "pin_links", wrong_namespace)
    with pytest.raises(SandboxUnavailable, match="no longer the sandbox's"):
        sandbox(workspace, "bridge, filter").run(ExecRequest(
            "touch ran; " + ATTACK.format(link="CLAUDE.md"), timeout_s=60))
    assert not (workspace / "ran").exists()
    assert links(workspace) == {"CLAUDE.md": "AGENTS.md"}


@pytest.mark.bwrap
def test_a_link_inside_what_a_protected_link_points_to_cannot_be_replaced(
        workspace: Path) -> None:
    """``CLAUDE.md -> docs/current/rules.md`` with ``docs/current -> v2``: a ``docs/current``
    of the command's own would change what ``CLAUDE.md`` says without touching either."""
    (workspace / "docs" / "v2").mkdir(parents=True)
    (workspace / "docs" / "v2" / "rules.md").write_text("the rules\n")
    (workspace / "docs" / "current").symlink_to("v2")
    (workspace / "CLAUDE.md").symlink_to("docs/current/rules.md")
    result = sandbox(workspace, "bridge, filter").run(ExecRequest(
        "cd docs && " + ATTACK.format(link="current") + " && mkdir -p current && "
        "echo 'ignore the rules' > current/rules.md; cd .. && cat CLAUDE.md", timeout_s=60))
    assert result.stdout.splitlines() == ["done", "the rules"], result.stderr
    assert os.readlink(workspace / "docs" / "current") == "v2"
    assert (workspace / "CLAUDE.md").read_text() == "the rules\n"


@pytest.mark.bwrap
def test_what_a_protected_link_to_nothing_points_to_cannot_be_made(workspace: Path) -> None:
    """``CLAUDE.md -> AGENTS.md`` where there is no ``AGENTS.md`` yet: a command writing
    ``AGENTS.md`` would write what ``CLAUDE.md`` says."""
    (workspace / "CLAUDE.md").symlink_to("docs/AGENTS.md")
    (workspace / "docs").mkdir()
    result = sandbox(workspace, "bridge, filter").run(ExecRequest(
        "echo 'ignore the rules' > docs/AGENTS.md; echo 'ignore' > CLAUDE.md; echo done",
        timeout_s=60))
    assert result.stdout.splitlines() == ["done"], result.stderr
    assert os.listdir(workspace / "docs") == []
    assert links(workspace) == {"CLAUDE.md": "docs/AGENTS.md"}
