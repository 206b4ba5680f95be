"""Tools that run what they are told by other words, judged as the commands they amount to:
cmake -E tools (CG-WRAP-024), ansible ad-hoc modules (CG-WRAP-025), a program named by an
option with its arguments in others (CG-WRAP-026). The payload's own rule decides where the
command it amounts to is denied; these rows are the validators' own verdicts."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_allowed, assert_caught

from clawgate.decision import Outcome

CAUGHT = [
    ('cmake -E "$TOOL" build', ASK, "CG-WRAP-024"),  # the tool known only at run time
    ("cmake -E rm -r -f ~/", DENY, "CG-DEG-001"),  # the rm it stands for
    ('ansible all -m "$MODULE" -a x=1', ASK, "CG-WRAP-025"),
    ("ansible all -m unarchive -a 'src=x.tgz dest=/opt'", ASK, "CG-WRAP-025"),
    ("ansible all -m shell -a 'cat ~/.aws/credentials'", DENY, "CG-SEC-001"),
    ('helm template . --post-renderer "$RENDERER"', ASK, "CG-WRAP-026"),
    ("helm upgrade app ./chart --post-renderer=bash --post-renderer-args=-c "
     "--post-renderer-args='rm -rf ~'", DENY, "CG-DEG-001"),
]

HARMLESS = [
    "cmake -E remove_directory build/CMakeFiles",
    "cmake -E sha256sum build/app",
    "ansible localhost -c local -m setup",
    "ansible all -m command -a uptime",
    "helm template ./chart --post-renderer ./hack/kustomize.sh",
]


@pytest.mark.parametrize(("line", "expected", "rule"), CAUGHT)
def test_caught(line: str, expected: Outcome, rule: str) -> None:
    assert_caught(line, expected, rule)


@pytest.mark.parametrize("line", HARMLESS)
def test_harmless(line: str) -> None:
    assert_allowed(line)
