"""Where a line's text is quoted, as bash reads it: single-quoted spans (bash runs nothing in
them), here-document bodies and comments. Shared by the parser differential and the raw-text
checks."""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern

_WORD_BREAKS = frozenset(" \t\n;|&()<>")
# The characters ``single_quoted`` acts on; a run of any others it passes over in one step.
_LOUD = frozenset("\\\n$()\"<#'")
_QUIET_RUN = lazy_pattern(r"[^\\\n$()\"<#']+")
HEREDOC = lazy_pattern(r"(?<!<)<<-?\s*(['\"]?)([A-Za-z0-9_.-]+)\1")


def blank_single_quoted(line: str) -> str:
    """``line`` with the text inside single quotes (and ``$'...'``) replaced by ``x``.

    Single-quoted text is literal to bash, so it cannot change command boundaries; bashlex,
    though, loops forever on some of it (``echo '${'x``). Positions are kept.
    """
    spans = single_quoted(line)
    if not spans and "<<" not in line:
        return line
    chars = list(line)
    for start, end in spans:
        for i in range(start + 1, min(end, len(chars))):
            if chars[i] != "\n":
                chars[i] = "x"
    # bashlex wants the quotes of a quoted here-document delimiter (<<'EOF') on the closing
    # line too; bash does not. Spaces keep every position: << EOF is the same to bash.
    for found in HEREDOC.finditer(line):
        if found.group(1):
            chars[found.start(1)] = chars[found.end() - 1] = " "
    return "".join(chars)


def single_quoted(line: str) -> list[tuple[int, int]]:
    """Character spans inside single quotes (and ``$'...'``), where bash runs nothing. Comments
    and here-document bodies are skipped: a quote in them opens nothing; inside a double-quoted
    ``"$( … )"`` quotes open again."""
    spans: list[tuple[int, int]] = []
    if "'" not in line:
        return spans  # a span opens only at a quote
    pending: list[str] = []  # here-document delimiters whose bodies start at the next newline
    double = False
    outer: list[tuple[bool, int]] = []  # (double, parens) outside each "$( ... )" entered
    parens = 0
    i = 0
    while i < len(line):
        ch = line[i]
        if ch not in _LOUD:  # a run of characters that change nothing here: skipped at once
            i = _QUIET_RUN.match(line, i).end()  # type: ignore[union-attr]
            continue
        if ch == "\\":
            i += 2
            continue
        if ch == "\n" and pending and not double:
            i = after_bodies(line, i + 1, pending)
            pending = []
            continue
        if double and line.startswith("$(", i):  # quotes start afresh inside "$( )"
            outer.append((double, parens))
            double, parens, i = False, 0, i + 2
            continue
        if outer and not double and ch in "()":
            parens += 1 if ch == "(" else -1
            if parens < 0:
                double, parens = outer.pop()
        elif ch == '"':
            double = not double
        elif ch == "<" and not double and line.startswith("<<", i) and not line.startswith(
                "<<<", i):
            found = HEREDOC.match(line, i)
            if found:
                pending.append(found.group(2))
                i = found.end()
                continue
        elif ch == "#" and not double and (i == 0 or line[i - 1] in _WORD_BREAKS):
            newline = line.find("\n", i)
            i = len(line) if newline < 0 else newline
            continue
        elif ch == "'" and not double:
            ansi = i > 0 and line[i - 1] == "$"
            end = _closing_quote(line, i + 1, ansi)
            spans.append((i, end))
            i = end
        i += 1
    return spans


def after_bodies(line: str, start: int, delimiters: list[str]) -> int:
    """Where the line goes on after the here-document bodies that start at ``start``."""
    return read_bodies(line, start, delimiters)[0]


def read_bodies(line: str, start: int, delimiters: list[str]) -> tuple[int, list[str]]:
    """From ``start`` (after the newline that bodies follow): where the line goes on, and the
    delimiters whose bodies the line ends inside of (bash closes those at the end of input)."""
    position = start
    for index, delimiter in enumerate(delimiters):
        while True:
            if position >= len(line):
                return len(line), delimiters[index:]
            end = line.find("\n", position)
            end = len(line) if end < 0 else end
            done = line[position:end].strip("\t") == delimiter
            position = end + 1
            if done:
                break
    return min(position, len(line)), []


def _closing_quote(line: str, start: int, ansi: bool) -> int:
    if not ansi:
        end = line.find("'", start)
        return len(line) if end < 0 else end
    i = start
    while i < len(line):
        if ansi and line[i] == "\\":
            i += 2
            continue
        if line[i] == "'":
            return i
        i += 1
    return len(line)


_FIRST_WORD = lazy_pattern(r"[^\s;&|()<>]*")
# A reserved word given another letter would be a command name: such a line keeps its letter.
_RESERVED = frozenset("case coproc do done elif else esac fi for function if in select then "
                      "time until while".split())


def delimiter_lookalikes(line: str) -> str | None:
    """``line`` with each line that starts like a here-document's delimiter without being
    it (``    EOF = "end"``, ``EOFX``, ``EOF `` in a body ended by ``EOF``) given another first
    letter, or None when there is none. tree-sitter-bash ends a body at such a line; bash ends
    it only at the delimiter itself (after leading tabs for ``<<-``). A letter for a letter,
    never in a reserved word: every line splits into the same words and statements as before,
    the length is kept."""
    starts = list(HEREDOC.finditer(line))
    if not starts:
        return None
    exact = {m.group(2) for m in starts}
    tabbed = {m.group(2) for m in starts if line[m.start(): m.start() + 3] == "<<-"}
    chars: list[str] | None = None
    offset = line.find("\n", starts[0].end())
    while 0 <= offset < len(line):
        begin = offset + 1
        end = line.find("\n", begin)
        end = len(line) if end < 0 else end
        text = line[begin:end]
        first = text.lstrip(" \t")
        if first and (first[0].isalnum() or first[0] == "_") and text not in exact and (
                text.lstrip("\t") not in tabbed) and any(first.startswith(d) for d in exact) and (
                _FIRST_WORD.match(first).group(0) not in _RESERVED):  # type: ignore[union-attr]
            chars = chars if chars is not None else list(line)
            at = begin + len(text) - len(first)
            chars[at] = "y" if chars[at] == "x" else "x"
        offset = end if end < len(line) else -1
    return None if chars is None else "".join(chars)


def substitution_ends(line: str) -> bool:
    """A line of ``line`` is a here-document's delimiter then ``)`` (``EOF) ls``): inside a
    command or process substitution bash ends the body there, which the delimiter readers
    here (``delimiter_lookalikes``, ``heredocend``) do not follow. Only a here-document
    started after a substitution's opening counts (elsewhere ``EOF)`` is body text)."""
    delimiters = {m.group(2) for m in HEREDOC.finditer(line)
                  if any(o in line[:m.start()] for o in ("$(", "<(", ">("))}
    return any(text.lstrip("\t").startswith(f"{d})") for text in line.split("\n")
               for d in delimiters)
