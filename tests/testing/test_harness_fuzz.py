"""The fuzz runner and ``policy fuzz``: counts per invariant, shrunk counter-examples, the
commands that reproduce them, exit codes 0, 2 and 4."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness_policies import Hang, blind

from clawgate.cli import main
from clawgate.cli.exitcodes import ExitCode
from clawgate.engine import Engine
from clawgate.testing.fuzz import FuzzConfig, run, run_one
from clawgate.testing.report import describe, shell_quote

# A deadline for `decides` that only a hang misses: its time bound (50 ms) is measured by
# bench/bench_fuzz.py and held by CI's `policy fuzz --examples 2000`, not asserted by a test.
HANG_MS = 10_000.0


def test_decides_holds_on_the_default_policy() -> None:
    result = run_one(Engine(), "decides", FuzzConfig(examples=60, deadline_ms=HANG_MS))
    assert (result.status, result.examples, result.applied) == ("ok", 60, 60)
    assert result.note.startswith("slowest ")


def test_a_blind_engine_fails_wrappers_with_a_shrunk_counterexample() -> None:
    result = run_one(blind(), "wrappers", FuzzConfig(examples=100))
    assert result.status == "FAIL"
    assert result.violation is not None
    assert result.violation.invariant == "wrappers"
    line = result.violation.arguments["line"]
    assert blind().check(line).outcome.label == "deny"
    assert blind().check(result.violation.arguments["wrapped_line"]).outcome.label != "deny"


def test_keep_going_counts_every_failing_example() -> None:
    result = run_one(blind(), "rewrites", FuzzConfig(examples=80, keep_going=True))
    assert result.status == "FAIL"
    assert 0 < result.failures < result.examples
    assert result.examples >= 80


def test_seeds_are_mixed_into_the_examples() -> None:
    config = FuzzConfig(examples=80, seeds=("rm -rf /srv/data",), only=("wrappers",))
    (result,) = run(blind(), config)
    assert result.status == "FAIL"


def test_a_failure_reads_with_the_commands_that_reproduce_it() -> None:
    config = FuzzConfig(examples=100, seed=7)
    result = run_one(blind(), "wrappers", config)
    text = "\n".join(describe(result, config, ["team.yaml"]))
    assert text.startswith("wrappers  FAIL     at example ")
    assert "policy check --policy team.yaml " in text
    assert "policy fuzz --policy team.yaml --invariant wrappers --examples 100 --seed 7" in text


@pytest.mark.parametrize(("text", "quoted"), [
    ("ls -la", "'ls -la'"),
    ("ls", "ls"),
    ("echo safe\rrm", "$'echo safe\\rrm'"),
    ("a'b\nc", "$'a\\'b\\nc'"),
    ("x\x00y", "$'x\\x00y'"),
    ("\udcff", "$'\\xff'"),
])
def test_shell_quote(text: str, quoted: str) -> None:
    assert shell_quote(text) == quoted


def test_cli_exit_0_when_the_invariants_hold(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fuzz", "--examples", "40", "--invariant", "decides",
                 "--deadline-ms", str(HANG_MS)])
    out = capsys.readouterr().out
    assert code == ExitCode.OK
    assert out.startswith("decides   ok       40 examples")


def test_cli_exit_4_and_a_saved_counterexample(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # A 0.1 ms deadline: the first line that needs a parser misses it.
    saved = tmp_path / "found.jsonl"
    code = main(["fuzz", "--examples", "50", "--invariant", "decides", "--deadline-ms", "0.1",
                 "--save", str(saved)])
    out = capsys.readouterr().out
    assert code == ExitCode.DENY
    assert "decides   FAIL" in out
    # Over the deadline in CPU time, or, on a loaded machine, the wall-clock watchdog (ten
    # deadlines) first: either way a decides failure, which is what is asserted.
    assert "over the 0.1 ms deadline" in out or "the checker hangs" in out
    assert "reproduce:    policy check " in out
    (record,) = [json.loads(line) for line in saved.read_text().splitlines()]
    assert record["invariant"] == "decides"
    assert set(record["arguments"]) == {"line", "deadline_ms"}


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fuzz", "--examples", "20", "--invariant", "decides", "--invariant", "audit",
                 "--jobs", "2", "--json", "--deadline-ms", str(HANG_MS)])
    value = json.loads(capsys.readouterr().out)
    assert code == ExitCode.OK
    assert value["ok"] is True
    assert [(i["name"], i["status"]) for i in value["invariants"]] == [
        ("decides", "ok"), ("audit", "ok")]


def test_invariants_run_at_once_in_workers_report_in_order() -> None:
    config = FuzzConfig(examples=15, only=("paths", "decides", "audit"), jobs=2,
                        deadline_ms=HANG_MS)
    seen: list[str] = []
    results = run(Engine(), config, on_result=lambda r: seen.append(r.name))
    assert [r.name for r in results] == seen == ["decides", "paths", "audit"]
    assert all(r.status == "ok" and r.examples >= 15 for r in results)


def test_a_counterexample_comes_back_whole_from_a_worker() -> None:
    config = FuzzConfig(examples=30, only=("decides", "wrappers"), jobs=2, deadline_ms=HANG_MS)
    failed = {r.name: r for r in run(blind(), config)}["wrappers"]
    assert failed.status == "FAIL" and failed.violation is not None
    assert failed.violation.invariant == "wrappers"
    assert set(failed.violation.arguments) == {"line", "wrapped_line"}


def test_audit_needs_the_manifests() -> None:
    result = run_one(Engine(), "audit", FuzzConfig(examples=5, policies=None))
    assert result.status == "skipped" and "manifests" in result.note


def test_cli_rejects_a_bad_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--invariant", "nonsense"]) == ExitCode.USAGE
    assert main(["fuzz", "--examples", "0"]) == ExitCode.USAGE


def test_cli_policy_file_examples_seed_the_run(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("clawgate.policy.loader", reason="needs the manifest loader")
    manifest = tmp_path / "team.yaml"
    manifest.write_text("version: 1\nshell:\n  rules:\n"
                        "  - id: no-force\n    command: [git, push, --force]\n"
                        "    decision: deny\n    why: rewrites history\n"
                        "    examples: {match: ['git push --force'], not_match: ['git push']}\n")
    code = main(["fuzz", "--policy", str(manifest), "--examples", "40", "--invariant",
                 "decides"])
    assert code == ExitCode.OK, capsys.readouterr()


def test_cli_policy_file_that_is_not_yaml_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("clawgate.policy.loader", reason="needs the manifest loader")
    manifest = tmp_path / "broken.yaml"
    manifest.write_text("rules: [\n")
    assert main(["fuzz", "--policy", str(manifest)]) == ExitCode.USAGE
    assert "broken.yaml" in capsys.readouterr().err


@pytest.mark.real_watchdog
def test_a_hang_ends_the_run_at_once_unshrunk() -> None:
    hang = Hang()
    engine = Engine(validators=[hang])
    result = run_one(engine, "decides", FuzzConfig(examples=200, seeds=("hang",)))
    assert result.status == "FAIL"
    assert result.violation is not None
    assert result.violation.hang
    assert result.violation.arguments["line"] == "hang"
    assert "not shrunk" in result.note
    assert hang.hung == 1  # one watchdog wait, not one per shrinking step
