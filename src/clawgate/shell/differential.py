"""The second opinion: bashlex's reading of a line, compared with tree-sitter's.

Where both parse but see different command boundaries or different words, the line may not mean
what it looks like. bashlex does not implement ``$(( ))``, ``case`` and a few more constructs:
that is "no opinion", not a disagreement.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from clawgate.lazyre import lazy_pattern
from clawgate.records import record
from clawgate.shell import model as m
from clawgate.shell.quoting import blank_single_quoted, single_quoted

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    import signal
    from typing import Any

MAX_BASHLEX_CHARS = 16_384  # bashlex is recursive and slow; longer lines get no second opinion
BASHLEX_SECONDS = 0.5  # and it can loop forever: a deadline (20 ms + 50 us a character, at
BASHLEX_PER_CHAR = 50e-6  # most this; ~10x what it needs) where a signal can be taken,
BASHLEX_CALLS = 150_000  # and a budget of traced lines and calls where one cannot
_UNCOMPARABLE_WORD = frozenset({m.ANSI_C, m.LOCALE, m.GLOB, m.BRACE, m.TILDE})
_SKIP_NESTING = frozenset({"heredoc", "arithmetic"})
# An assignment to an array element, as a leading word of a command: ``a[$(id)]=1``.
_SUBSCRIPT_ASSIGNMENT = lazy_pattern(r"(?s)[A-Za-z_][A-Za-z0-9_]*\[.*\]\+?=")

CommandView = tuple[int, tuple[str | None, ...]]  # (start offset in characters, word values)
# A ``[ … ]`` test as tree-sitter reads it: an expression, not words (``-z "$v"`` is a unary
# expression, ``\( a \) -o b`` a parenthesised one), so its words cannot be compared with
# bashlex's; bashlex reads the same text as the command ``[`` with words up to ``]``. The
# two agree when bashlex sees such a command starting at the same place. NUL never reaches
# the parsers (CG-HYG-001), so no command's words can equal this.
TEST_COMMAND: tuple[str | None, ...] = ("\0[",)


@record(frozen=True, slots=True)
class Disagreement:
    offset: int
    detail: str


class Unavailable(Exception):
    """bashlex has no opinion on this line (unsupported construct or too long)."""


class Rejected(Exception):
    """bashlex rejects the line as a syntax error."""


class GaveUp(Unavailable):
    """bashlex ran out of time (it loops forever on some inputs)."""


def bashlex_view(line: str) -> list[CommandView]:
    """bashlex's commands of ``line``, or ``Unavailable`` (no opinion) or ``Rejected``; kept for
    the last lines asked (a line's statements come back in lines made of it)."""
    return list(_reading(line)[0])


def bashlex_spans(line: str) -> tuple[tuple[int, int], ...]:
    """The character spans of the simple commands bashlex reads in ``line`` (assignments and
    redirections included), from the same reading as ``bashlex_view``; raises as it does."""
    return _reading(line)[1]


Reading = tuple[tuple[CommandView, ...], tuple[tuple[int, int], ...]]


def _reading(line: str) -> Reading:
    found = _remembered(line)
    if found[0] in _FAILURES:
        raise _FAILURES[found[0]](found[1])
    return found[1], found[2]


@lru_cache(maxsize=2048)
def _remembered(line: str) -> tuple[Any, ...]:
    """Readings and refusals are remembered; running out of time is not (it raises, uncached:
    a deadline missed on a busy machine must not stand for the line afterwards)."""
    try:
        return ("read", *_bashlex_view(line))
    except GaveUp:
        raise
    except Unavailable as exc:
        return ("unavailable", str(exc))
    except Rejected as exc:
        return ("rejected", str(exc))


def forget() -> None:
    """Drop the remembered readings (a line is then read as on first sight)."""
    _remembered.cache_clear()


def _bashlex_view(line: str) -> Reading:
    from bashlex import ast

    found: list[CommandView] = []
    spans: list[tuple[int, int]] = []

    class Visitor(ast.nodevisitor):  # type: ignore[misc]
        def visitcommand(self, node: ast.node, parts: list[ast.node]) -> None:
            spans.append(node.pos)
            kept = [p for p in parts if p.kind == "word"]
            while kept and _SUBSCRIPT_ASSIGNMENT.match(kept[0].word):
                kept.pop(0)  # bashlex takes ``a[…]=v`` for a word; bash, an assignment
            words = tuple(None if getattr(p, "parts", None) else p.word for p in kept)
            if words:
                found.append((node.pos[0], words))

    _visit(_trees(line), Visitor)
    return tuple(found), tuple(spans)


def _trees(line: str) -> Any:
    """bashlex's trees of ``line``, within its deadline; its refusals as ours."""
    if len(line) > MAX_BASHLEX_CHARS:
        raise Unavailable("too long for the second parser")
    if "((" in line:  # bashlex does not implement arithmetic, and reads ((...)) as subshells
        raise Unavailable("arithmetic")
    import bashlex
    from bashlex import errors

    from clawgate.shell import bashlexfix

    bashlexfix.apply()
    try:
        with _deadline(min(BASHLEX_SECONDS, 0.02 + len(line) * BASHLEX_PER_CHAR)):
            return bashlex.parse(blank_single_quoted(line).replace("$#", "$1"))  # $# is no #
    except _TooSlow as exc:
        raise GaveUp("the second parser gave up") from exc
    except NotImplementedError as exc:
        raise Unavailable(str(exc)) from exc
    except errors.ParsingError as exc:
        raise Rejected(str(exc)) from exc
    except (RecursionError, AssertionError, IndexError, TypeError, AttributeError,
            ValueError, KeyError) as exc:  # bashlex's own failures: no opinion
        raise Unavailable(type(exc).__name__) from exc


def _visit(trees: Any, visitor: Any) -> None:
    try:
        for tree in trees:
            visitor().visit(tree)
    except (RecursionError, NotImplementedError, AttributeError) as exc:
        raise Unavailable(type(exc).__name__) from exc


class _TooSlow(Exception):
    pass


_FAILURES: dict[str, type[Exception]] = {"unavailable": Unavailable, "rejected": Rejected}


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Interrupt bashlex (it loops forever on some inputs) after ``seconds``: in the main thread
    by a timer signal (real time, or CPU time when a watchdog holds that timer), elsewhere by a
    budget of traced lines (slower: threads cannot take signals). ``signal`` and ``threading``
    are imported here: most lines never reach bashlex, and a ``policy check`` start spares
    them (~1 ms)."""
    import signal

    timer = _free_timer()
    if timer is None:
        with _call_budget(BASHLEX_CALLS):
            yield
        return
    which, signum = timer

    def expire(signum: int, frame: object) -> None:
        raise _TooSlow

    previous = signal.signal(signum, expire)
    # No collection meanwhile: a gc callback would swallow the interrupt (and report it); and
    # re-armed every 50 ms, like the harness's watchdog, in case other code swallows one.
    collecting = gc.isenabled()
    gc.disable()
    signal.setitimer(which, seconds, 0.05)
    try:
        yield
    finally:
        while True:
            try:
                signal.setitimer(which, 0)
                break
            except _TooSlow:  # one more may land before the timer is off
                pass
        signal.signal(signum, previous)
        if collecting:
            gc.enable()


def _free_timer() -> tuple[int, signal.Signals] | None:
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None  # only the main thread takes signals
    # CPU time first: time slices other processes take on a busy machine do not count against
    # bashlex (a missed deadline asks, CG-DIFF-001); real time where a profiler holds it.
    timers = ((signal.ITIMER_PROF, signal.SIGPROF), (signal.ITIMER_REAL, signal.SIGALRM))
    for which, signum in timers:
        if not signal.getitimer(which)[0]:
            return which, signum
    return None


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
        if not cmd.words or _SKIP_NESTING & set(cmd.nesting):
            continue
        if cmd.program == "[[" and cmd.text.startswith("[["):
            continue  # bashlex rejects every [[ ]]: it never has a reading to compare
        start = cmd.offset
        if not ascii_only:
            start = len(encoded[:start].decode("utf-8", "surrogateescape"))
        if cmd.program == "[[":  # tree-sitter's test_command: ``[ … ]``
            found.append((start, TEST_COMMAND))
            continue
        # bashlex keeps an empty ``` `` ``` in a word's value (``wh``oami``); bash drops it
        values = tuple(None if w.expansions & _UNCOMPARABLE_WORD or "'" in w.text
                       or "`" in w.text else w.value for w in cmd.words)
        found.append((start, values))
    return found


def compare(parsed: m.ParsedLine, other: list[CommandView],
            within: list[tuple[int, int]] | None = None) -> Disagreement | None:
    """The first place where the two readings differ, or None. ``within``: compare only the
    commands that start in these character spans."""
    mine = dict(tree_view(parsed))
    if within is not None:
        mine = {k: v for k, v in mine.items() if any(a <= k < b for a, b in within)}
    quoted = single_quoted(parsed.source)
    theirs = {k: v for k, v in other if not (k not in mine and _inside(k, quoted))}
    if "${" in parsed.source:  # bashlex keeps ``${ … }`` whole: no opinion on what is inside
        mine = {k: v for k, v in mine.items()
                if k in theirs or not _in_parameter_expansion(parsed.source, k, quoted)}
    if "\n" in parsed.source:  # bashlex drops what follows a newline inside $( ): no opinion
        blind = _after_a_newline_in_a_substitution(parsed)
        mine = {k: v for k, v in mine.items() if k in theirs or k not in blind}
    for offset in sorted(set(mine) ^ set(theirs)):
        side = "tree-sitter" if offset in mine else "bashlex"
        return Disagreement(offset, f"only {side} sees a command starting at character {offset}")
    for offset, words in sorted(mine.items()):
        their_words = theirs[offset]
        if words == TEST_COMMAND:
            if their_words != TEST_COMMAND and not _a_test(their_words):
                return Disagreement(offset, f"tree-sitter reads a test at {offset}, "
                                            "bashlex another command")
            continue
        if len(words) != len(their_words):
            return Disagreement(
                offset, f"the parsers split the command at {offset} into "
                f"{len(words)} and {len(their_words)} words")
        for a, b in zip(words, their_words, strict=True):
            if a is not None and b is not None and a != b and not _bashlex_bug(a, b):
                return Disagreement(offset, f"the parsers read a word as {a!r} and {b!r}")
    return None


def _after_a_newline_in_a_substitution(parsed: m.ParsedLine) -> set[int]:
    """The character offsets of the commands that a newline inside their own substitution
    precedes (``echo $(ls⏎id -u)``: bashlex sees ``ls`` and drops ``id -u``)."""
    source = parsed.source
    encoded = source.encode("utf-8", "surrogateescape")
    found: set[int] = set()
    for cmd in parsed.commands:
        if not {"command_substitution", "process_substitution"} & set(cmd.nesting):
            continue
        at = len(encoded[:cmd.offset].decode("utf-8", "surrogateescape"))
        opening = max(source.rfind(o, 0, at) for o in ("$(", "<(", ">(", "`"))
        if opening >= 0 and "\n" in source[opening:at]:
            found.add(at)
    return found


def _a_test(words: tuple[str | None, ...]) -> bool:
    """bashlex's reading of ``[ … ]``: the command ``[`` whose last word is ``]``."""
    return len(words) >= 2 and words[0] == "[" and words[-1] == "]"


def _bashlex_bug(tree: str, bashlex: str) -> bool:
    """Two known bashlex bugs, not two readings of the line (tree-sitter's value is bash's, and
    the validators use it): it removes every backslash inside double quotes (``"%s\\n"`` is
    ``%s\\n`` to bash, ``%sn`` to bashlex), and it removes double quotes nested in single quotes
    that start mid-word (``--opt='a "b"'``)."""
    return any(ch in tree and tree.replace(ch, "") == bashlex.replace(ch, "")
               for ch in ('\\', '"'))


def _inside(offset: int, spans: list[tuple[int, int]]) -> bool:
    """bashlex finds ``$( )`` inside single quotes that start mid-word; bash does not."""
    return any(a < offset < b for a, b in spans)


def _in_parameter_expansion(source: str, offset: int, quoted: list[tuple[int, int]]) -> bool:
    """Whether the command at ``offset`` sits inside a ``${ … }`` parameter expansion, as in
    ``${OUT:-$(mktemp -d)}``: bashlex keeps such an expansion as one word and never reads the
    substitutions in it, so a command only tree-sitter sees there is no disagreement (and
    tree-sitter's command is the one the validators judge)."""
    stack: list[str] = []  # the closers of the ``${``, ``$(`` and ``(`` entered so far
    i = 0
    while i < offset:
        if _inside(i, quoted):
            i += 1
            continue
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if source.startswith("${", i):
            stack.append("${")
            i += 2
            continue
        if ch == "(":
            stack.append(")")
        elif ch == "{" and stack and stack[-1] == "${":
            stack.append("}")
        elif stack and (ch == ")" == stack[-1] or (ch == "}" and stack[-1] in ("}", "${"))):
            stack.pop()
        i += 1
    return "${" in stack

