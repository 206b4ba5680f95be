"""Write targets whose every value is one name in the command's directory (CG-PROG-002 gives
way): ``basename`` of a loop variable, quoted, with literal text around it."""

from __future__ import annotations

import pytest
from vtables import ALLOW, ASK, CTX, decide

from clawgate.decision import Outcome
from clawgate.shell import parse
from clawgate.validators.cwdnames import harmless_here, name_patterns


@pytest.mark.parametrize(("line", "expected"), [
    ('for f in src/*.md; do pandoc "$f" > "$(basename "$f" .md).html"; done', ALLOW),
    ('for o in fpm-*; do sha256sum "$o" | tee "$(basename "$o").sha256"; done', ALLOW),
    ('for f in *.txt; do cp "$f" "$(basename "$f").bak"; done', ALLOW),
    ('for f in a/x.txt b/y.txt; do cp "$f" "$(basename "$f")"; done', ALLOW),
    ('for f in *.txt; do cat x > "$(basename "$f").envrc"; done', ALLOW),  # x.txt.envrc
    ('for d in */; do ls "$d" > "$(basename "$d").list"; done', ALLOW),
    ('for f in *.txt; do echo "done"; cat x > "$(basename "$f").bak"; done', ALLOW),
    ('cd sub && for f in *.txt; do cat x > "$(basename "$f").bak"; done', ALLOW),
    # unquoted: split and globbed (a file named "a .envrc b" makes three targets)
    ('for o in fpm-*; do tee $(basename "$o").sha256; done', ASK),
    ('for f in *.txt; do cat x > "$(basename $f).bak"; done', ASK),  # "a / b": basename /
    # may be "/" or ".." or a protected name
    ('cat x > "$(basename "$X").txt"', ASK),  # X="/": /.txt
    ("for f in /; do cat x > \"$(basename \"$f\").txt\"; done", ASK),
    ('for f in .*; do cat x > "$(basename "$f")"; done', ASK),  # ..
    ('for f in *.txt; do cat x > "$(basename "$f" .txt).md"; done', ASK),  # CLAUDE.md
    ('for f in *; do cat x > "$(basename "$f").txt"; done', ASK),  # --help prints a URL
    ('for f in $LIST; do cat x > "$(basename "$f").bak"; done', ASK),
    # the variable set otherwise, or read outside the loop
    ('for f in *.txt; do :; done; cat x > "$(basename "$f").bak"', ASK),
    ('for f in *.txt; do echo do; done; cat x > "$(basename "$f").bak"', ASK),
    ('for f in *.txt; do f=/etc/x; cat x > "$(basename "$f").bak"; done', ASK),
    ('for f in *.txt; do read f; cat x > "$(basename "$f").bak"; done', ASK),
    ('for f in a; do :; done; for f in *.txt; do cat x > "$(basename "$f").bak"; done', ASK),
    # a loop over the positional parameters sets it too: set -- chose them
    ('set -- x/.envrc; for f in *.txt; do for f; do cat y > "$(basename "$f")"; done; done',
     ASK),
    ('set -- x/.envrc; for f in *.txt; do select f; do cat y > "$(basename "$f")"; break; '
     'done; done', ASK),
    ('for f in *.txt; do for ((f=0;f<1;f++)); do cat y > "$(basename "$f")x"; done; done',
     ASK),
    ('for file in *.txt; do for f in a; do :; done; cat y > "$(basename "$file").b"; done',
     ALLOW),
    # basename may be another program
    ('basename() { echo /etc; }; for f in *.txt; do cat x > "$(basename "$f").b"; done', ASK),
    ('PATH=.:$PATH; for f in *.txt; do cat x > "$(basename "$f").bak"; done', ASK),
    # a file sourced or text evaluated may define any function, basename among them
    ('. ./helpers.sh; for f in *.txt; do cat x > "$(basename "$f").bak"; done', ASK),
    ('source lib.sh; for f in *.txt; do cat x > "$(basename "$f").bak"; done', ASK),
    ('for f in *.txt; do . ./lib.sh; cat x > "$(basename "$f").bak"; done', ASK),
    # bash's bracket expressions: classes and [^…] match what fnmatch's would not
    ('for f in x/.[[:alpha:]]nvrc; do cat y > "$(basename "$f")"; done', ASK),  # .envrc
    ('for f in x/[[:upper:]]LAUDE.md; do cat y > "$(basename "$f")"; done', ASK),
    ('for f in x/.[[:lower:]]it; do cp y "$(basename "$f")"; done', ASK),  # .git
    ('for f in x/.npm[[:alnum:]]c; do cat y > "$(basename "$f")"; done', ASK),
    ('for f in x/.[^a]nvrc; do cat y > "$(basename "$f")"; done', ASK),
    ('for f in x/.[[=e=]]nvrc; do cat y > "$(basename "$f")"; done', ASK),
    ('for f in x/[[:digit:]].txt; do cat y > "$(basename "$f").bak"; done', ALLOW),
    ('for f in x/[ab].txt; do cat y > "$(basename "$f").bak"; done', ALLOW),
    # the directory: outside the workspace, protected, or known only at run time
    ('cd ~; for f in *.txt; do cat x > "$(basename "$f").bak"; done', ASK),
    ('cd "$D"; for f in *.txt; do cat x > "$(basename "$f").bak"; done', ASK),
    ('cd .git; for f in *.txt; do cat x > "$(basename "$f").bak"; done', ASK),
    ('for f in *.txt; do cat x > "../$(basename "$f").bak"; done', ASK),
    ('for f in *.txt; do cat x > "$(basename "$f")/x"; done', ASK),
    ('echo hi > "$TARGET"', ASK),
])
def test_a_name_in_the_directory(line: str, expected: Outcome) -> None:
    outcome, rules = decide(line)
    assert outcome is expected, (line, rules)
    if expected is ASK:
        assert "CG-PROG-002" in rules, rules


@pytest.mark.parametrize(("word_line", "patterns"), [
    ('for f in src/*.md; do cat x > "$(basename "$f" .md).html"; done', ("*.html",)),
    ('for f in a/*.txt; do cat x > "n-$(basename "$f").bak"; done', ("n-*.txt.bak",)),
    ('for f in a/x b/y/; do cat x > "$(basename -- "$f")"; done', ("x", "y")),
    ('for f in *.txt; do cat x > "$(basename "$f")[1]"; done', ("*.txt[[]1]",)),
    ('for f in *.txt; do cat x > "$(basename "$f")-$f"; done', ()),
    ('for f in *.txt; do cat x > "$(basename "$f")"/x; done', ()),
])
def test_the_patterns_read_from_the_word(word_line: str, patterns: tuple[str, ...]) -> None:
    parsed = parse(word_line)
    cmd = next(c for c in parsed.commands if c.program == "cat")
    target = cmd.redirects[0].target
    assert target is not None
    assert name_patterns(target, cmd, parsed) == patterns


@pytest.mark.parametrize(("patterns", "harmless"), [
    (("*.sha256",), True), (("*",), False), (("*.md",), False), ((".*",), False),
    (("*.yml",), False),  # .gitlab-ci.yml, .travis.yml
    (("x.git",), True), (("[.]git",), False), (("a", ".envrc"), False), ((), False),
    ((".[[:alpha:]]nvrc",), False), ((".[^x]it",), False), (("[B-a].txt",), True),
])
def test_patterns_are_matched_against_protected_names(patterns: tuple[str, ...],
                                                      harmless: bool) -> None:
    assert harmless_here(patterns, (CTX.cwd,), CTX) is harmless
