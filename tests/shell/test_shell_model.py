"""The command model: every simple command, its words, redirections and nesting."""

from __future__ import annotations

import pytest

from clawgate.shell import RECENT_READINGS, join_continuations, parse, parse_one
from clawgate.shell import model as m


@pytest.mark.parametrize(
    ("line", "programs"),
    [
        ("git status", ["git"]),
        ("a && b || c; d & e\nf", ["a", "b", "c", "d", "e", "f"]),
        ("a | b |& c", ["a", "b", "c"]),
        ("(cd x && ls)", ["cd", "ls"]),
        ("{ echo a; echo b; } > out", ["echo", "echo"]),
        ("echo $(id) `whoami` <(ls) >(wc)", ["echo", "id", "whoami", "ls", "wc"]),
        ("f() { rm -rf /; }", ["rm"]),
        ("if true; then ls; elif false; then pwd; else id; fi",
         ["true", "ls", "false", "pwd", "id"]),
        ("for i in $(seq 3); do echo $i; done", ["seq", "echo"]),
        ("while read l; do echo; done < f", ["read", "echo"]),
        ("case x in a) ls;; b) id;; esac", ["ls", "id"]),
        ("echo $((1 + $(id -u)))", ["echo", "id"]),
        ("x=$(whoami)", [None, "whoami"]),
        ("export A=$(w)", ["export", "w"]),
        ("[[ -f $(which x) ]] && ! ls", ["[[", "which", "ls"]),
        ("cat <<EOF | bash\necho $(id)\nEOF", ["cat", "bash", "id"]),
        ("cat <<'EOF' > f && ls\nhi\nEOF", ["cat", "ls"]),
    ],
)
def test_every_simple_command_is_found(line: str, programs: list[str | None]) -> None:
    assert [c.program for c in parse(line).commands] == programs


@pytest.mark.parametrize(
    ("line", "argv"),
    [
        ('r"m" -rf \\/', ("rm", "-rf", "/")),
        ("$'\\x72\\x6d' -r", ("rm", "-r")),
        ("echo $'\\xc3\\xa9' $'\\303\\251' $'\\u00e9'", ("echo", "é", "é", "é")),  # bytes, UTF-8
        ("echo $'\\xff'", ("echo", "\udcff")),  # no UTF-8 character: the byte's escape
        ("echo 'a b' \"c d\" e\\ f", ("echo", "a b", "c d", "e f")),
        ('echo "a \\"q\\" $"', ("echo", 'a "q" $')),
        ("/usr/bin/rm x", ("/usr/bin/rm", "x")),
        # a declaration builtin's assignments, as bash hands them over
        ('export X="a \\"b\\"" Y=\'c d\' Z+=e B=', ("export", 'X=a "b"', "Y=c d", "Z+=e", "B=")),
        ('declare -r J="{\\"a\\": 1}"', ("declare", "-r", 'J={"a": 1}')),
    ],
)
def test_quote_removal(line: str, argv: tuple[str, ...]) -> None:
    assert parse_one(line).argv == argv


@pytest.mark.parametrize(
    ("line", "index", "kinds"),
    [
        ("echo $HOME", 1, {m.VARIABLE}),
        ("echo ${!name}", 1, {m.VARIABLE, m.INDIRECT}),
        ("echo ${x@P}", 1, {m.VARIABLE, m.INDIRECT}),
        ("echo $(id)", 1, {m.COMMAND}),
        ("echo $((1+2))", 1, {m.ARITHMETIC}),
        ("echo $'\\n'", 1, {m.ANSI_C}),
        ("echo *.py", 1, {m.GLOB}),
        ("echo {a,b}", 1, {m.BRACE}),
        ("echo ~/x", 1, {m.TILDE}),
        ("cat <(ls)", 1, {m.PROCESS}),
        ("echo plain", 1, set()),
    ],
)
def test_expansions_are_kept(line: str, index: int, kinds: set[str]) -> None:
    assert parse_one(line).words[index].expansions == kinds


def test_dynamic_words_have_no_value() -> None:
    cmd = parse_one('"$(which rm)" -rf x')
    assert cmd.program is None
    assert cmd.words[0].value is None
    export = parse_one('export PAGER="$(fetch)" P="/x:$PATH"')
    assert [w.value for w in export.words[1:]] == [None, None]
    assert export.words[1].expansions == {m.COMMAND}


def test_assignments_and_redirects() -> None:
    cmd = parse_one("LANG=C TZ=UTC sort -u a > out 2>&1 < in")
    assert [(a.name, a.value.value) for a in cmd.assignments] == [("LANG", "C"), ("TZ", "UTC")]
    assert [(r.op, r.target.value if r.target else None) for r in cmd.redirects] == [
        (">", "out"), (">&", "1"), ("<", "in")]
    assert cmd.redirects[0].writes
    assert not cmd.redirects[2].writes


def test_here_documents_keep_their_body() -> None:
    cmd = parse_one("bash <<EOF\nrm -rf ~\nEOF")
    (redirect,) = cmd.redirects
    assert redirect.feeds_input
    assert redirect.heredoc == "rm -rf ~\n"
    assert redirect.heredoc_expands
    assert not parse_one("bash <<'EOF'\nx\nEOF").redirects[0].heredoc_expands


def test_here_string_descriptor_is_not_a_word() -> None:
    cmd = parse_one("bash 0<<<'rm -rf ~'")
    assert [w.text for w in cmd.words] == ["bash"]
    assert [(r.op, r.fd) for r in cmd.redirects] == [("<<<", 0)]


@pytest.mark.parametrize("line", [
    "bash <<'EOF'\n\\rm -rf ~\nEOF", "bash <<EOF\n\\rm -rf ~\nls\nEOF",
    "cat <<'EOF' | sh\n\\rm -rf ~\nEOF",
])
def test_heredoc_body_starting_with_a_backslash_is_kept(line: str) -> None:
    """tree-sitter-bash reads such a first line as words after the start: the body is the
    lines up to the end delimiter all the same."""
    heredoc = next(r.heredoc for c in parse(line).commands for r in c.redirects if r.heredoc)
    assert heredoc.startswith("\\rm -rf ~\n")


def test_pipeline_neighbours() -> None:
    curl, sudo, tee = parse("curl -s x | sudo bash | tee log").commands
    assert curl.downstream == ("sudo", "tee")
    assert sudo.upstream == ("curl",) and sudo.downstream == ("tee",)
    assert curl.pipes_into({"tee"}) and tee.pipes_from({"curl"})


def test_nesting_and_background() -> None:
    outer, inner = parse("sleep $(id) &").commands
    assert outer.background and inner.inside("command_substitution")
    assert parse("(ls)").commands[0].inside("subshell")


def test_syntax_errors_are_flagged() -> None:
    assert parse("echo $(rm -rf ~").has_error
    assert not parse("echo ok").has_error


@pytest.mark.parametrize("line", ["git status", "a && b | c ; d", "LANG=C ls -la /tmp",
                                  "make -j4 test", "ls | grep -v x"])
def test_plain_fast_path_matches_the_parser(line: str) -> None:
    from clawgate.shell.fastpath import is_plain, parse_plain
    from clawgate.shell.treesitter import parse_tree

    assert is_plain(line)
    fast, full = parse_plain(line), parse_tree(line)
    assert [(c.argv, c.upstream, c.downstream, [a.name for a in c.assignments])
            for c in fast.commands] == [
        (c.argv, c.upstream, c.downstream, [a.name for a in c.assignments])
        for c in full.commands]


@pytest.mark.parametrize("line", ["ls &", "a ;; b", "| a", "a &&& b", "echo 'x'", "ls *",
                                  "echo ~", "a || ", "echo $x"])
def test_fast_path_refuses_anything_special(line: str) -> None:
    from clawgate.shell.fastpath import is_plain

    assert not is_plain(line)


def test_a_word_tree_sitter_drops_before_a_here_document_is_put_back() -> None:
    cmd = parse_one("python3 - <<EOF\nprint(1)\nEOF")
    assert cmd.argv == ("python3", "-")


@pytest.mark.parametrize(("line", "redirected"), [
    # tree-sitter hangs these on the whole pipeline or list; bash on its last command
    ("a | b > x", ["b"]),
    ("a && b | c > x", ["c"]),
    ("ls || pwd >/dev/null", ["pwd"]),
    ("a | b <<EOF\nx\nEOF", ["b"]),
    ("a | (b; c) > x", ["b", "c"]),
    ("{ a && b; } > x", ["a", "b"]),  # a group is redirected whole
    ("cat <<EOF | grep x\nx\nEOF", ["cat"]),
])
def test_redirections_belong_to_the_last_command(line: str, redirected: list[str]) -> None:
    assert [c.program for c in parse(line).commands if c.redirects] == redirected


@pytest.mark.parametrize(("line", "argv"), [
    ("echo >&2 hi there", ("echo", "hi", "there")),
    ("rm 2>/dev/null -rf build", ("rm", "-rf", "build")),
    ("rm >/dev/null -r 2>&1 -f build", ("rm", "-r", "-f", "build")),
    ("FOO=1 make >build.log 2>&1 test", ("make", "test")),
])
def test_words_after_a_redirection_target_are_arguments(line: str, argv: tuple[str, ...]
                                                        ) -> None:
    """tree-sitter-bash hangs them on the redirection as more targets; bash passes them on."""
    cmd = parse_one(line)
    assert cmd.argv == argv
    assert cmd.text.endswith(argv[-1])  # the text the validators search runs to them too


def test_words_after_a_redirection_of_a_list_go_to_its_last_command() -> None:
    parsed = parse("true && rm 2>/dev/null -rf build | cat")
    assert [c.argv for c in parsed.commands] == [("true",), ("rm", "-rf", "build"), ("cat",)]
    assert parse("{ ls; } >out.txt more").has_error  # bash: a syntax error
    negated = parse("! grep &>/dev/null x errlog")
    assert [c.argv for c in negated.commands] == [("grep", "x", "errlog")]
    assert not negated.has_error


@pytest.mark.parametrize(("line", "joined"), [
    ("r\\\nm x", "rm x"),
    ("echo 'a\\\nb'", "echo 'a\\\nb'"),  # inside single quotes: kept
    ("cat <<EOF\n0\\\nEOF\nEOF", "cat <<EOF\n0EOF\nEOF"),  # an expanding body joins
    ("cat <<'EOF'\n0\\\nEOF", "cat <<'EOF'\n0\\\nEOF"),  # a quoted delimiter's body does not
    ("cat <<'A' <<B\na\\\nA\nb\\\nc\nB", "cat <<'A' <<B\na\\\nA\nbc\nB"),
])
def test_line_continuations_are_joined_where_bash_joins_them(line: str, joined: str) -> None:
    assert join_continuations(line) == joined


@pytest.mark.parametrize("line", ["ls -l", "echo 'a b' | wc", "x=$(id) && rm -rf \"$x\"",
                                  "cat <<E\nbody\nE"])
def test_a_reading_is_kept_for_the_same_text_and_equals_a_fresh_one(line: str) -> None:
    first = parse(line)
    assert parse(line) is first
    for i in range(RECENT_READINGS):
        parse(f"echo {i}")
    again = parse(line)  # no longer kept: read anew, the same reading
    assert again is not first
    assert again == first


def test_a_huge_line_is_read_but_not_kept() -> None:
    from clawgate.shell import RECENT_MAX_CHARS

    line = "echo " + "a" * RECENT_MAX_CHARS
    first = parse(line)
    again = parse(line)
    assert again is not first
    assert again == first
