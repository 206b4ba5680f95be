"""Shell parsing: tree-sitter-bash (and a plain-word fast path) into one command model."""

from __future__ import annotations

from functools import lru_cache

from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import (
    Assignment,
    ParsedLine,
    Redirect,
    SimpleCommand,
    Word,
)

MAX_LINE_BYTES = 1 << 20  # longer lines are refused before any parser sees them
RECENT_READINGS = 16  # readings kept for the same text read again within one decision
RECENT_MAX_CHARS = 1 << 16  # of lines up to this long


def parse(line: str) -> ParsedLine:
    """Every simple command in ``line``. Lines of plain words, and of plain words and plain
    quotes, skip the parser (same result, faster).

    Backslash-newline pairs outside single quotes are removed first, as bash does before it
    splits words (tree-sitter-bash would otherwise split ``r\\<newline>m`` into two words).

    One decision reads the same text several times (a comment or here-document body is
    parsed to see whether it is a command and then checked as a line, a line's resolved
    reading is made and then checked, the parser differential reads a subshell's body): the
    last few readings are kept (a reading is frozen and a pure function of the text).
    """
    if len(line) > RECENT_MAX_CHARS:
        return _read_line(line)  # a huge reading is not held on to
    return _recent(line)


@lru_cache(maxsize=RECENT_READINGS)
def _recent(line: str) -> ParsedLine:
    return _read_line(line)


def forget() -> None:
    """Drop the readings kept (for timing a line's first sight)."""
    _recent.cache_clear()


def _read_line(line: str) -> ParsedLine:
    from clawgate.shell.fastpath import plain_line

    if "\\\n" in line:
        line = join_continuations(line)

    plain = plain_line(line)
    if plain is not None:
        return plain
    if "'" in line or '"' in line:
        from clawgate.shell.quotedpath import parse_quoted

        quoted = parse_quoted(line)
        if quoted is not None:
            return quoted
    from clawgate.shell.treesitter import parse_tree

    parsed = parse_tree(line)
    if "<<" in line and (parsed.has_error or _ends_in_body(line)):
        parsed = _bodies_closed(line) or parsed
    if (parsed.has_error or parsed.written is None) and line.lstrip(" \t").startswith("<<"):
        parsed = _heredoc_first(line) or parsed  # tree-sitter never reads this one right
    if parsed.has_error and "(" in line:
        return _without_zsh_qualifiers(line) or parsed
    return parsed


def _ends_in_body(line: str) -> bool:
    """bash's reading of ``line`` ends inside a here-document body: no line of it is the
    delimiter exactly (``EOF # note`` is body text to bash, and an unquoted body runs its
    substitutions), where tree-sitter-bash may have taken such a line for the end."""
    from clawgate.shell.heredocend import unclosed
    from clawgate.shell.quoting import substitution_ends

    return not substitution_ends(line) and bool(unclosed(line))


def _bodies_closed(line: str) -> ParsedLine | None:
    """The reading of a line that ends inside here-document bodies, closed there as bash
    closes them (``heredocend``); None when that does not make it parse."""
    from clawgate.shell.heredocend import close_bodies
    from clawgate.shell.treesitter import parse_tree

    closed = close_bodies(line)
    if closed is None:
        return None
    parsed = parse_tree(closed)
    return None if parsed.has_error else parsed


def _heredoc_first(line: str) -> ParsedLine | None:
    """The reading of a line whose first command is a here-document alone (``heredoclead``),
    its bodies closed as bash closes them at the end of the text; None if none."""
    from clawgate.shell.heredocend import close_bodies
    from clawgate.shell.heredoclead import read_lead, starts_with_heredoc

    if not starts_with_heredoc(line):
        return None
    return read_lead(close_bodies(line) or line)


def _without_zsh_qualifiers(line: str) -> ParsedLine | None:
    """zsh's glob qualifiers (``*(.)``, ``**/*.py(om[1,3])``, ``*(/N)``) are no bash syntax:
    a line that parses once they are taken out is read without them. They only narrow what the
    glob matches, so the line without them reaches at least as much. Qualifiers that run code
    (``e:…:``, ``+func``) or add words (``P:…:``) are left in: that line stays unparsed."""
    from clawgate.shell.treesitter import parse_tree

    stripped = _ZSH_QUALIFIER.sub(r"\1", line)
    if stripped == line:
        return None
    parsed = parse_tree(stripped)
    return None if parsed.has_error else parsed


# A glob word closed by a parenthesised run of safe qualifier characters: no e, +, P, quotes.
_ZSH_QUALIFIER = lazy_pattern(r"(?<![^\s;|&(])"
                              r"([^\s()'\"=<>|&;$`]{0,64}[*?\]][^\s()'\"<>|&;$`]{0,64}?)"
                              r"\((?:[/.@=p*%rwxRWXAIEstfduagMmcLNnoODFTYlhk^\-,:\[\]0-9]|\+(?=\d))"
                              r"{1,32}\)"
                              r"(?=$|[\s;|&)])")


def join_continuations(line: str) -> str:
    """``line`` without the backslash-newline pairs bash removes (those outside '...' and
    outside the bodies of here-documents whose delimiter is quoted: ``<<'EOF'`` bodies are
    read as they stand, a backslash at a line's end included). A comment runs to the end of
    its line whatever it ends with: a backslash in it continues nothing (``ls # note \\``
    and a newline: the next line is a command of its own)."""
    out: list[str] = []
    quote = ""
    pending: list[tuple[str, bool]] = []  # here-documents whose bodies start at the next newline
    i = 0
    while i < len(line):
        ch = line[i]
        if not quote and ch == "#" and _starts_word(out):
            end = line.find("\n", i)
            end = len(line) if end < 0 else end
            out.append(line[i:end])
            i = end
            continue
        if not quote and ch == "<" and line.startswith("<<", i):
            from clawgate.shell.quoting import HEREDOC

            found = HEREDOC.match(line, i)
            if found is not None:
                pending.append((found.group(2), bool(found.group(1))))
                out.append(found.group(0))
                i = found.end()
                continue
        if not quote and ch == "\n" and pending:
            i = _literal_bodies(line, i, pending, out)
            pending = []
            continue
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif quote == "$'" and ch in "\\'":  # ANSI-C quoting: a backslash escapes a quote
            quote = "" if ch == "'" else quote
            out.append(line[i : i + (1 if ch == "'" else 2)])
            i += 1 if ch == "'" else 2
            continue
        elif quote == "$'":
            pass
        elif ch == "\\" and line.startswith("\n", i + 1):
            i += 2
            continue
        elif ch == "\\":
            out.append(line[i : i + 2])
            i += 2
            continue
        elif ch == '"':
            quote = "" if quote == '"' else '"'
        elif ch == "'" and not quote:
            quote = "$'" if out and out[-1] == "$" else "'"
        out.append(ch)
        i += 1
    return "".join(out)


# What a ``#`` must follow to start a comment: the start of a word (bash's metacharacters).
_COMMENT_AFTER = frozenset(" \t\n;&|()<>")


def _starts_word(out: list[str]) -> bool:
    """Whether what ``out`` ends with leaves the next character at the start of a word (not
    after an escaped blank: ``\\ #`` is inside one)."""
    if not out:
        return True
    last = out[-1]
    return last[-1:] in _COMMENT_AFTER and not (len(last) == 2 and last[0] == "\\")


def _literal_bodies(line: str, i: int, pending: list[tuple[str, bool]], out: list[str]) -> int:
    """At the newline ``i`` that here-document bodies follow: copy those of quoted delimiters
    as they stand (in order, up to the first unquoted one, whose body is joined as any text);
    where the scan goes on."""
    from clawgate.shell.quoting import after_bodies

    out.append("\n")
    position = i + 1
    for delimiter, quoted in pending:
        if not quoted:
            break
        end = min(after_bodies(line, position, [delimiter]), len(line))
        out.append(line[position:end])
        position = end
    return position


def parse_one(line: str) -> SimpleCommand:
    """The first simple command of ``line`` (for tests and small tools)."""
    commands = parse(line).commands
    if not commands:
        raise ValueError(f"no command in {line!r}")
    return commands[0]


__all__ = [
    "MAX_LINE_BYTES",
    "Assignment",
    "ParsedLine",
    "Redirect",
    "SimpleCommand",
    "Word",
    "parse",
    "parse_one",
]
