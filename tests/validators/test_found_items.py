"""What ``find`` hands on: ``find ROOT -exec CMD {} +`` runs CMD on items under ROOT (each
stands as ``ROOT/"$XARGS_ITEM"``), and a ``find`` that selects directories only hands on
directories (``ROOT/"$XARGS_ITEM"/``), whether through ``-exec`` or ``| xargs``. The setgid
bit on what can only be a directory of the workspace (CG-CAT-007, CG-CAT-013) is harmless."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_allowed, assert_caught

from clawgate.decision import Outcome
from clawgate.shell.model import Word
from clawgate.shell.xargsfeed import find_roots, only_directories


@pytest.mark.parametrize(("line", "expected", "rule"), [
    # -exec items are under find's starting points, not in the working directory
    # (every file of the key directory shown: its private keys among them)
    ("find ~/.ssh -type f -exec cat {} +", DENY, "CG-SEC-001"),
    ("find ~/.ssh -name config -exec cat {} +", ASK, "CG-SEC-001"),
    ("find ~/.aws -name credentials -exec cat {} \\;", ASK, "CG-SEC-001"),
    ("find / -maxdepth 0 -exec chmod -R 777 {} +", DENY, "CG-CAT-006"),
    ("find /etc -maxdepth 0 -exec chown -R nobody {} +", DENY, "CG-CAT-006"),
    ("find ~ -maxdepth 0 -type d -exec chmod g+s {} +", DENY, None),
    # setgid on items that may be files
    ("find build -exec chmod g+s {} +", ASK, "CG-CAT-007"),
    ("find build -type f -exec chmod g+s {} +", ASK, "CG-CAT-007"),
    ("find build -type d -o -name x -exec chmod g+s {} +", ASK, "CG-CAT-007"),
    ("find build ! -type d -exec chmod 2755 {} +", ASK, "CG-CAT-007"),
    ("chmod g+s build", ASK, "CG-CAT-007"),
    ("cat dirs.txt | xargs chmod g+s", ASK, "CG-CAT-013"),
    ("find . -type d | grep src | xargs chmod g+s", ASK, "CG-CAT-013"),
    ("find . -type f | xargs chmod g+s", ASK, None),
    ("xargs chmod g+s < dirs.txt", ASK, "CG-CAT-013"),
    # setuid stays DENY on directories too, and so does setgid outside the workspace
    ("chmod u+s build/", DENY, "CG-CAT-007"),
    ("find build -type d | xargs chmod 4755", DENY, "CG-CAT-007"),
    ("find / -type d -exec chmod g+s {} +", DENY, None),
    ("find ~ -type d | xargs chmod g+s", DENY, None),
    ("chmod g+s /tmp/x/", DENY, "CG-CAT-007"),
])
def test_found_items(line: str, expected: Outcome, rule: str | None) -> None:
    assert_caught(line, expected, rule)


@pytest.mark.parametrize("line", [
    "find build/dist -type d -print0 | xargs -0r chmod g+s",
    "find build -type d -exec chmod g+s {} +",
    "find build -type d -execdir chmod g+s {} \\;",
    "find . -type d | xargs chmod g+s",
    "find shared -type d -exec chmod 2775 {} \\;",
    "chmod g+s build/",
    "chmod 2775 shared/.",
    "find . -name '*.py' -exec cat {} +",
    "find src -type f -exec sed -i s/a/b/ {} +",
    "find docs -name '*.md' -exec grep -l TODO {} \\;",
    "find . -type f -exec chmod 644 {} +",
    "find . -type d -name __pycache__ -exec rm -rf {} +",
])
def test_found_items_in_the_workspace(line: str) -> None:
    assert_allowed(line)


def _words(*texts: str) -> tuple[Word, ...]:
    return tuple(Word(t, t) for t in texts)


@pytest.mark.parametrize(("argv", "expected"), [
    (("find", "-type", "d"), True),
    (("find", "build", "-name", "x*", "-type", "d", "-print0"), True),
    (("find", "build", "-type", "f"), False),
    (("find", "build", "-type", "d", "-o", "-type", "f"), False),
    (("find", "build", "!", "-type", "d"), False),
    (("find", "build", "-not", "-type", "d"), False),
    (("find", "build", "-name", "d"), False),
])
def test_only_directories(argv: tuple[str, ...], expected: bool) -> None:
    assert only_directories(_words(*argv)) is expected


def test_find_roots() -> None:
    assert find_roots(_words("find")) == ["."]
    assert find_roots(_words("find", "-L", "a", "b/", "-type", "d")) == ["a", "b"]
    assert find_roots((Word("find", "find"), Word("$D", None))) is None
