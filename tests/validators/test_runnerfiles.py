"""CG-ENV-004: a write to ``$GITHUB_ENV``/``$GITHUB_PATH`` is the ``export`` every later step
of the job runs under, and is judged as that export."""

from __future__ import annotations

import pytest
from vtables import assert_allowed, assert_caught

from clawgate.decision import Outcome

ASK, DENY = Outcome.ASK, Outcome.DENY


@pytest.mark.parametrize(("line", "expected", "rule"), [
    # code loaders: as ``export LD_PRELOAD=…`` (CG-ENV-001)
    ('echo "LD_PRELOAD=/tmp/x.so" >> $GITHUB_ENV', DENY, "CG-ENV-001"),
    ('echo "BASH_ENV=$PWD/evil.sh" >> "${GITHUB_ENV}"', DENY, "CG-ENV-001"),
    ("printf 'A=1\\nLD_AUDIT=x.so\\n' >> $GITHUB_ENV", DENY, "CG-ENV-001"),
    ("cat >> $GITHUB_ENV <<'EOF'\nA=1\nLD_PRELOAD=x.so\nEOF", DENY, "CG-ENV-001"),
    ("cat >> \"$GITHUB_ENV\" <<EOF\nVERSION=$(git describe)\nBASH_ENV=$PWD/x\nEOF", DENY,
     "CG-ENV-001"),
    ("tee -a $GITHUB_ENV <<< 'PROMPT_COMMAND=id'", DENY, "CG-ENV-001"),
    # programs and search paths: as their export (CG-ENV-002)
    ('echo "NODE_OPTIONS=--require /tmp/hook.js" >> $GITHUB_ENV', ASK, "CG-ENV-002"),
    ('echo "GIT_SSH_COMMAND=ssh -o ProxyCommand=x" >> $GITHUB_ENV', ASK, "CG-ENV-002"),
    ('echo "PYTHONPATH=/tmp/mods" >> $GITHUB_ENV', ASK, "CG-ENV-002"),
    ('echo "/tmp/evil" >> $GITHUB_PATH', ASK, "CG-ENV-002"),
    ('echo "$TOOLS" >> "$GITHUB_PATH"', ASK, "CG-ENV-002"),
    # names known only at run time
    ('echo "$LINE" >> $GITHUB_ENV', ASK, "CG-ENV-004"),
    ('echo "${NAME}=1" >> $GITHUB_ENV', ASK, "CG-ENV-004"),
    ("cat vars.env >> $GITHUB_ENV", ASK, "CG-ENV-004"),
    ('printf "%s\\n" "$A" >> $GITHUB_ENV', ASK, "CG-ENV-004"),
    ("env >> $GITHUB_ENV", ASK, None),
    # tee fed by a printer writes what it prints: the export it amounts to (CG-ENV-016)
    ('echo "BASH_ENV=./x" | tee -a $GITHUB_ENV', DENY, "CG-ENV-001"),
    ('cat vars.env | tee -a $GITHUB_ENV', ASK, "CG-ENV-016"),
    # any program that writes the file, not only a redirection or tee: text known at run time
    ("echo LD_PRELOAD=/tmp/x.so | dd of=$GITHUB_ENV oflag=append conv=notrunc", ASK,
     "CG-ENV-004"),
    ("dd if=/tmp/env of=\"$GITHUB_ENV\"", ASK, "CG-ENV-004"),
    ("sed -i '$a LD_PRELOAD=/tmp/x.so' $GITHUB_ENV", ASK, "CG-ENV-004"),
    ("echo LD_PRELOAD=/tmp/x.so | sponge -a $GITHUB_ENV", ASK, "CG-ENV-004"),
    ("cp /tmp/env $GITHUB_ENV", ASK, "CG-ENV-004"),
    ('install -m 644 /tmp/p "$GITHUB_PATH"', ASK, "CG-ENV-004"),
    ("ln -sf /tmp/env $GITHUB_ENV", ASK, "CG-ENV-004"),
    # an operator that yields the file's name when it is set, as on a runner
    ('echo LD_PRELOAD=/tmp/x.so >> "${GITHUB_ENV:-/dev/null}"', DENY, "CG-ENV-001"),
    ("echo LD_PRELOAD=/tmp/x.so >> ${GITHUB_ENV?}", DENY, "CG-ENV-001"),
    ('echo LD_PRELOAD=/tmp/x.so | tee -a "${GITHUB_ENV:=/dev/null}"', DENY, "CG-ENV-001"),
])
def test_runner_files_are_exports(line: str, expected: Outcome, rule: str | None) -> None:
    assert_caught(line, expected, rule)


@pytest.mark.parametrize("line", [
    'echo "VERSION=1.2" >> "$GITHUB_ENV"',
    'echo "VERSION=$(git describe --tags)" >> $GITHUB_ENV',
    "echo CC=clang >> $GITHUB_ENV",
    'echo "PYTHONPATH=src" >> $GITHUB_ENV',
    "printf 'A=1\\nB=2\\n' >> $GITHUB_ENV",
    "cat >> $GITHUB_ENV <<EOF\nJSON<<XX\n{\"a\": \"$(date)\"}\nXX\nEOF",
    'echo "$HOME/.local/bin" >> $GITHUB_PATH',
    'echo "$HOME/.cargo/bin" >> "$GITHUB_PATH"',
    'echo "$PWD/bin" >> $GITHUB_PATH',
    'echo "version=1.2" >> $GITHUB_OUTPUT',
    'echo "## Results" >> $GITHUB_STEP_SUMMARY',
    'echo "VERSION=1.2" >> "${GITHUB_ENV:-/dev/null}"',
    'echo LD_PRELOAD=/tmp/x.so >> "${GITHUB_ENV:+/dev/null}"',  # set: /dev/null, not the file
    "cp dist/env.txt build/",
])
def test_ordinary_runner_file_writes(line: str) -> None:
    assert_allowed(line)
