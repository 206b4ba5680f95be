"""How a policy's settings reach the engine: overrides, permissions tiers, autonomy."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome, Verdict
from clawgate.engine import Engine
from clawgate.policy.loader import load_policy
from clawgate.policy.settings import Autonomy
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator


class AsksAboutLint(Validator):
    """A test validator: ASK for `npm run lint`, `npm run test`; DENY for `npm run nuke`."""

    id = "CG-TEST-001"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.argv[:2] == ("npm", "run") and cmd.argv[2:3] in (("lint",), ("test",)):
            return Verdict.ask(self.id, "a validator asks")
        if cmd.argv == ("npm", "run", "nuke"):
            return Verdict.deny(self.id, "a validator denies")
        return Verdict.passthrough()


class Destructive(Validator):
    """A test validator in the destructive family: ASK for `shred`."""

    id = "CG-DEST-999"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program == "shred":
            return Verdict.ask(self.id, "destroys data")
        if cmd.program == "mkfs":
            return Verdict.deny(self.id, "formats a disk")
        return Verdict.passthrough()


RULES = """
version: 1
shell:
  rules:
    - {id: lint, command: [npm, run, [lint, nuke]], decision: allow, overrides: ask, why: ok}
    - {id: test, command: [npm, run, test], decision: allow, why: ok}
"""


@pytest.fixture
def engine(write):
    settings = load_policy(write(RULES)).engine_settings()
    return Engine(settings, validators=[AsksAboutLint()])


@pytest.mark.parametrize(("line", "expected"), [
    ("npm run lint", Outcome.ALLOW),   # overrides: ask lifts the validator's ASK
    ("npm run test", Outcome.ASK),     # a plain allow does not
    ("npm run nuke", Outcome.DENY),    # nothing lifts a DENY
])
def test_overrides_ask(engine, line, expected):
    assert engine.check(line).outcome is expected


@pytest.mark.parametrize(("permissions", "line", "expected"), [
    ("{write: true, shell: true}", "make", Outcome.ALLOW),
    ("{write: false, shell: true}", "ls -la", Outcome.ALLOW),
    ("{write: false, shell: true}", "make", Outcome.DENY),
    ("{write: true, shell: false}", "ls", Outcome.DENY),
    ("{write: true}", "git status", Outcome.DENY),
    ("{write: true, shell: true}", "shred x", Outcome.ASK),
    ("{write: true, shell: true, unsafe: true}", "shred x", Outcome.ALLOW),
    ("{write: true, shell: true, unsafe: true}", "mkfs /dev/sda", Outcome.DENY),
])
def test_permission_tiers(write, permissions, line, expected):
    settings = load_policy(write(f"version: 1\npermissions: {permissions}\n")).engine_settings()
    assert Engine(settings, validators=[Destructive()]).check(line).outcome is expected


def test_no_shell_names_the_layer(write):
    path = write("version: 1\npermissions: {write: true}\n", "agent.yaml")
    decision = Engine.from_files(path).check("ls")
    assert decision.outcome is Outcome.DENY
    assert decision.reasons[0].rule_id == "policy:agent.yaml#permissions.shell"


def test_settings_from_the_manifest(write):
    settings = load_policy(write("""
        version: 1
        autonomy: full
        block_high_risk_commands: true
        require_approval_for_medium_risk: true
        workspace: proj
        forbidden_paths: [/srv/secret]
        """)).engine_settings()
    assert settings.autonomy is Autonomy.FULL
    assert settings.block_high_risk_commands
    assert settings.require_approval_for_medium_risk
    assert settings.workspace is not None
    assert settings.workspace.endswith("/proj")
    assert "/srv/secret" in settings.forbidden_paths
    assert "~/.ssh" in settings.forbidden_paths


def test_default_is_friendly_to_everyday_commands():
    engine = Engine.from_files()
    for line in ("ls", "git status", "make", "pytest", "git diff HEAD~1", "cat README.md",
                 "npm test", "python3 -m pytest -q"):
        assert engine.check(line).outcome is Outcome.ALLOW, line
