"""The bash oracle itself: one sandbox runs many lines, each as a fresh bash would, and hands
back exactly the programs it ran."""

from __future__ import annotations

import pytest

from clawgate.testing.bashoracle import Oracle, OracleError

pytestmark = pytest.mark.bwrap


@pytest.mark.parametrize(("line", "argvs"), [
    ("ls -la; echo $(id -u) | grep x", [("ls", "-la"), ("id", "-u"), ("grep", "x")]),
    ("nosuchprogram a 'b c' ''", [("nosuchprogram", "a", "b c", "")]),  # not found: recorded
    ("/usr/bin/rm -rf ~", [("rm", "-rf", "/home/oracle")]),  # by path: the stub runs
    ("eval 'git push'", [("git", "push")]),  # builtins run as bash runs them
    ("( sleep 1; id -u ) &", [("sleep", "1"), ("id", "-u")]),  # background jobs waited for
    # a line's DEBUG trap runs where bash runs it, never inside the oracle's own recorder
    ("trap 'echo x' DEBUG; ls \"$(nosuch y)\"", [("nosuch", "y"), ("ls", "")]),
])
def test_the_oracle_records_what_bash_runs(line: str, argvs: list[tuple[str, ...]],
                                           bash_oracle: Oracle) -> None:
    assert sorted(bash_oracle.run(line).argvs) == sorted(argvs)


def test_each_line_starts_afresh(bash_oracle: Oracle) -> None:
    bash_oracle.run("f() { id -u; }; : > rm; cd /tmp")
    assert bash_oracle.run("f; ls *; pwd").argvs == (("f",), ("ls", "*"))


def test_a_line_that_does_not_end_is_stopped() -> None:
    with Oracle(bound_s=1.0) as oracle:
        assert oracle.run("while ls; do :; done").timed_out  # after a few dozen programs
        assert oracle.run("while :; do :; done; id -u").argvs == ()  # after many builtins
        assert oracle.run("set -m; (while :; do :; done) & exit").timed_out  # at the bound
        assert oracle.run("id -u").argvs == (("id", "-u"),)  # and the sandbox goes on


def test_a_nul_cannot_be_run(bash_oracle: Oracle) -> None:
    with pytest.raises(OracleError):
        bash_oracle.run("ls\0x")
