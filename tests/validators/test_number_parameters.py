"""``$$``, ``$?`` and ``$#`` are special parameters no command can assign: always a decimal
number, never a ``/``, never empty. A path built with one means the same place whichever number
it is (``/tmp/build-$$`` is a name of digits in /tmp), so it is resolved like a literal one."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.shell.model import Word
from clawgate.validators.base import Context
from clawgate.validators.paths import NUMBER_STAND_IN, resolve

ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY
CTX = Context(cwd="/tmp/workspace", workspace="/tmp/workspace", home="/root")


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.mark.parametrize(("line", "expected"), [
    # a scratch name of digits
    ('rm -rf "/tmp/build-$$"', ALLOW),
    ("rm -rf /tmp/build.$$", ALLOW),
    ('rm -rf "/tmp/${$}"', ALLOW),
    ("rm -rf /tmp/$$abc", ALLOW),
    ('rm -rf "/tmp/x$#y"', ALLOW),
    # near-misses: the same digits where a delete loses what no build brings back
    ('rm -rf "$HOME/tmp-$$"', DENY),
    ("rm -rf ~/$$", DENY),
    ("rm -rf /$$", DENY),
    ('rm -rf "src$?"', ASK),
    ("echo x > /etc/cron.d/job$$", DENY),
    ("cat /proc/$$/environ", DENY),
    # a name or an expansion that may hold a slash stays unknown
    ('rm -rf "/tmp/$!/x"', ASK),  # $! is empty with no job in the background
    ('rm -rf "/tmp/${#D}/$D"', ASK),
    ('rm -rf "/tmp/x-$$/$SUB"', ASK),
    ('rm -rf "$D-$$"', ASK),
])
def test_number_parameters_in_paths(engine: Engine, line: str, expected: Outcome) -> None:
    assert engine.check(line, cwd="/tmp/workspace").outcome is expected


@pytest.mark.parametrize(("text", "path"), [
    ('"/tmp/build-$$"', f"/tmp/build-{NUMBER_STAND_IN}"),
    ('"/tmp/${$}.d"', f"/tmp/{NUMBER_STAND_IN}.d"),
    ('"/tmp/$?x"', f"/tmp/{NUMBER_STAND_IN}x"),
    ('"/tmp/$D"', None),
    ('"/tmp/${#D}"', None),
])
def test_resolved(text: str, path: str | None) -> None:
    assert resolve(Word(text, None, quoted=True), CTX).path == path
