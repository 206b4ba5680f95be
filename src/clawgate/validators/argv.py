"""Reading argv the way a wrapper's own option parser does, and building the inner command.

Wrappers (``sudo -u x -E``, ``timeout -s KILL 5``, ``xargs -0 -n1 -I{}``) take options, some of
which take values, then sometimes fixed operands (a duration, a directory), then the command.
``command_start`` finds where that command begins so that it can be checked as a command of its
own.
"""

from __future__ import annotations

from clawgate.records import record, replace
from clawgate.shell.model import SimpleCommand, Word


@record(frozen=True, slots=True)
class Options:
    """How a program parses options: short letters and long names that take a value (``pair``:
    long names that take two, ``nix --arg NAME EXPR``), and how many operands come before the
    command it runs."""

    short: str = ""
    long: frozenset[str] = frozenset()
    skip: int = 0
    stop_at_operand: bool = True  # options end at the first operand (POSIX order)
    pair: frozenset[str] = frozenset()
    # names that take a value also when spelled with one dash (``mpirun -np 4``, ``-mca K V``
    # with the name in ``pair`` too): read as one option, not as a cluster of letters
    dash: frozenset[str] = frozenset()


def opts(short: str = "", long: str = "", skip: int = 0, pair: str = "",
         dash: str = "") -> Options:
    return Options(short, frozenset(long.split()), skip, pair=frozenset(pair.split()),
                   dash=frozenset(dash.split()))


NO_OPTIONS = Options()


def command_start(words: tuple[Word, ...], start: int, spec: Options) -> int | None:
    """Index of the first word of the wrapped command, or None when there is none."""
    i = start
    skip = spec.skip
    n = len(words)
    while i < n:
        text = words[i].shown
        if text == "--":
            i += 1
            if skip:
                i += skip
            return i if i < n else None
        if len(text) > 1 and text[0] == "-":
            i += option_width(text, words, i, spec)
            continue
        if skip:
            skip -= 1
            i += 1
            continue
        return i
    return None


def option_width(text: str, words: tuple[Word, ...], i: int, spec: Options) -> int:
    """How many words the option at ``i`` occupies (1, or 2 when its value is the next word,
    3 when it takes two)."""
    if text.startswith("--"):
        name = text[2:]
        if "=" in name:
            return 1
        if name in spec.pair:
            return min(3, len(words) - i)
        return 2 if name in spec.long and i + 1 < len(words) else 1
    if text[1:] in spec.dash:  # mpirun -np 4: one option of its own, its value next
        return min(2 + (text[1:] in spec.pair), len(words) - i)
    if text[1:].partition("=")[0] in spec.dash:  # -np=4
        return 1
    for pos, letter in enumerate(text[1:], start=1):
        if letter in spec.short or letter in spec.pair:
            attached = pos + 1 < len(text)
            return min((1 if attached else 2) + (letter in spec.pair), len(words) - i)
    return 1


def option_values(words: tuple[Word, ...], start: int, short: str,
                  long: frozenset[str]) -> list[tuple[str, Word | None, str | None]]:
    """(option, word holding the value, value) for every occurrence of the listed options.

    ``short`` letters match clustered flags (``-lc``) with the value attached or in the next word;
    long names match ``--name value`` and ``--name=value``. The word is None when the value is
    attached to the option word itself.
    """
    found: list[tuple[str, Word | None, str | None]] = []
    n = len(words)
    for i in range(start, n):
        text = words[i].shown
        if text.startswith("--"):
            name, eq, value = text[2:].partition("=")
            if name in long:
                if eq:
                    found.append((name, words[i], value))
                elif i + 1 < n:
                    found.append((name, words[i + 1], words[i + 1].value))
        elif len(text) > 1 and text[0] == "-":
            for pos, letter in enumerate(text[1:], start=1):
                if letter in short:
                    if pos + 1 < len(text):
                        found.append((letter, words[i], text[pos + 1:]))
                    elif i + 1 < n:
                        found.append((letter, words[i + 1], words[i + 1].value))
                    break
    return found


def inner(cmd: SimpleCommand, index: int, end: int | None = None) -> SimpleCommand:
    """The command made of ``cmd.words[index:end]``, keeping redirections, pipe neighbours
    and the variables ``cmd``'s prefix puts in the environment (``HOOK=… timeout 5 zzrun``:
    zzrun inherits HOOK)."""
    words = cmd.words[index:end]
    return replace(cmd, words=words, text=" ".join(w.text for w in words),
                   depth=cmd.depth + 1)


def joined_code(words: tuple[Word, ...]) -> str | None:
    """Words that a program joins with spaces and hands to a shell (``ssh host a b``, ``watch a
    b``); None when one of them is only known at run time."""
    values = [w.value for w in words]
    if any(v is None for v in values):
        return None
    return " ".join(v for v in values if v is not None)


def operands(words: tuple[Word, ...], start: int, spec: Options) -> list[int]:
    """Indices of every non-option word from ``start`` (all options skipped with their values)."""
    found: list[int] = []
    i = start
    n = len(words)
    ended = False
    while i < n:
        text = words[i].shown
        if ended or not (len(text) > 1 and text[0] == "-"):
            if text == "--" and not ended:
                ended = True
            else:
                found.append(i)
            i += 1
            continue
        i += option_width(text, words, i, spec)
    return found
