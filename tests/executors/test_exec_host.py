"""The host executor against the real ``sh``: output, exit codes, timeouts, survivors, floods."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from clawgate.executors import ExecRequest, HostExecutor, Limits, SpawnLimiter
from proctable import gone, unique_sleep


@pytest.fixture
def host(workspace: Path, limiter: SpawnLimiter) -> HostExecutor:
    return HostExecutor(workspace=workspace, limiter=limiter, limits=Limits(kill_grace_s=0.3))


def test_output_and_exit_code(host: HostExecutor) -> None:
    result = host.run(ExecRequest("echo out; echo err >&2; exit 3"))
    assert (result.exit_code, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert not result.timed_out
    assert not result.truncated
    assert result.duration_ms >= 0  # filled in; its size is bench/bench_executors.py's business


def test_argv_runs_without_a_shell(host: HostExecutor) -> None:
    result = host.run(ExecRequest(["printf", "%s|", "a b", "$HOME", ";"]))
    assert result.stdout == "a b|$HOME|;|"


def test_missing_program_is_127(host: HostExecutor) -> None:
    result = host.run(ExecRequest(["no-such-program-here"]))
    assert result.exit_code == 127
    assert "no-such-program-here" in result.stderr


def test_killed_by_a_signal_is_128_plus_n(host: HostExecutor) -> None:
    assert host.run(ExecRequest("kill -9 $$")).exit_code == 137


def test_runs_in_the_workspace_and_cwd(host: HostExecutor, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    assert host.run(ExecRequest("pwd")).stdout.strip() == str(workspace)
    assert host.run(ExecRequest("pwd", cwd="sub")).stdout.strip() == str(workspace / "sub")


def test_a_secret_in_the_parent_environment_does_not_leak(
        host: HostExecutor, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI-leak-me")
    monkeypatch.setenv("TZ", "UTC")
    result = host.run(ExecRequest("env", env={"GIVEN": "yes"}))
    assert "wJalrXUtnFEMI" not in result.stdout
    assert "AWS_SECRET_ACCESS_KEY" not in result.stdout
    assert "GIVEN=yes" in result.stdout
    assert "TZ=UTC" in result.stdout


def test_timeout_kills_the_whole_group(host: HostExecutor) -> None:
    marker = unique_sleep()
    result = host.run(ExecRequest(f"sleep {marker} & sleep {marker}; echo never",
                                  timeout_s=0.3))
    assert result.timed_out
    assert result.exit_code == 124
    assert result.stdout == ""
    assert gone(marker)  # both sleepers, the backgrounded one too: the whole group


def test_timeout_escalates_to_sigkill(host: HostExecutor) -> None:
    marker = unique_sleep()
    result = host.run(ExecRequest(f"trap '' TERM; sleep {marker}", timeout_s=0.2))
    assert result.timed_out
    assert gone(marker)  # it ignores SIGTERM (inherited from the trap): only SIGKILL ends it


def test_output_before_a_timeout_is_kept(host: HostExecutor) -> None:
    # the timeout must come after the echo: 0.2 s did not always leave sh time to start
    # beside CPU-bound processes; the sleep is killed with the group whenever it comes
    result = host.run(ExecRequest("echo partial; sleep 600", timeout_s=3))
    assert result.timed_out
    assert result.stdout == "partial\n"


def test_a_backgrounded_process_does_not_survive(host: HostExecutor) -> None:
    marker = unique_sleep()
    # Held open by the sleeper's copy of the pipe, the run would last until its timeout.
    result = host.run(ExecRequest(f"sleep {marker} & echo started", timeout_s=60))
    assert result.stdout == "started\n"
    assert result.exit_code == 0
    assert not result.timed_out
    assert gone(marker)


def test_a_nohup_disowned_process_does_not_survive(host: HostExecutor) -> None:
    marker = unique_sleep()
    host.run(ExecRequest(f"nohup sleep {marker} >/dev/null 2>&1 & disown 2>/dev/null; true"))
    assert gone(marker)


def test_output_flood_is_capped(workspace: Path, limiter: SpawnLimiter) -> None:
    host = HostExecutor(workspace=workspace, limiter=limiter, limits=Limits(output_cap=4096))
    result = host.run(ExecRequest("head -c 50000000 /dev/zero; echo done >&2"))
    assert result.exit_code == 0  # the rest was read and dropped, not refused
    assert result.truncated
    assert len(result.stdout) == 4096
    assert result.stderr == "done\n"


def test_both_streams_flooding_at_once_do_not_deadlock(host: HostExecutor) -> None:
    result = host.run(ExecRequest("head -c 3000000 /dev/zero >&2 & head -c 3000000 /dev/zero; "
                                  "wait", timeout_s=20))
    assert not result.timed_out
    assert result.truncated
    assert len(result.stdout) == len(result.stderr) == 1024 * 1024


def test_exactly_the_cap_is_not_truncated(workspace: Path, limiter: SpawnLimiter) -> None:
    host = HostExecutor(workspace=workspace, limiter=limiter, limits=Limits(output_cap=100))
    result = host.run(ExecRequest("head -c 100 /dev/zero"))
    assert not result.truncated
    assert len(result.stdout) == 100


def test_undecodable_output_is_replaced(host: HostExecutor) -> None:
    assert host.run(ExecRequest(r"printf '\377ok'")).stdout == "\ufffdok"


def test_fifty_sleeps_with_a_queue_take_ten_waves(workspace: Path, limiter: SpawnLimiter) -> None:
    """50 concurrent `sleep 0.2` with a queue: all run, never more than 5 at once (counted by
    the limiter). The time it takes (2.0 s ± 20 %) is bench/bench_executors.py's figure."""
    host = HostExecutor(workspace=workspace, limiter=limiter,
                        limits=Limits(queue_timeout_s=300))
    with ThreadPoolExecutor(50) as pool:
        results = list(pool.map(host.run, [ExecRequest("sleep 0.2")] * 50))
    assert all(r.exit_code == 0 for r in results)
    assert limiter.peak == 5
    assert limiter.running == 0


def test_arun_runs_on_the_host(host: HostExecutor) -> None:
    marker = unique_sleep()

    async def main() -> list[str]:
        results = await asyncio.gather(host.arun(ExecRequest("echo a")),
                                       host.arun(ExecRequest(f"sleep {marker}", timeout_s=0.2)))
        return [r.stdout for r in results]

    assert asyncio.run(main()) == ["a\n", ""]
    assert gone(marker)


def test_a_program_that_closes_its_output_before_exiting_is_not_killed(
        host: HostExecutor) -> None:
    """coreutils close stdout at exit, a moment before they exit: that EOF is not the end."""
    results = [host.run(ExecRequest(["sleep", "0.001"])) for _ in range(30)]
    assert {r.exit_code for r in results} == {0}
    late = host.run(ExecRequest("exec >&- 2>&-; sleep 0.3; exit 3"))
    assert late.exit_code == 3  # the status of the end, after the sleep
    assert not late.timed_out
