"""Switches that tell a build to push, publish, deploy or upload (CG-DEST-011)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.validators.destructive import sends


@pytest.mark.parametrize(("name", "value", "expected"), [
    ("DOCKER_PUSH", "true", True),
    ("PUSH", "1", True),
    ("PUBLISH", "yes", True),
    ("DO_DEPLOY", "ON", True),
    ("upload_artifacts", "true", True),  # make variables are often lower case
    ("DOCKER_PUSH", "false", False),
    ("PUSH", "0", False),
    ("PUSH", None, False),  # only known at run time: not a switch the line turns on
    ("MACOSX_DEPLOYMENT_TARGET", "1", False),  # DEPLOYMENT is another word
    ("PREPUBLISH", "true", False),
    ("RELEASE", "1", False),  # a release build is an optimised one, it sends nothing
    ("PUSHGATEWAY_URL", "1", False),
])
def test_sends(name: str, value: str | None, expected: bool) -> None:
    assert sends(name, value) is expected


@pytest.mark.parametrize(("line", "outcome"), [
    ("DOCKER_PUSH=true make image", Outcome.ASK),
    ("make release PUBLISH=1", Outcome.ASK),
    ("PUSH=1 ./build.sh", Outcome.ASK),
    ("export DOCKER_PUSH=true && make image", Outcome.ASK),
    ("make image", Outcome.ALLOW),
    ("export DOCKER_PUSH=false && make image", Outcome.ALLOW),
    ("export MACOSX_DEPLOYMENT_TARGET=10.15", Outcome.ALLOW),
    ("DOCKER_PUSH=false make image", Outcome.ALLOW),
    ('MACOSX_DEPLOYMENT_TARGET="10.12" cargo build --release', Outcome.ALLOW),
    ("make CC=clang test", Outcome.ALLOW),
    ("make test-e2e E2E_INSTANCE_ID=foo", Outcome.ALLOW),
])
def test_decisions(line: str, outcome: Outcome, tmp_path: Path) -> None:
    assert Engine().check(line, cwd=str(tmp_path)).outcome is outcome
