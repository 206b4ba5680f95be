"""Command rules: argv patterns, flag spellings, whole commands, and how the engine uses them."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.policy.argv import read_argv
from clawgate.policy.matching import compile_rule
from clawgate.shell import parse, parse_one


def rule(command, decision="deny", **extra):
    return compile_rule({"id": "r", "command": command, "decision": decision, "why": "w",
                         **extra}, "test.yaml")


@pytest.mark.parametrize(("pattern", "line", "expected"), [
    (["git", "push", ["--force", "-f"]], "git push -f origin main", True),
    (["git", "push", ["--force", "-f"]], "git push origin main --force", True),
    (["git", "push", ["--force", "-f"]], "git push --force-with-lease origin", False),
    (["git", "push", ["--force", "-f"]], "git push origin main", False),
    (["git", "push", ["--force", "-f"]], "FOO=1 git -C repo push -f", True),
    (["git", "push", ["--force", "-f"]], "/usr/bin/git push -uf origin", True),
    (["git", "push", ["--force", "-f"]], "git -c a=b commit -f", False),
    (["rm", "-rf"], "rm -rf build", True),
    (["rm", "-rf"], "rm -r -f build", True),
    (["rm", "-rf"], "rm -fr build", True),
    (["rm", "-rf"], "rm --recursive --force build", True),
    (["rm", "-rf"], "rm -R --force build", True),
    (["rm", "-rf"], "rm -r build", False),
    (["rm", "-rf"], "rm -- -rf", False),
    (["npm", ["test", "run"]], "npm test", True),
    (["npm", ["test", "run"]], "npm install", False),
    (["kubectl", "delete", "*"], "kubectl delete pod x", True),
    (["kubectl", "delete", "*"], "kubectl delete", False),
    (["docker", "run", {"re": "alpine(:[0-9.]+)?"}], "docker run alpine:3.19", True),
    (["docker", "run", {"re": "alpine(:[0-9.]+)?"}], "docker run alpine-evil", False),
    (["*", "--no-verify"], "git commit --no-verify", True),
    (["git", "commit", "--no-verify"], "git commit -n -m msg", True),
    (["git", "commit", "--no-verify"], "git commit -m -n", False),
    (["find", "-delete"], "find . -name x -type d", False),
    (["find", "-delete"], "find . -delete", True),
    # a unique prefix of a long option is that option to the program
    (["git", "push", ["--force", "-f"]], "git push --forc origin main", True),
    (["git", "push", ["--force", "-f"]], "git push --fo origin main", True),
    (["rm", "-rf"], "rm --recur --forc build", True),
    (["rm", "-rf"], "rm --recur build", False),
    (["git", "commit", "--no-verify"], "git commit --no-ver -m x", True),
])
def test_pattern_matching(pattern, line, expected):
    assert rule(pattern).matches(parse_one(line)) is expected


@pytest.mark.parametrize(("decision", "expected"), [("deny", True), ("ask", True),
                                                    ("allow", False)])
def test_only_stricter_rules_read_a_prefix_as_its_option(decision, expected):
    """An allow asks for the option as written: a prefix it reads wrongly would widen it."""
    pattern = ["git", "push", "--dry-run"]
    assert rule(pattern, decision).matches(parse_one("git push --dry origin")) is expected


def test_exact_rules_refuse_more_words_and_flags():
    exact = rule(["git", "status"], "allow", exact=True)
    assert exact.matches(parse_one("git status"))
    assert not exact.matches(parse_one("git status --porcelain"))
    assert not exact.matches(parse_one("git status ."))


@pytest.mark.parametrize("line", [
    "npm run $(rm -rf /)", "npm run $SCRIPT", "$NPM run test", "npm run test > /etc/x",
    "npm run *", "npm run `id`", "./npm run test", "node_modules/.bin/npm run x",
    "~/bin/npm run test",
])
def test_allow_needs_a_command_seen_whole(line):
    allow = rule(["npm", "run"], "allow")
    assert not any(allow.matches(c) for c in parse(line).commands if c.program == "npm")


@pytest.mark.parametrize("line", ["npm run test 2>&1", "npm run test > /dev/null",
                                  "npm run test src/*.js", "/usr/bin/npm run test"])
def test_allow_accepts_harmless_redirects_and_globs(line):
    assert rule(["npm", "run"], "allow").matches(parse_one(line))


@pytest.mark.parametrize(("args", "positionals", "flags"), [
    (["-C", "dir", "push", "-f"], ("push",), {"-C", "--force"}),
    (["commit", "-am", "msg", "x"], ("commit", "x"), {"--all", "--message"}),
    (["commit", "-mmsg"], ("commit",), {"--message"}),
    (["push", "--", "-f"], ("push", "-f"), set()),
    (["push", "--repo=x", "origin"], ("push", "origin"), {"--repo"}),
])
def test_read_argv(args, positionals, flags):
    argv = read_argv("git", args)
    assert argv.positionals == positionals
    assert argv.flags == flags


POLICY = """
version: 1
require_approval_for_medium_risk: true
shell:
  rules:
    - id: npm-test
      command: [npm, run, test]
      decision: allow
      why: the test suite
    - id: npm-test-lifts
      command: [npm, run, lint]
      decision: allow
      overrides: ask
      why: lint
    - id: no-force
      command: [git, push, [--force, -f]]
      decision: deny
      why: rewrites shared history
"""


@pytest.fixture
def engine(write):
    return Engine.from_files(write(POLICY, "project.yaml"))


def test_allow_never_carries_a_second_command(engine):
    # medium risk asks under this policy; the allow lifts that for `npm run test` alone
    # (and `rm -rf /` is DENY by the validators whatever the rules say)
    assert engine.check("npm run test; rm -rf /").outcome is Outcome.DENY
    assert engine.check("npm run test").outcome is Outcome.ALLOW
    assert engine.check("touch x").outcome is Outcome.ASK
    for line in ("npm run test; touch x", "npm run test && touch x", "npm run test | touch x",
                 "touch x & npm run test", "npm run test\ntouch x", "(npm run test; touch x)"):
        decision = engine.check(line)
        assert decision.outcome is Outcome.ASK, line
        about = {r.command for r in decision.reasons if r.rule_id != "CG-INJ-014"}
        assert about == {"touch x"}, line  # CG-INJ-014 speaks of the whole two-line call
    # a word only known at run time: the allow does not match npm itself either
    hidden = engine.check("npm run test $(touch x)")
    assert hidden.outcome is Outcome.ASK
    assert {r.command for r in hidden.reasons} == {"npm run test $(touch x)", "touch x"}


def test_allow_inside_a_compound_line_names_the_other_command(engine):
    decision = engine.check("npm run test && git push -f origin main")
    assert decision.outcome is Outcome.DENY
    assert [r.rule_id for r in decision.reasons] == ["policy:project.yaml#no-force"]
    assert decision.reasons[0].message == "rewrites shared history"


def test_deny_rule_through_wrappers_and_env_prefixes(engine):
    for line in ("FOO=1 git push --force", "cd x && git push -f", "git push origin -f | cat"):
        assert engine.check(line).outcome is Outcome.DENY, line


def test_allow_lifts_the_autonomy_ask_only(write):
    policy = write("""
        version: 1
        shell:
          rules:
            - {id: curl-ok, command: [curl, https://example.com/api], decision: allow,
               why: the project's API}
        """)
    engine = Engine.from_files(policy)
    assert Engine.from_files().check("curl -X POST https://example.com/api").outcome is Outcome.ASK
    assert engine.check("curl -X POST https://example.com/api").outcome is Outcome.ALLOW
    second = engine.check("curl -X POST https://example.com/api; "
                          "curl -X POST https://example.com/other")
    assert second.outcome is Outcome.ASK
    assert [r.command for r in second.reasons] == ["curl -X POST https://example.com/other"]


def test_rule_id_and_layer_in_reasons(write):
    first = write("version: 1\nshell: {rules: [{id: a, command: [make, deploy], decision: ask,"
                  " why: deploys}]}\n", "user.yaml")
    decision = Engine.from_files(first).check("make deploy")
    assert decision.outcome is Outcome.ASK
    assert decision.reasons[0].rule_id == "policy:user.yaml#a"
