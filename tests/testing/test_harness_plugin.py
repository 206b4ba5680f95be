"""The pytest plugin, driven through pytester: inert unless asked, invariants and rule examples
as test items, failures that read as a report."""

from __future__ import annotations

import subprocess
import sys
from importlib import import_module
from importlib.metadata import entry_points

import pytest

# pytester's in-process runs drop the modules they import when they end, but a package keeps
# its submodule attributes: a later run's `from clawgate.testing import invariants` would get
# the stale copy and compare its enums with fresh ones. Import what the runs use up front.
for _name in ("clawgate.engine", "clawgate.cli.common", "clawgate.testing.fuzz",
              "clawgate.testing.plugin", "clawgate.testing.examples", "clawgate.testing.report",
              "clawgate.validators.base", "clawgate.policy.settings"):
    import_module(_name)

WEAK_ENGINE = '''
from clawgate.decision import Verdict
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings
from clawgate.validators.base import Validator


class DenyRm(Validator):
    """Any rm is DENY; wrappers are not looked into."""

    id = "CG-TEST-001"

    def check(self, cmd, ctx):
        return Verdict.deny(self.id, "rm") if cmd.program == "rm" else Verdict.passthrough()


class TeamRules:
    """The rules of team.yaml, as the manifest loader would build them."""

    def evaluate(self, cmd):
        if cmd.argv[:2] == ("git", "push") and "--force" in cmd.argv:
            return Verdict.deny("policy:team.yaml#no-force", "rewrites history"), False
        return Verdict.passthrough(), False


def make():
    return Engine(validators=[DenyRm()])


def team():
    return Engine(EngineSettings(rules=TeamRules()), validators=[])
'''
TEAM_YAML = """\
rules:
  - id: no-force
    command: [git, push, --force]
    decision: deny
    why: rewrites shared history
    examples:
      match: ["git push --force origin main", "git push origin main --force"]
      not_match: ["git push origin main"]
  - id: wrong-example
    command: [git, push, --force]
    decision: deny
    examples:
      match: ["git pull"]
"""


def plugin_args() -> list[str]:
    """``-p`` the plugin unless its pytest11 entry point already loads it."""
    if any(e.name == "clawgate" for e in entry_points(group="pytest11")):
        return []
    return ["-p", "clawgate.testing.plugin"]


@pytest.fixture
def tester(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(weak_engine=WEAK_ENGINE)
    pytester.syspathinsert()
    return pytester


def test_inert_without_its_options(tester: pytest.Pytester) -> None:
    tester.makepyfile(test_plain="def test_one():\n    assert True\n")
    result = tester.runpytest(*plugin_args())
    result.assert_outcomes(passed=1)
    assert "clawgate::" not in result.stdout.str()


def test_options_are_documented(tester: pytest.Pytester) -> None:
    result = tester.runpytest(*plugin_args(), "--help")
    for option in ("--clawgate-policy", "--clawgate-engine", "--clawgate-profile",
                   "--clawgate-examples"):
        result.stdout.fnmatch_lines([f"*{option}*"])


def test_an_invariant_that_holds_passes(tester: pytest.Pytester) -> None:
    result = tester.runpytest(*plugin_args(), "--clawgate-engine", "clawgate.engine:Engine",
                              "--clawgate-examples", "30", "-k", "decides", "-v")
    result.assert_outcomes(passed=1, deselected=5)
    result.stdout.fnmatch_lines(["*clawgate::invariant::decides PASSED*"])


def test_an_invariant_without_its_parts_skips_with_the_reason(tester: pytest.Pytester) -> None:
    result = tester.runpytest(*plugin_args(), "--clawgate-engine", "clawgate.engine:Engine",
                              "-k", "audit", "-rs")
    result.assert_outcomes(skipped=1, deselected=5)
    result.stdout.fnmatch_lines(["*needs the manifests to build a Guard*"])


def test_the_audit_invariant_drives_a_guard_built_from_the_manifests(
        tester: pytest.Pytester) -> None:
    tester.makefile(".yaml", project="version: 1\n")
    result = tester.runpytest(*plugin_args(), "--clawgate-policy", "project.yaml",
                              "--clawgate-examples", "20", "-k", "audit", "-v")
    result.assert_outcomes(passed=1, deselected=5)
    result.stdout.fnmatch_lines(["*clawgate::invariant::audit PASSED*"])


def test_a_failing_invariant_reports_the_counterexample(tester: pytest.Pytester) -> None:
    result = tester.runpytest(*plugin_args(), "--clawgate-engine", "weak_engine:make",
                              "--clawgate-examples", "100", "-k", "wrappers")
    result.assert_outcomes(failed=1, deselected=5)
    result.stdout.fnmatch_lines(["*wrappers  FAIL     at example*deny but wrapped it is allow*",
                                 "*reproduce:    policy check *",
                                 "*policy fuzz --invariant wrappers --examples 100*"])


def test_the_ci_profile_is_derandomised(tester: pytest.Pytester) -> None:
    args = [*plugin_args(), "--clawgate-engine", "weak_engine:make", "--clawgate-examples",
            "100", "-k", "rewrites"]
    runs = [[line for line in tester.runpytest(*args).outlines if line.startswith("    ")]
            for _ in range(2)]
    assert any("policy check" in line for line in runs[0])
    assert runs[0] == runs[1]


def test_the_deep_profile_runs_with_a_seed_it_reports(tester: pytest.Pytester) -> None:
    result = tester.runpytest(*plugin_args(), "--clawgate-engine", "weak_engine:make",
                              "--clawgate-profile", "deep", "--clawgate-examples", "60",
                              "-k", "wrappers")
    result.assert_outcomes(failed=1, deselected=5)
    result.stdout.fnmatch_lines(["*policy fuzz --invariant wrappers --examples 60 --seed *"])


def test_rule_examples_become_test_items(tester: pytest.Pytester) -> None:
    tester.makefile(".yaml", team=TEAM_YAML)
    result = tester.runpytest(*plugin_args(), "--clawgate-policy", "team.yaml",
                              "--clawgate-engine", "weak_engine:team", "-k", "match", "-v")
    result.assert_outcomes(passed=3, failed=1, deselected=6)
    result.stdout.fnmatch_lines([
        "*clawgate::team.yaml::no-force::match[[]0[]] PASSED*",
        "*clawgate::team.yaml::no-force::match[[]1[]] PASSED*",
        "*clawgate::team.yaml::no-force::not_match[[]0[]] PASSED*",
        "*clawgate::team.yaml::wrong-example::match[[]0[]] FAILED*",
        "*rule wrong-example: match example 'git pull' does not match*",
    ])


def test_the_fixture_gives_the_engine(tester: pytest.Pytester) -> None:
    tester.makepyfile(test_uses_engine="""
def test_engine(clawgate_engine):
    assert clawgate_engine.check("rm -rf /").outcome.label == "deny"
""")
    result = tester.runpytest(*plugin_args(), "--clawgate-engine", "weak_engine:make",
                              "-k", "test_engine")
    result.assert_outcomes(passed=1, deselected=6)


def test_importing_the_plugin_loads_nothing_of_clawgate() -> None:
    """It loads in every pytest run where clawgate is installed: it must cost nothing there."""
    code = ("import sys; import clawgate.testing.plugin; "
            "print(sorted(m for m in sys.modules if m.startswith(('clawgate', 'hypothesis'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "['clawgate', 'clawgate.testing', 'clawgate.testing.plugin']"
