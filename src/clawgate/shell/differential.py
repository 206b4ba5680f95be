"""The second opinion: bashlex's reading of a line, compared with tree-sitter's.

Where both parse but see different command boundaries or different words, the line may not mean
what it looks like. bashlex does not implement ``$(( ))``, ``case`` and a few more constructs:
that is "no opinion", not a disagreement.
"""

from __future__ import annotations

import re
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

from clawgate.shell import model as m

MAX_BASHLEX_CHARS = 16_384  # bashlex is recursive and slow; longer lines get no second opinion
BASHLEX_SECONDS = 0.5  # and it can loop forever: a deadline where a signal can be taken,
BASHLEX_CALLS = 150_000  # and a budget of traced lines and calls where one cannot
_WORD_BREAKS = frozenset(" \t\n;|&()<>")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z0-9_.-]+)\1")
_UNCOMPARABLE_WORD = frozenset({m.ANSI_C, m.LOCALE, m.GLOB, m.BRACE, m.TILDE})
_SKIP_NESTING = frozenset({"heredoc", "arithmetic"})

CommandView = tuple[int, tuple[str | None, ...]]  # (start offset in characters, word values)


@dataclass(frozen=True, slots=True)
class Disagreement:
    offset: int
    detail: str


class Unavailable(Exception):
    """bashlex has no opinion on this line (unsupported construct or too long)."""


class Rejected(Exception):
    """bashlex rejects the line as a syntax error."""


def bashlex_view(line: str) -> list[CommandView]:
    if len(line) > MAX_BASHLEX_CHARS:
        raise Unavailable("too long for the second parser")
    if "((" in line:  # bashlex does not implement arithmetic, and reads ((...)) as subshells
        raise Unavailable("arithmetic")
    import bashlex
    from bashlex import ast, errors

    found: list[CommandView] = []

    class Visitor(ast.nodevisitor):  # type: ignore[misc]
        def visitcommand(self, node: ast.node, parts: list[ast.node]) -> None:
            words = tuple(
                None if getattr(p, "parts", None) else p.word for p in parts if p.kind == "word"
            )
            if words:
                found.append((node.pos[0], words))

    try:
        with _deadline(BASHLEX_SECONDS):
            trees = bashlex.parse(blank_single_quoted(line))
    except _TooSlow as exc:
        raise Unavailable("the second parser gave up") from exc
    except NotImplementedError as exc:
        raise Unavailable(str(exc)) from exc
    except errors.ParsingError as exc:
        raise Rejected(str(exc)) from exc
    except (RecursionError, AssertionError, IndexError, TypeError, AttributeError,
            ValueError, KeyError) as exc:  # bashlex's own failures: no opinion
        raise Unavailable(type(exc).__name__) from exc
    try:
        for tree in trees:
            Visitor().visit(tree)
    except (RecursionError, NotImplementedError, AttributeError) as exc:
        raise Unavailable(type(exc).__name__) from exc
    return found


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
    for found in _HEREDOC.finditer(line):
        if found.group(1):
            chars[found.start(1)] = chars[found.end() - 1] = " "
    return "".join(chars)


class _TooSlow(Exception):
    pass


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Interrupt bashlex after ``seconds`` in the main thread (a timer signal), or after a
    budget of traced lines elsewhere (a trace hook, slower: threads cannot take signals).
    bashlex loops forever on some inputs; a check must never hang."""
    if threading.current_thread() is not threading.main_thread() or signal.getitimer(
            signal.ITIMER_REAL)[0]:
        with _call_budget(BASHLEX_CALLS):
            yield
        return

    skipped = [0]

    def expire(signum: int, frame: FrameType | None) -> None:
        # Raised in a garbage-collector callback or a finalizer, the interrupt would be
        # swallowed (and bashlex loop, and grow, for good): outside bashlex's own code, wait
        # for the next tick, 50 ms on, a few times.
        if frame is not None and "bashlex" not in frame.f_code.co_filename and skipped[0] < 10:
            skipped[0] += 1
            return
        raise _TooSlow

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)  # re-armed until it gets through
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def _call_budget(calls: int) -> Iterator[None]:
    left = [calls]

    def count(frame: object, event: str, arg: object) -> object:
        left[0] -= 1
        if left[0] < 0:
            raise _TooSlow
        return count  # trace lines too: bashlex can loop inside one function

    previous = sys.gettrace()
    sys.settrace(count)  # type: ignore[arg-type]
    try:
        yield
    finally:
        sys.settrace(previous)


def tree_view(parsed: m.ParsedLine) -> list[CommandView]:
    encoded = parsed.source.encode("utf-8", "surrogateescape")
    ascii_only = len(encoded) == len(parsed.source)
    found: list[CommandView] = []
    for cmd in parsed.commands:
        if not cmd.words or cmd.program == "[[" or _SKIP_NESTING & set(cmd.nesting):
            continue
        start = cmd.offset
        if not ascii_only:
            start = len(encoded[:start].decode("utf-8", "surrogateescape"))
        values = tuple(None if w.expansions & _UNCOMPARABLE_WORD or "'" in w.text else w.value
                       for w in cmd.words)
        found.append((start, values))
    return found


def compare(parsed: m.ParsedLine, other: list[CommandView]) -> Disagreement | None:
    """The first place where the two readings differ, or None."""
    mine = dict(tree_view(parsed))
    quoted = single_quoted(parsed.source)
    theirs = {k: v for k, v in other if not (k not in mine and _inside(k, quoted))}
    for offset in sorted(set(mine) ^ set(theirs)):
        side = "tree-sitter" if offset in mine else "bashlex"
        return Disagreement(offset, f"only {side} sees a command starting at character {offset}")
    for offset, words in sorted(mine.items()):
        their_words = theirs[offset]
        if len(words) != len(their_words):
            return Disagreement(
                offset, f"the parsers split the command at {offset} into "
                f"{len(words)} and {len(their_words)} words")
        for a, b in zip(words, their_words, strict=True):
            if a is not None and b is not None and a != b and not _bashlex_bug(a, b):
                return Disagreement(offset, f"the parsers read a word as {a!r} and {b!r}")
    return None


def _bashlex_bug(tree: str, bashlex: str) -> bool:
    """Two known bashlex bugs, not two readings of the line (tree-sitter's value is bash's, and
    the validators use it): it removes every backslash inside double quotes (``"%s\\n"`` is
    ``%s\\n`` to bash, ``%sn`` to bashlex), and it removes double quotes nested in single quotes
    that start mid-word (``--opt='a "b"'``)."""
    return any(ch in tree and tree.replace(ch, "") == bashlex.replace(ch, "")
               for ch in ('\\', '"'))


def single_quoted(line: str) -> list[tuple[int, int]]:
    """Character spans inside single quotes (and ``$'...'``), where bash runs nothing. Comments
    and here-document bodies are skipped: a quote in them opens nothing."""
    spans: list[tuple[int, int]] = []
    pending: list[str] = []  # here-document delimiters whose bodies start at the next newline
    double = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "\n" and pending and not double:
            i = _after_bodies(line, i + 1, pending)
            pending = []
            continue
        if ch == '"':
            double = not double
        elif ch == "<" and not double and line.startswith("<<", i) and not line.startswith(
                "<<<", i):
            found = _HEREDOC.match(line, i)
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


def _after_bodies(line: str, start: int, delimiters: list[str]) -> int:
    """Where the line goes on after the here-document bodies that start at ``start``."""
    position = start
    for delimiter in delimiters:
        while position < len(line):
            end = line.find("\n", position)
            end = len(line) if end < 0 else end
            done = line[position:end].strip("\t") == delimiter
            position = end + 1
            if done:
                break
    return min(position, len(line))


def _closing_quote(line: str, start: int, ansi: bool) -> int:
    i = start
    while i < len(line):
        if ansi and line[i] == "\\":
            i += 2
            continue
        if line[i] == "'":
            return i
        i += 1
    return len(line)


def _inside(offset: int, spans: list[tuple[int, int]]) -> bool:
    """bashlex finds ``$( )`` inside single quotes that start mid-word; bash does not."""
    return any(a < offset < b for a, b in spans)
