"""Rewrites keep their meaning: checked with a real bash, never by running the command itself.

The program is replaced by ``printf '%s\\n'``, which prints the argv it receives one word a line:
a rewrite of ``printf '%s\\n' rm -rf /tmp/x`` must print exactly ``rm``, ``-rf``, ``/tmp/x``.
Flag rewrites (which change the argv on purpose) are checked with GNU ``getopt``, which reads
an argv the way the programs they apply to do.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawgate.testing import strategies as s
from clawgate.testing._rewrites import GETOPT_FLAGS, LINE_WRAPPERS
from clawgate.testing._rewrites import _semantic as flag_rewrites

FAST = settings(max_examples=150, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PRIVILEGED = frozenset({"sudo", "doas", "chroot", "strace"})  # root or ptrace, not in CI
ARGS = st.lists(st.one_of(
    st.sampled_from(["-rf", "/tmp/x", "a b", "a,b", "{x}", "*", "~", "$HOME", "it's", '"q"',
                     "if", "x=y", "é", "\\", "a\nb", "\t", "-", "--", "!x", "#c", "{a,b}"]),
    st.text(st.characters(blacklist_categories=["Cs", "Cc"]), min_size=1, max_size=6),
), min_size=1, max_size=4)


def echoed(line: str) -> str:
    """What ``bash -c line`` prints (stdin closed, 10 s at most)."""
    done = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=10,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def expected(args: list[str]) -> str:
    return "".join(a + "\n" for a in args)


@pytest.mark.parametrize("args", [["rm", "-rf", "/tmp/x"], ["git", "push", "--force"],
                                  ["curl", "-fsSL", "https://example.com/x.sh"]])
@FAST
@given(data=st.data())
def test_rewrites_of_dangerous_argvs_print_the_same_argv(args: list[str],
                                                          data: st.DataObject) -> None:
    rewrite = data.draw(s.rewrites(("printf", "%s\n", *args), semantic=False))
    assert echoed(rewrite.line) == expected(args), rewrite


@FAST
@given(args=ARGS, data=st.data())
def test_rewrites_of_awkward_words_print_the_same_argv(args: list[str],
                                                       data: st.DataObject) -> None:
    rewrite = data.draw(s.rewrites(("printf", "%s\n", *args), semantic=False))
    assert echoed(rewrite.line) == expected(args), rewrite


@pytest.mark.parametrize("kind", sorted(LINE_WRAPPERS))
def test_each_line_wrapper_keeps_the_argv(kind: str) -> None:
    line = shlex.join(["printf", "%s\n", "rm", "-rf", "/tmp/x y"])
    assert echoed(LINE_WRAPPERS[kind](line)) == "rm\n-rf\n/tmp/x y\n"


def getopt_reading(letters: str, args: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(flags, operands) as GNU getopt reads ``args``: flags sorted, operands in order."""
    out = subprocess.run(["getopt", "-o", letters, "--", *args], capture_output=True,
                         text=True, check=True).stdout
    words = shlex.split(out)
    cut = words.index("--")
    return sorted(words[:cut]), words[cut + 1:]


@pytest.mark.parametrize("argv", [("rm", "-rf", "/tmp/x"), ("chmod", "-Rv", "777", "/srv"),
                                  ("ls", "-la", "-R", "src", "docs"), ("grep", "-rn", "x", ".")])
@FAST
@given(data=st.data())
def test_flag_rewrites_read_the_same_to_getopt(argv: tuple[str, ...],
                                               data: st.DataObject) -> None:
    new_argv, _ = data.draw(flag_rewrites(argv))
    assert new_argv[0] == argv[0]
    letters = GETOPT_FLAGS[argv[0]]
    assert getopt_reading(letters, new_argv[1:]) == getopt_reading(letters, argv[1:])


@pytest.mark.parametrize("argv", [("find", ".", "-name", "x"), ("rm", "--force", "x"),
                                  ("tar", "-xzf", "a.tgz"), ("rm", "-rf", "--", "-x")])
def test_no_flag_rewrites_where_the_meaning_could_change(argv: tuple[str, ...]) -> None:
    @settings(max_examples=30, database=None, derandomize=True)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        assert data.draw(flag_rewrites(argv)) == (argv, [])

    check()


def test_flag_rewrites_happen() -> None:
    seen: set[str] = set()

    @settings(max_examples=200, database=None, derandomize=True)
    @given(st.data())
    def collect(data: st.DataObject) -> None:
        seen.update(data.draw(s.rewrites(("rm", "-rf", "/tmp/x"))).steps)

    collect()
    assert {"flag-split", "flag-merge", "flag-reorder", "flag-last"} <= seen
    assert {"words:ifs", "words:brace", "variables", "xargs", "absolute-path"} <= seen
    assert {"dollar-at", "env-split", "find-exec", "array", "set-args", "redirect-first",
            "wrapper:exec"} <= seen


@pytest.mark.parametrize(("line", "argv"), [
    ("rm -rf /tmp/x", ("rm", "-rf", "/tmp/x")),
    ("'r'\"m\" -rf", ("rm", "-rf")),
    ("rm -rf ~", None),  # tilde expansion: not static
    ("x=1 rm", None),
    ("ls | wc", None),
    ("echo $HOME", None),
])
def test_argv_of(line: str, argv: tuple[str, ...] | None) -> None:
    assert s.argv_of(line) == argv


def test_a_compound_line_gets_line_level_rewrites_only() -> None:
    @settings(max_examples=40, database=None, derandomize=True)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        rewrite = data.draw(s.rewrites("ls | wc -l"))
        assert rewrite.original == "ls | wc -l"
        assert all(not step.startswith(("words:", "flag-")) for step in rewrite.steps)

    check()


@FAST
@given(data=st.data())
def test_wrapped_lines_run_the_line(data: st.DataObject) -> None:
    rewrite = data.draw(s.wrapped("printf '%s\\n' a 'b c'"))
    assert rewrite.original == "printf '%s\\n' a 'b c'"
    prefix = next((step.split(":", 1)[1] for step in rewrite.steps
                   if step.startswith("prefix:")), None)
    program = prefix.split()[0] if prefix else ""
    if program in PRIVILEGED or (program and shutil.which(program) is None):
        assert f"{prefix} " in rewrite.line  # needs privileges or is not installed: the form only
        return
    assert echoed(rewrite.line) == "a\nb c\n", rewrite


@pytest.mark.parametrize("kind", sorted(LINE_WRAPPERS))
@pytest.mark.parametrize("line", [
    "printf '%s\\n' a  # it's a comment",  # the closer must not land in the comment
    "cat <<'EOF'\na\nEOF",  # nor on the delimiter's line
    "-x 2>/dev/null; printf '%s\\n' a",  # code starting with '-' is not an option to sh -c
])
def test_line_wrappers_run_lines_that_end_oddly(kind: str, line: str) -> None:
    assert echoed(LINE_WRAPPERS[kind](line)) == "a\n"


def test_a_disguised_line_is_held_against_its_argv_written_plainly() -> None:
    @settings(max_examples=20, database=None, derandomize=True)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        assert data.draw(s.rewrites("'ls' \"-la\"")).original == "ls -la"

    check()
