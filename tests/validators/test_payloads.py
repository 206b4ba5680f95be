"""One rule for commands handed to a program through an option or a setting
(``validators/payloads.py``): DENY for shells, interpreters, wrappers, shell code, files run
from odd places, payloads that change things and payloads known only at run time; ASK for
a literal, harmless-looking helper."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_allowed, assert_caught

from clawgate.decision import Outcome
from clawgate.validators.payloads import payload_danger, payload_verdict


@pytest.mark.parametrize(("line", "expected", "rule"), [
    # a shell, an interpreter, a wrapper as the payload
    ("sort --compress-program=sh names.txt", DENY, "CG-ESC-002"),
    ("echo x | sort -S 1b --compress-program 'sh'", DENY, "CG-ESC-002"),
    ("man -Psh ls", DENY, "CG-ESC-002"),
    ("rg --pre bash TODO .", DENY, "CG-ESC-002"),
    ("rg --pre=python3 TODO .", DENY, "CG-ESC-002"),
    ("tar --checkpoint=1 '--checkpoint-action=exec=\"sh shell.sh\"'", DENY, "CG-ESC-002"),
    ("rsync -e 'env sh' a b:", DENY, "CG-ESC-002"),
    ("git -c core.pager='sh -c id' log", DENY, "CG-ESC-006"),
    ("git -c core.sshCommand=/tmp/x/ssh fetch", DENY, "CG-ESC-006"),
    # shell code, a literal path written, a file from an odd place
    ("git grep '--open-files-in-pager=id>/tmp/foo;' .", DENY, "CG-PROG-001"),
    ("git fetch origin '--upload-pack=sleep 30; git@g.com/a/b'", DENY, "CG-ESC-006"),
    ("git ls-remote '--upload-pack=id>/tmp/foo;' foo", DENY, "CG-ESC-006"),
    ("git clone '-u$({touch,/tmp/foo})' ':x'", DENY, "CG-ESC-006"),
    ("psql -o'|id>/tmp/foo'", DENY, "CG-ESC-003"),
    ("sort -S 1k --compress-program=./payload big.txt", DENY, "CG-ESC-002"),
    # a payload that changes things itself
    ("ssh '-oProxyCommand=\"touch /tmp/foo\"' foo@foo", DENY, "CG-ESC-006"),
    ("hg log '--config=alias.log=\"!touch /tmp/foo\"'", DENY, "CG-ESC-006"),
    # literal, harmless-looking helpers: ASK
    ("man -P mypager ls", ASK, "CG-ESC-002"),
    ("rg --pre mypre x src", ASK, "CG-ESC-002"),  # a literal helper through a side door
    ("ssh -o 'ProxyCommand=nc -X 5 -x proxy:1080 %h %p' host", ASK, "CG-ESC-006"),
    ("git -c diff.external=difft diff --ext-diff", ASK, "CG-ESC-006"),
    ("split --filter='gzip > $FILE.gz' big.txt", ASK, "CG-ESC-002"),
    ("psql -o '|gzip' db", ASK, "CG-ESC-003"),
])
def test_payloads(line: str, expected: Outcome, rule: str) -> None:
    assert_caught(line, expected, rule)


@pytest.mark.parametrize("line", [
    "sort names.txt",
    "man ls",
    "rg TODO src",
    "tar -I zstd -cf a.tar a",
    "rsync -e ssh -a src/ build/",
    "git -c core.pager=less log",
    "git grep TODO",
])
def test_plain_use_stays_allowed(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("text", "dangerous"), [
    ("sh", True), ("/bin/bash -i", True), ("python3 x.py", True), ("env sh", True),
    ("id;x", True), ("a | b", True), ("$(id)", True), ("id>/tmp/foo", True),
    ("./payload", True), ("/tmp/x", True), ("touch /tmp/foo", True), ("rm -f x", True),
    ("less -R", False), ("/usr/bin/zstd -T0", False), ("ssh -p 2222", False),
    ("nc %h %p", False), ("gzip > $FILE.gz", False), ("dockexec bash:5.2", False),
    ("", False),
])
def test_payload_danger(text: str, dangerous: bool) -> None:
    assert (payload_danger(text) is not None) is dangerous


def test_a_payload_known_only_at_run_time_is_denied() -> None:
    verdict = payload_verdict([None], "CG-ESC-002", "sort --compress-program runs a command")
    assert verdict.outcome is Outcome.DENY
    assert verdict.nested == ()


def test_a_helper_is_asked_and_checked() -> None:
    verdict = payload_verdict(["lzbench -9"], "CG-ESC-002", "tar -I runs a command")
    assert verdict.outcome is Outcome.ASK
    assert verdict.nested == ("lzbench -9",)
