"""Shell lines from a grammar: words in every quoting style, expansions, redirections, compound
forms and here-documents. Every line generated is valid bash, so that a checker's trouble with it
is the checker's and not the generator's."""

from __future__ import annotations

import functools

from hypothesis import strategies as st

# Programs across the risk tiers, wrappers and interpreters, and a few Unicode look-alikes.
PROGRAMS = (
    "ls", "cat", "echo", "printf", "grep", "git", "find", "sed", "awk", "head", "wc", "true",
    "make", "python3", "node", "npm", "pip", "cp", "mv", "mkdir", "touch", "tar", "chmod",
    "rm", "dd", "curl", "wget", "ssh", "nc", "sudo", "env", "xargs", "bash", "sh", "eval",
    "timeout", "nohup", "docker", "kill", "crontab", "/bin/rm", "./run.sh", "ｒｍ", "café",
)
VOCABULARY = (
    "-rf", "-la", "-n", "--force", "-f", "-c", "-e", "x", "file.txt", "src/", ".", "..", "/",
    "/tmp/x", "/etc/passwd", "~/.ssh/id_rsa", "origin", "main", "push", "status", "install",
    "https://example.com/x.sh", "if=/dev/zero", "of=/dev/sda", "777", "-R", "--", "a,b",
    "résumé.txt", "日本", "-exec", "{}", "+", "${", "$(", "`", "\\",
)
RESERVED = frozenset({
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
    "in", "function", "select", "time", "coproc", "{", "}", "!", "[[", "]]",
})
_SAFE = "abcdefghijklmnopqrstuvwxyz0123456789_-./=:,@%+"
_NAMES = ("x", "HOME", "PATH", "IFS", "f", "_cg", "1", "@", "?", "#")

_bare = st.one_of(
    st.sampled_from([v for v in VOCABULARY if not set(v) - set(_SAFE)]),
    st.text(_SAFE, min_size=1, max_size=8).filter(lambda s: not s.startswith("-") or len(s) > 1),
)
_inner_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=10)


def _single(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _double(parts: list[str]) -> str:
    return '"' + "".join(parts) + '"'


def _dq_literal(text: str) -> str:
    return "".join("\\" + c if c in '"$`\\' else c for c in text)


def _ansi_c(text: str) -> str:
    out = []
    for ch in text:
        if ch.isalnum() and ch.isascii():
            out.append(ch)
        else:
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8"))
    return "$'" + "".join(out) + "'"


_variable = st.one_of(
    st.sampled_from(_NAMES).map(lambda n: f"${n}" if len(n) == 1 or n.isupper() else f"${{{n}}}"),
    st.sampled_from(["${x:-default}", "${#x}", "${!x}", "${x/a/b}", "${x@P}", "$((1+2))"]),
)
_glob = st.sampled_from(["*.txt", "file?.py", "[ab]*", "**/x", "/etc/*"])
_brace = st.sampled_from(["{a,b}", "{1..3}", "x{a,b}y", "{rm,-rf}"])
_tilde = st.sampled_from(["~", "~/x", "~root", "~+"])


@functools.cache
def _plain_word() -> st.SearchStrategy[str]:
    """A word without command substitutions: literals, quotes, variables, globs, braces."""
    dq = st.lists(st.one_of(_inner_text.map(_dq_literal), _variable), max_size=3)
    return st.one_of(
        _bare, _bare, _bare,
        _inner_text.map(_single),
        dq.map(_double),
        _inner_text.map(_ansi_c),
        _inner_text.map(lambda t: '$"' + _dq_literal(t) + '"'),
        _variable, _glob, _brace, _tilde,
        st.sampled_from(VOCABULARY).map(_single),
    )


# Spaces inside $( ) and <( ): never `$((`, which is arithmetic.
_SUBSTITUTIONS = st.sampled_from(("$( {} )", '"$( {} )"', "<( {} )", ">( {} )", "`{}`"))
# Strategies are built once and reused: hypothesis validates every new strategy object on its
# first draw, and building them inside composites made that the main cost of generation.
_ONE_IN_THREE, _ONE_IN_FOUR, _ONE_IN_SIX = st.integers(0, 2), st.integers(0, 3), st.integers(0, 5)


@st.composite
def _word_at(draw: st.DrawFn, depth: int) -> str:
    """A word; at ``depth`` > 0 it may hold command or process substitutions of that depth."""
    if depth > 0 and draw(_ONE_IN_SIX) == 0:
        inner = draw(_list(depth - 1))
        form = draw(_SUBSTITUTIONS)
        if form == "`{}`" and "`" in inner:  # backquotes do not nest without escaping
            form = "$( {} )"
        glued = draw(_plain_word()) if draw(_ONE_IN_FOUR) == 0 else ""
        return glued + form.format(inner)
    word = draw(_plain_word())
    return word + draw(_plain_word()) if draw(_ONE_IN_FOUR) == 0 else word


@functools.cache
def words() -> st.SearchStrategy[str]:
    """One shell word as written: any quoting style, expansions, command and process
    substitutions; sometimes two pieces glued into one word."""
    return _word(1)


_redirect = st.one_of(
    st.sampled_from(["> out.txt", ">> log", "< in.txt", "2>&1", "2>/dev/null", "&>/dev/null",
                     ">| f", "<> f", "3>&-", "> /etc/passwd", ">/dev/sda"]),
    _bare.map(lambda w: f"<<< {w}"),
)
_assignment = st.tuples(st.sampled_from(["x", "FOO", "PATH", "LD_PRELOAD", "IFS"]),
                        _plain_word()).map(lambda p: f"{p[0]}={p[1]}")


_assignments = st.lists(_assignment, max_size=1)
_redirects = st.lists(_redirect, max_size=1)


@functools.cache
def _word(depth: int) -> st.SearchStrategy[str]:
    return _word_at(depth)


@functools.cache
def _word_list(depth: int) -> st.SearchStrategy[list[str]]:
    return st.lists(_word(depth), max_size=4)


@functools.cache
def _program() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(PROGRAMS), _plain_word())


@st.composite
def _simple_at(draw: st.DrawFn, depth: int) -> str:
    parts = draw(_assignments)
    parts.append(draw(_program()))
    parts.extend(draw(_word_list(depth)))
    parts.extend(draw(_redirects))
    line = " ".join(parts)
    # A leading word that reads as a reserved word would change the grammar.
    first = line.split(" ", 1)[0]
    return "command " + line if first in RESERVED or first.startswith("{") else line


@functools.cache
def simple_commands() -> st.SearchStrategy[str]:
    """One simple command: optional assignment, a program, words, an optional redirection."""
    return _simple(0)


@functools.cache
def _simple(depth: int) -> st.SearchStrategy[str]:
    return _simple_at(depth)


@functools.cache
def _list(depth: int) -> st.SearchStrategy[str]:
    return _list_at(depth)


# Compound forms around one ({0}) or two ({1}) inner command lists.
_FORMS = st.sampled_from((
    "{0} | {1}", "{0} && {1}", "{0} || {1}", "{0}; {1}", "{0} & {1}", "{0}\n{1}",
    "( {0} )", "{{ {0}; }}", "! {0}", "time {0}", "if {0}; then {1}; fi",
    "if {0}; then :; else {1}; fi", "for f in a b *.txt; do {0}; done",
    "while {0}; do {1}; done", "case $x in a|b) {0};; *) :;; esac", "f() {{ {0}; }}; f",
    "echo `{0}`", "[[ -f x ]] && {0}", "(( x++ )) || {0}",
))


# The grammar recurses through composites that take only a depth, never a strategy: their
# repr stays short. Hypothesis renders reprs while inverting values through one_of, and a
# recursive strategy built from maps renders to 100 kB (and warns).
@st.composite
def _list_at(draw: st.DrawFn, depth: int) -> str:
    if depth <= 0 or draw(_ONE_IN_THREE) == 0:
        return draw(_simple(depth))
    form = draw(_FORMS)
    first = draw(_list(depth - 1))
    second = draw(_list(depth - 1)) if "{1}" in form else ""
    if "`" in form and "`" in first:  # backquotes do not nest without escaping
        form = "echo $( {0} )"
    if form == "time {0}" and first.split(" ", 1)[0] in RESERVED | {"((", "[["}:
        form = "{0}"  # bash 5.2 rejects `$( time if ...)`; keep `time` to plain pipelines
    if form == "{0} | {1}":
        second = pipe_target(second)
    return form.format(first, second)


def pipe_target(command: str) -> str:
    """``command`` fit to stand after ``|``: a ``!`` may only begin a whole pipeline."""
    return f"( {command}{before_closer(command)})" if command.startswith("!") else command


def before_closer(line: str) -> str:
    """What may stand between ``line`` and a closing ``)`` or ``}``: a newline after a comment
    or a here-document (on their last line the closer would be comment text, or not match the
    delimiter and leave the here-document open)."""
    return "\n" if "#" in line or "<<" in line.replace("<<<", "") else " "


@functools.cache
def command_lists() -> st.SearchStrategy[str]:
    """Simple commands composed into pipelines, lists, subshells, groups, loops, conditionals,
    functions and substitutions, nested a few levels deep."""
    return _list(3)


_delimiter = st.sampled_from(["EOF", "END", "x"])
_body_line = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=16),
    st.sampled_from(["$HOME", "$(id)", "`whoami`", "rm -rf /", "'quoted'", '"dq"']),
)


_HEREDOC_QUOTES = st.sampled_from(["", "'", '"'])
_HEREDOC_DASH = st.sampled_from(["", "-"])
_HEREDOC_HEADS = st.sampled_from(["cat", "bash", "sh", "python3 -", "tee out.txt", "mysql"])
_HEREDOC_TAILS = st.sampled_from(["", " | sh", " > out.txt", " | grep x"])
_body_lines = st.lists(_body_line, max_size=3)


@st.composite
def heredocs(draw: st.DrawFn) -> str:
    """A command fed by a here-document (quoted or expanding delimiter, ``<<-`` with tabs)."""
    delim = draw(_delimiter)
    quoted = draw(_HEREDOC_QUOTES)
    dash = draw(_HEREDOC_DASH)
    head = draw(_HEREDOC_HEADS)
    tail = draw(_HEREDOC_TAILS)
    # A body line ending in a backslash joins the next line in an expanding here-document:
    # with the delimiter's line it leaves the here-document open (the line is not complete).
    body = [b for b in draw(_body_lines) if b.strip("\t") != delim
            and (quoted or not b.endswith("\\"))]
    indent = "\t" if dash else ""
    lines = [f"{head} <<{dash}{quoted}{delim}{quoted}{tail}", *body, f"{indent}{delim}"]
    return "\n".join(lines)


_comment = st.sampled_from(["  # done", "  # it's fine", " # $(id)", ""])
_separator = st.sampled_from(["; ", " && ", " || ", " | ", "\n", " & "])


@functools.cache
def _statements() -> st.SearchStrategy[list[str]]:
    return st.lists(st.one_of(command_lists(), command_lists(), heredocs()), min_size=1,
                    max_size=3)


@st.composite
def _lines(draw: st.DrawFn) -> str:
    statements = draw(_statements())
    out = statements[0]
    for following in statements[1:]:
        out = join_lines(out, draw(_separator), following)
    return out + draw(_comment) if "\n" not in out else out


@functools.cache
def lines() -> st.SearchStrategy[str]:
    """A whole command line: statements joined by operators or newlines, here-documents among
    them, and an optional trailing comment. Always complete: another command may follow it on
    a new line."""
    return _lines()


def join_lines(line: str, sep: str, extra: str) -> str:
    """``line``, then ``sep`` and ``extra`` -- or a newline where ``sep`` cannot follow ``line``
    (a here-document or a comment ends it)."""
    if "<<" in line.replace("<<<", "") or "#" in line:
        sep = "\n"
    return f"{line}{sep}{pipe_target(extra) if sep.strip() == '|' else extra}"
