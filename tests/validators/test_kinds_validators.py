"""The validators of the attack kinds, one table each: Python modules that run their arguments
(CG-INTERP-009, and ``module_runs``, which reads those arguments), Redis told to write files,
load code or replicate (CG-DATA-004), and git in a repository outside the workspace
(CG-IDENT-004)."""

from __future__ import annotations

import pytest
from vtables import ALLOW, ASK, CTX, DENY, decide

from clawgate.decision import Outcome
from clawgate.programs.pyrunners import module_runs
from clawgate.shell import parse, parse_one
from clawgate.validators.gitplace import RepositoryElsewhere
from clawgate.validators.pymodules import PythonCodeModules
from clawgate.validators.redisadmin import RedisServerTakeover

PASS = Outcome.PASSTHROUGH


@pytest.mark.parametrize(("args", "lines"), [
    (["-m", "timeit", "-s", "import os", "os.getcwd()"],
     ["python3 -c 'import os\nos.getcwd()'"]),
    (["-m", "timeit", "-n5", "1+1"], ["python3 -c 1+1"]),
    (["-m", "pdb", "-c", "continue", "app.py", "-v"], ["python3 app.py -v"]),
    (["-m", "pdb", "-c", "!x = 1", "-m", "pkg.main"], ["python3 -c 'x = 1'",
                                                       "python3 -m pkg.main"]),
    (["-m", "cProfile", "-o", "out.prof", "-m", "pytest", "-q"], ["python3 -m pytest -q"]),
    (["-Im", "profile", "run.py"], ["python3 run.py"]),
    (["-m", "trace", "--count", "-C", "cov", "prog.py"], ["python3 prog.py"]),
    (["-m", "timeit", None], None),
    (["-m", "pytest", "-q"], []),
    (["script.py", "-m", "timeit"], []),
])
def test_module_runs(args: list[str | None], lines: list[str] | None) -> None:
    assert module_runs(args) == lines


@pytest.mark.parametrize(("line", "outcome", "nested"), [
    ("python3 -m timeit -s 'import os' 'os.system(\"id\")'", PASS, 1),
    ('python3 -m timeit "$S"', ASK, 0),
    ("python3 -m pdb -c continue app.py", PASS, 1),
    ("python3 -m pytest -q", PASS, 0),
    ("python3 app.py", PASS, 0),
])
def test_python_code_modules(line: str, outcome: Outcome, nested: int) -> None:
    verdict = PythonCodeModules().check(parse_one(line), CTX)
    assert (verdict.outcome, len(verdict.nested)) == (outcome, nested)


@pytest.mark.parametrize(("line", "outcome"), [
    ("redis-cli -h 10.0.0.5 CONFIG SET dir /var/spool/cron", DENY),
    ("redis-cli config set dbfilename authorized_keys", DENY),
    ("valkey-cli MODULE LOAD /tmp/x.so", DENY),
    ("keydb-cli REPLICAOF 203.0.113.9 6379", DENY),
    ("redis-cli <<< 'CONFIG SET logfile /etc/profile.d/x.sh'", DENY),
    ("redis-cli CONFIG SET maxmemory 100mb", ASK),
    ("redis-cli ACL SETUSER bob on", ASK),
    ("redis-cli CONFIG GET dir", PASS),
    ("redis-cli REPLICAOF NO ONE", PASS),
    ("redis-cli GET config", PASS),
])
def test_redis_server_takeover(line: str, outcome: Outcome) -> None:
    assert RedisServerTakeover().check(parse_one(line), CTX).outcome is outcome


@pytest.mark.parametrize(("line", "outcome"), [
    ("git -C /tmp/x log -p", ASK),
    ("git --git-dir=/srv/r.git log", ASK),
    ("git --work-tree=/etc --git-dir=.git status", ASK),
    ("GIT_DIR=/tmp/x.git git status", ASK),
    ("cd /tmp/x && git status", ASK),
    ("git -C ../other status", ASK),
    ("git -C sub log", PASS),
    ("git -C sub -C .. status", PASS),
    ('git -C "$D" log', PASS),
    ("cd /tmp && git --version", PASS),
    ("git status", PASS),
])
def test_repository_elsewhere(line: str, outcome: Outcome) -> None:
    assert RepositoryElsewhere().check_line(parse(line), CTX).outcome is outcome


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("python3 -m timeit 'import shutil; shutil.rmtree(\"/usr\")'", DENY, None),
    ("redis-cli CONFIG SET dir /root/.ssh", DENY, "CG-DATA-004"),
    ("git -C /tmp/x status", ASK, "CG-IDENT-004"),
    ("python3 -m timeit '1 + 1'", ALLOW, None),
])
def test_through_the_engine(line: str, expected: Outcome, rule: str | None) -> None:
    outcome, rules = decide(line)
    assert outcome is expected, rules
    assert rule is None or rule in rules
