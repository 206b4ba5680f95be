"""A recursive delete of what is not there deletes nothing (CG-DEG-003 with
``validators/absent.py``): it is ALLOW where the disk can be trusted for the line, and judged
as before wherever anything on the line could put a thing where it looks."""

from __future__ import annotations

from pathlib import Path

import pytest
from vtables import ALLOW, ASK, DENY, WS, decide

from clawgate.decision import Outcome
from clawgate.engine import Engine


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A workspace holding sources, a file and a dot name; nothing named ``gone*``."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("print()\n")
    (tmp_path / "notes.txt").write_text("keep\n")
    (tmp_path / ".hidden-cache").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "src")
    return tmp_path


SPARED = [
    "rm -rf gone",
    "rm -r gone",
    "rm -rf gone/ also-gone",
    "rm -rf ./gone",
    "rm -rf gone_*",  # no name matches: bash hands rm the pattern, which names nothing
    "rm -rf gone/*.tmp",  # its directory is not there
    "rm -rf {gone1,gone2}",
    "rm -rf -- gone",
    "mkdir -p out && rm -rf gone out",  # out is made by the line: empty, lost nothing
    "cd gone && rm -rf sub",  # the cd fails: rm never runs; run, it finds nothing
    'test -d gone && rm -rf gone; echo "cleaned"',
    "set -e; rm -rf gone",
    # find's starting points: none there, find deletes nothing
    "find gone -delete",
    "find gone/ also-gone -name '*.o' -delete",
    "find -L gone -type f -exec rm -f {} +",
    "find gone -mindepth 1 -maxdepth 1 -type d -not -name keep -exec rm -r {} \\;",
    # other deletes remove, they make nothing appear
    "rm -rf gone && rm -rf also-gone",
    # what is written after the delete runs after it
    "rm -rf gone; ln -s src gone",
    'if [ ! -L gone ] || [ "x$(readlink gone)" != "xsrc" ]; then rm -rf gone; ln -s src gone; fi',
    # a glob above the last component, worked out on the disk
    "rm -rf gone/*/api/",
    "rm -rf src/*/api/",  # src holds no directory
    "rm -rf */gone",
]

JUDGED = [
    ("rm -rf src", ASK),  # there: sources
    ("rm -rf gone src", ASK),  # the missing one is spared, not the rest
    ("rm -rf {gone,src}", ASK),
    ("rm -rf notes*", ASK),  # a glob that matches
    ("rm -rf hidden-cache*", ASK),  # dot names counted as matches (dotglob may be on)
    ("rm -rf link", ASK),  # a link is there even where what it leads to is judged apart
    ("rm -rf [^a]*", ASK),  # bracket expressions are not worked out here
    ("ln -s ~ gone && rm -rf gone/", DENY),  # the line makes it first: a link to home
    ("ln -s src gone; rm -rf gone/", ASK),
    ("mv src gone; rm -rf gone", ASK),  # the line moves the sources there first
    ("cp -a src gone; rm -rf gone", ASK),  # cp may copy links: not inert
    ("for i in 1 2; do rm -rf gone; done", ASK),  # a later round meets what the first left
    ("f() { rm -rf gone; }; f", ASK),
    ("rm -rf gone & sleep 1", ASK),
    ("true | rm -rf gone", ASK),
    ("bash -c 'rm -rf gone'", ASK),  # text handed to a shell: not the line's own command
    ("X=1 rm -rf gone", ASK),
    ("HOME=/; rm -rf gone", ASK),
    ("GLOBIGNORE=x; rm -rf gone*", ASK),
    ("rm -rf .", DENY),  # the workspace itself is never missing
    ("rm -rf ~/gone-from-home", DENY),  # outside the workspace: as before
    ("find gone src -delete", ASK),  # the missing one is left out, the sources judged
    ("find gone . -delete", DENY),  # the workspace itself
    ("find -delete", DENY),  # no starting point: from the workspace
    ("find gone -files0-from list -delete", ASK),  # starting points read from a file
    ("find gone $X -delete", ASK),  # a starting point known only at run time
    ("ln -s ~ gone && find gone/ -delete", DENY),
    ("for i in 1 2; do find gone -delete; done", ASK),
    ("rm -rf s*/main.py", ASK),  # a glob above the last component that matches
    ("rm -rf l*/main.py", ASK),  # through a link, as bash follows one
    ("rm -rf */../gone", ASK),  # ``..`` after a pattern: through a link it leads elsewhere
    ("rm -rf sr[c]/gone", ASK),  # bracket expressions are not worked out here
    # a later command that runs first or alongside: a substitution of the delete's own
    # redirection or here-document, the background, a coprocess
    ("rm -rf gone <<E\n$(ln -s src gone)\nE", ASK),
    ("rm -rf gone 2> >(ln -s src gone)", ASK),
    ("rm -rf gone & ln -s src gone", ASK),
    ("{ sleep 1; rm -rf gone/; } & ln -s src gone", ASK),
    ("coproc { sleep 1; rm -rf gone/; }; ln -s src gone", ASK),
    ("rm -rf gone; ln -s ~ gone; rm -rf gone/", DENY),  # the second delete meets the link
    ("ln -s src gone; rm -rf gone && rm -rf x", ASK),
    # written after it, run again before it: a loop's condition, a function called twice, a
    # trap that runs it at the end
    ("while rm -rf gone/; ln -s src gone; do sleep 1; done", ASK),
    ("f() { rm -rf gone/; ln -s src gone; }; f; f", ASK),
    ("trap 'rm -rf gone/' EXIT; ln -s src gone", ASK),
]


@pytest.mark.parametrize("line", SPARED)
def test_a_delete_of_what_is_not_there_is_allowed(project: Path, line: str) -> None:
    decision = Engine().check(line, cwd=str(project))
    assert decision.outcome is ALLOW, (line, [r.rule_id for r in decision.reasons])


@pytest.mark.parametrize(("line", "expected"), JUDGED)
def test_a_delete_the_disk_cannot_vouch_for_is_judged(project: Path, line: str,
                                                      expected: Outcome) -> None:
    decision = Engine().check(line, cwd=str(project))
    assert decision.outcome is expected, (line, [r.rule_id for r in decision.reasons])


def test_a_remembered_decision_sees_the_path_appear(project: Path) -> None:
    engine = Engine()
    assert engine.check("rm -rf gone", cwd=str(project)).outcome is ALLOW
    (project / "gone").mkdir()
    assert engine.check("rm -rf gone", cwd=str(project)).outcome is ASK
    (project / "gone").rmdir()
    assert engine.check("rm -rf gone_*", cwd=str(project)).outcome is ALLOW
    (project / "gone_1").write_text("x\n")
    assert engine.check("rm -rf gone_*", cwd=str(project)).outcome is ASK


def test_a_dangling_link_is_there(project: Path) -> None:
    (project / "dangling").symlink_to(project / "nowhere")
    assert Engine().check("rm -rf dangling", cwd=str(project)).outcome is ASK


def test_a_workspace_not_on_this_machine_spares_nothing() -> None:
    # A service deciding for another machine, a policy test: the disk here says nothing.
    assert decide("rm -rf gone", cwd=WS)[0] is ASK


@pytest.mark.parametrize("line", ["rm -rf *", "ls * && rm -rf *", "rm -rf ./*",
                                  "find * -delete"])
def test_every_entry_of_an_empty_workspace_is_not_spared(tmp_path: Path, line: str) -> None:
    # Empty now is not empty when it runs: the whole workspace is never a missing target.
    decision = Engine().check(line, cwd=str(tmp_path))
    assert decision.outcome is DENY, (line, [r.rule_id for r in decision.reasons])
