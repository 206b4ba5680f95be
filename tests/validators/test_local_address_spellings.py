"""Commands and inline code reaching this machine, the local network or a metadata endpoint
are judged alike (issue 14: "curl/wget/python to loopback, private and link-local addresses are
high risk, the same rule as web_fetch"): the other IPv4 spellings the C library accepts
(``127.1``, ``0x7f000001``, ``2852039166``) are the addresses they are, and inline Python or
JavaScript with a literal address is judged as ``curl`` to it."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, decision

from clawgate.decision import Risk


@pytest.mark.parametrize(("line", "expected"), [
    ("curl http://0xa9fea9fe/latest/meta-data/", DENY),
    ("curl http://2852039166/latest", DENY),
    ("curl http://0251.0376.0251.0376/", DENY),
    ("curl http://169.254.43518/", DENY),
    ("curl http://0x7f000001:2375/containers/json", ASK),
    ("curl http://2130706433/", ASK),
    ("curl http://127.1/", ASK),
    ("curl http://0/", ASK),
    ("python3 -c 'import urllib.request as u; u.urlopen(\"http://169.254.169.254/latest/\")'",
     DENY),
    ("node -e 'fetch(\"http://169.254.169.254/latest/\")'", DENY),
    ("python3 -c 'import urllib.request as u; u.urlopen(\"http://127.0.0.1:2375/x\")'", ASK),
    ("python3 -c 'import requests; requests.get(\"http://10.0.0.5/admin\")'", ASK),
    ("python3 -c 'import socket; socket.create_connection((\"10.0.0.5\", 80))'", ASK),
])
def test_local_and_metadata_addresses_are_high_risk_in_every_spelling(
        line: str, expected: object) -> None:
    found = decision(line)
    assert found.outcome is expected, found.reasons
    assert found.risk is Risk.HIGH
    assert {"CG-NET-002", "CG-CODE-005"} & {r.rule_id for r in found.reasons}


@pytest.mark.parametrize("line", [
    "curl https://8.8.8.8/",
    "curl http://1.2.3.4.example.com/",
    "python3 -c 'import urllib.request as u; u.urlopen(\"https://pypi.org/simple/\")'",
])
def test_public_addresses_are_not_called_local(line: str) -> None:
    assert "CG-NET-002" not in {r.rule_id for r in decision(line).reasons}
    assert "a loopback" not in " ".join(r.message for r in decision(line).reasons)
