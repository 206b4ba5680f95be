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
    "résumé.txt", "日本", "-exec", "{}", "+",
)
RESERVED = frozenset("if then else elif fi do done case esac while until for in function select "
                     "time coproc { } ! [[ ]]".split())
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
    dq = st.lists(st.one_of(_inner_text.map(_dq_literal), _variable), min_size=0, max_size=3)
    return st.one_of(
        _bare, _bare, _bare,
        _inner_text.map(_single),
        dq.map(_double),
        _inner_text.map(_ansi_c),
        _inner_text.map(lambda t: '$"' + _dq_literal(t) + '"'),
        _variable, _glob, _brace, _tilde,
        st.sampled_from(VOCABULARY).map(_single),
    )


@functools.cache
def words(commands: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[str]:
    """One shell word as written: any quoting style, expansions, and (given ``commands``)
    command and process substitutions; sometimes two pieces glued into one word."""
    single = _plain_word()
    if commands is not None:
        single = st.one_of(
            single,
            commands.map(lambda c: f"$({c})"),
            commands.map(lambda c: f'"$({c})"'),
            commands.map(lambda c: f"<({c})"),
        )
    glued = st.tuples(single, _plain_word()).map(lambda p: p[0] + p[1])
    return st.one_of(single, single, glued)


_redirect = st.one_of(
    st.sampled_from(["> out.txt", ">> log", "< in.txt", "2>&1", "2>/dev/null", "&>/dev/null",
                     ">| f", "<> f", "3>&-", "> /etc/passwd", ">/dev/sda"]),
    _bare.map(lambda w: f"<<< {w}"),
)
_assignment = st.tuples(st.sampled_from(["x", "FOO", "PATH", "LD_PRELOAD", "IFS"]),
                        _plain_word()).map(lambda p: f"{p[0]}={p[1]}")


@st.composite
def _simple(draw: st.DrawFn, inner: st.SearchStrategy[str] | None) -> str:
    parts = draw(st.lists(_assignment, max_size=1))
    parts.append(draw(st.one_of(st.sampled_from(PROGRAMS), _plain_word())))
    parts.extend(draw(st.lists(words(inner), max_size=4)))
    parts.extend(draw(st.lists(_redirect, max_size=1)))
    line = " ".join(parts)
    # A leading word that reads as a reserved word would change the grammar.
    first = line.split(" ", 1)[0]
    return "command " + line if first in RESERVED or first.startswith("{") else line


@functools.cache
def simple_commands() -> st.SearchStrategy[str]:
    """One simple command: optional assignment, a program, words, an optional redirection."""
    return _simple(None)


def _compound(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    two = st.tuples(inner, inner)
    return st.one_of(
        two.map(lambda p: f"{p[0]} | {p[1]}"),
        two.map(lambda p: f"{p[0]} && {p[1]}"),
        two.map(lambda p: f"{p[0]} || {p[1]}"),
        two.map(lambda p: f"{p[0]}; {p[1]}"),
        two.map(lambda p: f"{p[0]} & {p[1]}"),
        two.map(lambda p: f"{p[0]}\n{p[1]}"),
        inner.map(lambda c: f"( {c} )"),
        inner.map(lambda c: f"{{ {c}; }}"),
        inner.map(lambda c: f"! {c}"),
        inner.map(lambda c: f"time {c}"),
        two.map(lambda p: f"if {p[0]}; then {p[1]}; fi"),
        two.map(lambda p: f"if {p[0]}; then :; else {p[1]}; fi"),
        inner.map(lambda c: f"for f in a b *.txt; do {c}; done"),
        two.map(lambda p: f"while {p[0]}; do {p[1]}; done"),
        inner.map(lambda c: f"case $x in a|b) {c};; *) :;; esac"),
        inner.map(lambda c: f"f() {{ {c}; }}; f"),
        inner.map(lambda c: f"echo `{c}`" if "`" not in c else f"echo $({c})"),
        inner.map(lambda c: f"[[ -f x ]] && {c}"),
        inner.map(lambda c: f"(( x++ )) || {c}"),
    )


@functools.cache
def command_lists() -> st.SearchStrategy[str]:
    """Simple commands composed into pipelines, lists, subshells, groups, loops, conditionals,
    functions and substitutions, nested a few levels deep."""
    return st.recursive(
        st.deferred(lambda: _simple(None)),
        lambda inner: st.one_of(_compound(inner), _simple(inner)),
        max_leaves=6,
    )


_delimiter = st.sampled_from(["EOF", "END", "x"])
_body_line = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=16),
    st.sampled_from(["$HOME", "$(id)", "`whoami`", "rm -rf /", "'quoted'", '"dq"']),
)


@st.composite
def heredocs(draw: st.DrawFn) -> str:
    """A command fed by a here-document (quoted or expanding delimiter, ``<<-`` with tabs)."""
    delim = draw(_delimiter)
    quoted = draw(st.sampled_from(["", "'", '"']))
    dash = draw(st.sampled_from(["", "-"]))
    head = draw(st.sampled_from(["cat", "bash", "sh", "python3 -", "tee out.txt", "mysql"]))
    tail = draw(st.sampled_from(["", " | sh", " > out.txt", " | grep x"]))
    body = [b for b in draw(st.lists(_body_line, max_size=3)) if b.strip("\t") != delim]
    indent = "\t" if dash else ""
    lines = [f"{head} <<{dash}{quoted}{delim}{quoted}{tail}", *body, f"{indent}{delim}"]
    return "\n".join(lines)


_comment = st.sampled_from(["  # done", "  # it's fine", " # $(id)", ""])
_separator = st.sampled_from(["; ", " && ", " || ", " | ", "\n", " & "])


@st.composite
def _lines(draw: st.DrawFn, statement: st.SearchStrategy[str]) -> str:
    statements = draw(st.lists(statement, min_size=1, max_size=3))
    out = statements[0]
    for following in statements[1:]:
        out = join_lines(out, draw(_separator), following)
    return out + draw(_comment) if "\n" not in out else out


@functools.cache
def lines() -> st.SearchStrategy[str]:
    """A whole command line: statements joined by operators or newlines, here-documents among
    them, and an optional trailing comment. Always complete: another command may follow it on
    a new line."""
    return _lines(st.one_of(command_lists(), command_lists(), heredocs()))


def join_lines(line: str, sep: str, extra: str) -> str:
    """``line``, then ``sep`` and ``extra`` -- or a newline where ``sep`` cannot follow ``line``
    (a here-document or a comment ends it)."""
    if "<<" in line.replace("<<<", "") or "#" in line:
        sep = "\n"
    return f"{line}{sep}{extra}"
