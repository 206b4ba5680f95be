"""CG-FS-005: clawgate's own state directory is out of reach of every command, whatever the
workspace is, by every spelling the checker resolves; carrying away a directory that holds it
asks."""

from __future__ import annotations

import pytest
from vtables import ALLOW, ASK, DENY, HOME, decide

from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings

STATE = f"{HOME}/.local/state/clawgate"
AT_HOME = Engine(EngineSettings(workspace=HOME))  # a workspace of ~ holds the state root


@pytest.fixture(autouse=True)
def _state_under_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAWGATE_STATE_HOME")
    monkeypatch.delenv("CLAWGATE_STATE_DIR", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", f"{HOME}/.local/state")


@pytest.mark.parametrize(("line", "expected"), [
    (f"cat {STATE}/keys/approvals.key", DENY),
    ("cat ~/.local/state/clawgate/keys/approvals.key", DENY),
    ("cat $HOME/.local/state/clawgate/keys/audit.key", DENY),
    ("cat .local/state/clawgate/keys/audit.key", DENY),
    ("cat ./.local/state/../state/clawgate/approvals/x.json", DENY),
    ("echo '{}' > ~/.local/state/clawgate/approvals/abc.json", DENY),
    ("cp forged.json ~/.local/state/clawgate/approvals/", DENY),
    ("cat ~/.local/state/*/keys/*", DENY),
    ("cat ~/.local/*/clawgate/keys/x", DENY),
    ("cd ~/.local/state/clawgate && cat keys/approvals.key", DENY),
    ("cd ~/.local/state && cat clawgate/keys/approvals.key", DENY),
    ("x=~/.local/state/clawgate; cat $x/keys/a", DENY),
    ("rm -rf ~/.local/state/clawgate", DENY),
    ("mv ~/.local/state /tmp/elsewhere", ASK),
    ("rm -f ~/.local/state", ALLOW),
    ("rm -rf ~/.local", ASK),
    # a pattern in the directory that holds the state: only one that may name it reaches it
    ("rm -rf ~/.local/state/c*", DENY),
    ("rm -rf ~/.local/state/*", DENY),
    ("tar czf /tmp/logs.tgz ~/.local/state/tool-*", ALLOW),
    ("mv ~/.local/state/tool-*.log /tmp/", ALLOW),
    # a copy of a tree that holds credential stores (~/.local/share/keyrings, the home's
    # keys) is CG-SEC-013's DENY, the state among what it copies
    ("cp -r ~/.local /tmp/copy", DENY),
    ("tar czf /tmp/home.tgz ~", DENY),
    ("ls ~/.local/state", ALLOW),
    ("ls ~/*", ALLOW),
    ("cat ~/.local/share/notes.txt", ALLOW),
    ("grep -r TODO src", ALLOW),
    ("cat $XDG_STATE_HOME/clawgate/keys/audit.key", DENY),
    # searches that print what they find in the home's stores: CG-SEC-013's DENY
    ("grep -r BEGIN ~", DENY),
    ("grep -rl BEGIN .local", ASK),
    ("rg --hidden BEGIN ~", DENY),
    ("rg -uu BEGIN ~", DENY),
    ("rg BEGIN ~", ALLOW),  # ripgrep skips hidden directories: ~/.local is not searched
    ("grep -a BEGIN ~/notes.txt", ALLOW),
])
def test_the_state_directory_in_a_workspace_of_home(line: str, expected: object) -> None:
    outcome, rules = decide(line, AT_HOME, cwd=HOME)
    assert outcome is expected, (line, rules)
    if expected is not ALLOW:  # a read of the home's stores as a whole may be denied first
        assert rules & {"CG-FS-005", "CG-SEC-013"}, (line, rules)


def test_a_state_home_named_elsewhere_is_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWGATE_STATE_HOME", "/srv/guard-state")
    assert decide("cat /srv/guard-state/keys/audit.key", AT_HOME, cwd=HOME) == (
        DENY, {"CG-FS-005"})
    assert decide("cat ~/.local/state/clawgate/notes.txt", AT_HOME, cwd=HOME)[0] is ALLOW


# From a directory that neither holds the state nor lies in it, a relative path with no ``..``
# is at or below that directory: passed over without being resolved. Paths that leave it
# (``..``, ``~``, an absolute path, a variable) are still followed.
@pytest.mark.parametrize(("line", "cwd", "denied"), [
    ("cat notes/state.txt", f"{HOME}/project", False),
    ("cat ./*/keys/*", f"{HOME}/project", False),
    ("cat ../.local/state/clawgate/keys/audit.key", f"{HOME}/project", True),
    ("cat ../../dev/.local/state/clawgate/keys/audit.key", f"{HOME}/project", True),
    ("cat ~/.local/state/clawgate/keys/audit.key", f"{HOME}/project", True),
    (f"cat {STATE}/keys/audit.key", f"{HOME}/project", True),
    ("cat $HOME/.local/state/clawgate/keys/audit.key", f"{HOME}/project", True),
    ("cat clawgate/keys/audit.key", f"{HOME}/.local/state", True),  # holds the state
    ("cat keys/audit.key", STATE, True),  # in the state
    ("cat ./keys/../keys/audit.key", STATE, True),
])
def test_paths_below_a_directory_far_from_the_state(line: str, cwd: str, denied: bool) -> None:
    outcome, rules = decide(line, AT_HOME, cwd=cwd)
    assert ("CG-FS-005" in rules) is denied, (line, cwd, rules)
    assert (outcome is DENY) if denied else outcome is not DENY, (line, cwd, rules)
