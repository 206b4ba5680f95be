"""``find ROOT … | xargs CMD``: the items are paths find printed under ROOT, so a write to
them (``xargs clang-format -i``) is a write under ROOT, judged there, not a write to a target
only known at run time. Only when find prints nothing but the paths it found: formatted output
(``-printf``), listings, the output of its own ``-exec`` commands and links followed out
(``-L``) leave the items unknown, and so does a starting point named by a variable."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_allowed, assert_caught

from clawgate.decision import Outcome
from clawgate.shell.model import Word
from clawgate.shell.xargsfeed import prints_paths


@pytest.mark.parametrize("line", [
    "find include/ -name '*.hpp' | xargs clang-format -i",
    "find src tests -name '*.h' -o -name '*.cc' | xargs clang-format -i --style=file",
    "find lib -type f -name '*.lua' -print0 | xargs -0 stylua",
    "find src -name '*.rs' | xargs rustfmt --edition 2021",
    "find cmd -name '*.go' | xargs gofmt -w",
    "find pkg -name '*.proto' | xargs -I{} sed -i 's/old/new/' {}",
    "find Sources -name '*.swift' -print | xargs swift-format -i",
])
def test_writes_to_found_items_under_a_workspace_root(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "expected", "rule"), [
    # the items are not (only) paths under the root
    ("find src -printf '/etc/%f\\n' | xargs sed -i s/a/b/", ASK, "CG-PROG-002"),
    ("find src -fprint /tmp/x | xargs sed -i s/a/b/", ASK, "CG-PROG-002"),
    ("find src -exec echo /etc/passwd \\; | xargs sed -i s/a/b/", ASK, "CG-PROG-002"),
    ("find src -ls | xargs clang-format -i", ASK, "CG-PROG-002"),
    ("find -L src -name '*.h' | xargs clang-format -i", ASK, "CG-PROG-002"),
    ("find src -follow -name '*.h' | xargs clang-format -i", ASK, "CG-PROG-002"),
    # a root known only at run time, or not a find at all
    ('find "$DIR" -name "*.h" | xargs clang-format -i', ASK, "CG-PROG-002"),
    ("cat files.txt | xargs clang-format -i", ASK, "CG-PROG-002"),
    ("git ls-files | xargs sed -i s/a/b/", ASK, "CG-PROG-002"),
    # a root outside the workspace: written there
    ("find ~ -name .bashrc | xargs sed -i s/a/b/", ASK, "CG-PROG-002"),
    ("find /etc -name hosts | xargs sed -i s/a/b/", ASK, None),
    # file names pasted into shell code stay code
    ("find src -name '*.c' | xargs -I{} sh -c 'clang-format -i {}'", ASK, "CG-WRAP-007"),
    # what xargs runs is still judged
    ("find src -name '*.h' | xargs rm -rf", ASK, "CG-DEG-002"),
    ("find src -name '*.txt' | xargs -I{} cp {} ~/.ssh/authorized_keys", DENY, "CG-FS-002"),
])
def test_items_not_known_to_lie_under_the_root(line: str, expected: Outcome,
                                                rule: str | None) -> None:
    assert_caught(line, expected, rule)


@pytest.mark.parametrize(("words", "expected"), [
    (("find", "src", "-name", "*.h"), True),
    (("find", "src", "-name", "*.h", "-print0"), True),
    (("find", "src", "-printf", "%p\\n"), False),
    (("find", "src", "-exec", "echo", "{}", ";"), False),
    (("find", "-L", "src"), False),
])
def test_prints_paths(words: tuple[str, ...], expected: bool) -> None:
    assert prints_paths(tuple(Word(w, w) for w in words)) is expected
