"""Red team, the checker's bounds: a 100 kB line of many ``sed -e`` ran for minutes (the sed
patterns' blanks spanned newlines: cubic work, and so did those of sed's risk table, of the
console escapes, ``psql -c`` and ``vim -c``, and of a ``pip install`` name); ``x=$x$x``
doubled 22 times built a 4 MB value and a gigabyte of memory. Every decision is bounded in
work, and past the bound it is DENY naming the bound.

No clock: the slow lines run as the real ``policy check`` in a child process whose time limit
is a hang guard only (far above what they take), and the work is asserted by its structure: the
value resolution builds is capped, the engine's budget counts steps.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clawgate.bounds import Budget, OverBudget, bounded
from clawgate.decision import Outcome
from clawgate.engine import BOUND_ID, Engine
from clawgate.programs.languages import sed_commands, sed_effects
from clawgate.shell import parse
from clawgate.shell.constants import resolved_line
from clawgate.shell.expand import MAX_VALUE, expand

HANG_GUARD_S = 120  # a hang detector: each line takes under a second of CPU here

ENGINE = Engine(cache_size=0)
SED_100K = "sed " + " ".join(f"-e 's/a{i}/b/'" for i in range(7_200))
DOUBLED = "x=a; " + "x=$x$x; " * 22


def _policy_check(line: str, tmp_path: Path) -> tuple[int, dict[str, object]]:
    """``policy check --jsonl`` of one line in a child process (exit code, its answer)."""
    env = {**os.environ, "CLAWGATE_STATE_HOME": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-m", "clawgate", "check", "--jsonl"],
                          input=json.dumps(line) + "\n", capture_output=True, text=True,
                          env=env, timeout=HANG_GUARD_S, check=False)
    return done.returncode, json.loads(done.stdout.splitlines()[0])


@pytest.mark.parametrize(("line", "expected"), [
    (SED_100K, "allow"),  # a hundred kilobytes of plain substitutions
    ("sed '" + "\n" * 2_000 + "p' notes.txt", "allow"),  # 400 newlines took 32 s
    ("sed '" + " " * 50_000 + "p' notes.txt", "allow"),
    ("sed '" + "\n" * 2_000 + "1e id' notes.txt", "ask"),  # still read: e runs a command
    ("sed '" + ";" * 20_000 + "w /etc/cron.d/x' notes.txt", "deny"),  # a start-up file
    ("psql -c '" + "\n " * 100_000 + "select 1'", "allow"),  # 12,000 lines took 11 s
    ("vim -c '" + " " * 50_000 + "wq' notes.txt", "allow"),
    ("sqlite3 db '" + "\n" * 50_000 + ".shell id'", "ask"),
    ("pip install '" + " " * 200_000 + "requests'", "ask"),  # 10,000 blanks took 2.5 s
    (DOUBLED + "echo $x", "allow"),  # the value is unknown past 64 KiB: echo of anything
    ("x=/; " + "x=$x$x; " * 22 + "rm -rf $x", "ask"),  # unknown: never ALLOW
])
def test_pathological_lines_get_their_decision(line: str, expected: str,
                                               tmp_path: Path) -> None:
    code, answer = _policy_check(line, tmp_path)
    assert (code, answer["outcome"]) == (0, expected), answer["reasons"]


def test_a_sed_script_is_read_in_one_pass_command_by_command() -> None:
    script = "\n".join(f"s/a{i}/b/" for i in range(7_200))
    commands = sed_commands(script)
    assert commands is not None and len(commands) == 7_200
    assert sed_commands("\n" * 100_000 + "1e id") == ["e id"]
    assert [e.kind for e in sed_effects("\n" * 100_000 + "w /etc/x")] == ["write"]


@pytest.mark.parametrize(("script", "kinds"), [
    ("s/a/b/w /etc/x\n" + "\n" * 10_000, ["write"]),
    ("1e id", ["run"]),
    ("s/x/y/e", ["run"]),
    ("r /etc/shadow", ["read"]),
    ("s" + "".join(chr(0x2200 + i) for i in range(5_000)), ["run"]),  # unreadable and long
])
def test_sed_effects_of_long_and_unreadable_scripts(script: str, kinds: list[str]) -> None:
    assert [e.kind for e in sed_effects(script)] == kinds


def test_the_value_resolution_builds_is_capped() -> None:
    assert expand("$x$x", {"x": "a" * (MAX_VALUE // 2)}) == ["a" * MAX_VALUE]
    assert expand("$x$x", {"x": "a" * (MAX_VALUE // 2 + 1)}) is None  # unknown past the cap
    at_cap = resolved_line(parse("x=a; " + "x=$x$x; " * 16 + "echo $x"))
    assert at_cap is not None and "a" * MAX_VALUE in at_cap
    assert resolved_line(parse("x=a; " + "x=$x$x; " * 17 + "echo $x")) is None  # as written


def test_the_dangerous_word_of_a_capped_value_is_still_judged_unknown() -> None:
    decision = ENGINE.check("x=/; " + "x=$x$x; " * 22 + "rm -rf $x")
    assert decision.outcome is Outcome.ASK
    assert [r.rule_id for r in decision.reasons] == ["CG-DEST-009"]


def test_resolution_work_past_the_budget_is_deny_naming_it() -> None:
    line = f"x={'a' * 60_000}; echo " + "$x " * 400  # 24 MB of words to build
    decision = ENGINE.check(line)
    assert decision.outcome is Outcome.DENY
    assert [r.rule_id for r in decision.reasons] == [BOUND_ID]
    assert "steps of work" in decision.reasons[0].message


@pytest.mark.parametrize(("engine", "words"), [
    (Engine(cache_size=0, max_steps=5), "steps of work"),
    (Engine(cache_size=0, max_cpu_seconds=0), "s of CPU time"),
])
def test_an_engine_past_its_bound_denies_with_the_bound_named(engine: Engine,
                                                              words: str) -> None:
    decision = engine.check("ls -l && git status")
    assert decision.outcome is Outcome.DENY
    assert [r.rule_id for r in decision.reasons] == [BOUND_ID]
    assert words in decision.reasons[0].message


def test_a_budget_counts_steps_and_stops_at_its_bound() -> None:
    budget = Budget(steps=100)
    with bounded(budget):
        for _ in range(100):
            budget.charge()
        assert budget.spent == 100
        with pytest.raises(OverBudget, match="more than 100 steps"):
            budget.charge()


def test_an_ordinary_line_stays_far_inside_the_budget() -> None:
    engine = Engine(cache_size=0, max_steps=20_000)
    assert engine.check("git status && make test | tee log.txt").outcome is Outcome.ALLOW
