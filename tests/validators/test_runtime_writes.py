"""CG-PROG-002: writes to paths known only at run time. A literal tail that names an inert file
in a directory no program loads every entry of (``validators/runtimetail.py``), and names the
line itself surely set before the write (``validators/knownnames.py``); attacks of the same
shape beside each near-miss."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_allowed, assert_caught

from clawgate.validators.runtimetail import inert_tail

# A page, a checksum, a document in a directory the line names: the directory the variable
# holds may be anywhere, but no loader reads these names from there.
INERT = [
    '"$BIN" --generate man > "$ARCHIVE/doc/rg.1"',
    'echo x > "$ARCHIVE"/doc/rg.1.gz',
    "sha256sum dist/app.tar.gz > $OUT/checksums/app.tar.gz.sha256",
    'tee "$D/reports/junit.log" < build.log',
    'cp README.md "${STAGE}/share/doc/README.md"',
    'echo done > "$APP.AppDir/notes.txt"',
]

# The same shapes aimed at what runs or is obeyed later: a start-up file, a hook, a drop-in
# directory, a PATH or library directory, an agent's instructions, a module, a unit, a name
# that may be a command; a directory the line does not name; a name glued to the value.
CAUGHT = [
    'cp x "$D/.bashrc"',
    'cp x "$D/.git/hooks/pre-commit"',
    'cp x "$D/hooks/pre-commit"',
    'echo x > "$D/githooks/post-checkout.txt"',
    'echo x > "$D/.bashrc.d/rg.1"',
    'echo x > "$D/bash_completion.d/rg.1"',
    'echo x > "$D/profile.d/env.txt"',
    'echo x > "$D/cron.daily/x.log"',
    'echo x > "$D/bin/rg.1"',
    'echo x > "$D/lib/notes.md"',
    'echo x > "$D/completions/rg.bash"',
    'echo x > "$D/conf.d/rg.fish"',
    'echo x > "$D/commands/deploy.md"',
    'echo x > "$D/workflows/ci.md"',
    'echo x > "$D/autostart/x.txt"',
    'echo x > "$D/doc/CLAUDE.md"',
    'echo x > "$D/doc/AGENTS.md"',
    'echo x > "$D/doc/requirements.txt"',
    'echo x > "$D/doc/CMakeLists.txt"',
    'echo x > "$D/doc/rg"',
    'echo x > "$D/doc/_rg"',
    'echo x > "$D/doc/x.py"',
    'echo x > "$D/doc/x.pth"',
    'echo x > "$D/doc/x.service"',
    'echo x > "$D/doc/config.toml"',
    'echo x > "$D/doc/x.tar.gz"',
    'echo x > "$D/doc/../.bashrc"',
    'echo x > "$D/doc/./rg.1"',
    'echo x > "$D/.config/notes.txt"',
    'echo x > "$D/rg.1"',
    'echo x > "$D"/rg.fish',
    # Shell code is sourced by name from directories no list holds: fish's own start-up file.
    'cp x.fish "$XDG_CONFIG_HOME/fish/config.fish"',
    '"$BIN" --generate complete-bash > "$ARCHIVE/complete/rg.bash"',
    '"$BIN" --generate complete-powershell > "$ARCHIVE/complete/_rg.ps1"',
    'echo x > "$D/zsh/prompt.zsh"',
    'echo x > "$D".d/rg.1',
    'echo x > "$D"hooks/rg.1',
    'echo x > "$D/doc/"*.1',
    'echo x > "$D/doc/rg.1"; echo y > "$E/.git/hooks/pre-commit"',
    'sha256sum $TARBALL > $SHASUM',
    'cp "$BIN" "$ARCHIVE"/',
]


@pytest.mark.parametrize("line", INERT)
def test_inert_files_in_named_directories_pass(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize("line", CAUGHT)
def test_files_that_may_run_or_steer_ask(line: str) -> None:
    assert_caught(line, ASK, "CG-PROG-002")


@pytest.mark.parametrize(("text", "inert"), [
    ('"$A/doc/rg.1"', True),
    ("${A}/man/man1/rg.1", True),
    ("$(pick)/doc/rg.1", True),
    ("`pick`/doc/rg.1", True),
    ('"$A/doc/rg.1~"', True),
    ('"$A/doc/\\.bashrc"', False),  # an escape: not read
    ('"$A/doc/$B.1"', False),  # the name is a value too
    ('"$A/doc/rg.1"$B', False),
    ("$(echo ')')/doc/rg.1", False),
    ('"$A/doc/"', False),  # a directory: the name is the source's
    ("plain/doc/rg.1", False),  # no value: judged as a path
])
def test_the_literal_tail(text: str, inert: bool) -> None:
    assert inert_tail(text) is inert


# The line surely sets the name before the write, to a value it chose; else the environment's
# value (an earlier call may have exported any path) reaches the write.
SET_ON_THE_LINE = [
    'T=out.txt; echo x > "$T"',
    'export T=out.txt; echo x > "$T"',
    'T=$(mktemp); echo x > "$T"',
    'T=out.txt; if [ -n "$X" ]; then T=b.txt; fi; echo x > "$T"',
    'for f in *.txt; do cp x.tmpl "$f"; done',
    'for f in a.txt b.txt; do sort -o "$f" "$f"; done',
    'for f in $(ls _dist/*.{gz,zip} 2>/dev/null); do sha256sum "$f" > "$f.sha256"; done',
    'for f in $(git ls-files "*.md"); do sed -n 1p "$f" > "$f.title"; done',
    'for f in $(find docs -name "*.md" | sort); do wc -l "$f" > "$f.count"; done',
    'echo "v=1" >> "$GITHUB_OUTPUT"',
    '#!/bin/sh\n# a header comment\nOUT=build/x.txt\necho hi > "$OUT"',
]
NOT_SURELY_SET = [
    'echo x > "$T"; T=out.txt',
    'true || T=out.txt; echo x > "$T"',
    '[ -z "$T" ] && T=out.txt; echo x > "$T"',
    'if [ -n "$X" ]; then T=out.txt; fi; echo x > "$T"',
    'case $X in a) T=out.txt;; esac; echo x > "$T"',
    'T=out.txt make; echo x > "$T"',
    'T=out.txt; T=$(cat name.txt); echo x > "$T"',
    'f() { T=out.txt; }; f; echo x > "$T"',
    'for f in $(cat list.txt); do echo x > "$f"; done',
    'for f in $FILES; do cp evil.sh "$f"; done',
    'for f in "$@"; do cp evil.sh "$f"; done',
    'for f in $(ls ~); do cp evil.sh "$f"; done',
    'for f in $(ls -l); do cp evil.sh "$f"; done',
    'for f in $(find . -printf "%p\\n"); do cp evil.sh "$f"; done',
    'for f in $(find /etc -name "*.conf"); do cp evil.sh "$f"; done',
    'for f in $(git ls-files | sed "s|^|$HOME/|"); do cp evil.sh "$f"; done',
    'for f in ~/.bashrc; do cp evil.sh "$f"; done',
    '#!/bin/sh\ntrue || # a comment\nT=out.txt\necho x > "$T"',
    '#!/bin/sh\ntrue ||\n# a comment\nT=out.txt\necho x > "$T"',
]


@pytest.mark.parametrize("line", SET_ON_THE_LINE)
def test_names_the_line_surely_sets(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize("line", NOT_SURELY_SET)
def test_names_the_environment_may_hold(line: str) -> None:
    assert_caught(line, ASK, "CG-PROG-002")


def test_programs_named_by_a_value_stay_judged() -> None:
    assert_caught('"$X" run rm -rf ~', DENY, None)
    assert_caught(". $D/evil.sh", ASK, "CG-INJ-010")
