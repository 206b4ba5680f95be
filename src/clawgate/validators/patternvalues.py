"""Pattern substitution in a value assigned (``VERSION="${VERSION//v}"``,
``arrTag=(${GITHUB_REF//\\// })``, ``export NAME="${board//\\//_}"``), judged by what it can
spell.

Pattern substitution (``${x/p/r}``, ``${x//p/r}``, ``${x/#p/r}``, ``${x/%p/r}``, of a
variable, an element or the positional parameters) hides a word when it unscrambles text the
line wrote (``x=/etc/paXsswd; f=${x//X/}``) or when its replacement is the word
(``${x//*/~\\/.ssh}``). Neither happens when the pattern is plain text (no ``*``, ``?`` or
``[``), the replacement is a few characters that name nothing (``_``, a blank, ``%25``; no
``/``, ``~``, ``.``, expansion or substitution, ``$'\\x2f'`` read as the slash it is) and the
variable edited holds no text of the line's own (set elsewhere: ``GITHUB_REF``; or on the line
only from such values, ``VERSION="${arrTag[2]}"``; never by a setter, a default or the shell:
``printf -vx``, ``${x:=…}``, ``read``, ``$_``, ``REPLY``; nor on a line that may set any name:
``eval``, ``source``): the value is then what the variable held, with characters removed or
swapped, as unknown as the variable itself, and it is judged where it is used, as that
variable would be. Where the value edited is known exactly, the line's resolved reading works
the substitution out (``shell/paramops.py``) and judges the word it spells. Any other pattern
substitution in a value asks, as CG-INJ-007 asks of one in a command's words.

Bad: ``x=/etc/paXsswd; f=${x//X/}; cat $f``. Harmless: ``VERSION="${GITHUB_REF//refs\\/tags\\/v}"``.
"""

from __future__ import annotations

import re

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.clobbers import EVERY, clobbered
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.shell.words import decode_ansi_c
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, register

_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
_NAME_VALUE = lazy_pattern(r"^([A-Za-z_]\w*)(?:\[[^\]]*\])?\+?=(.*)$", )
# ${NAME/…}, ${NAME//…}, ${NAME/#…}, ${NAME/%…}, of an element (${a[0]//…}, ${a[@]//…}) or
# of the positional parameters (${1//…}, ${@//…})
_EDIT_START = lazy_pattern(r"\$\{([A-Za-z_]\w*|[0-9@*])(?:\[[^\]{}$`]*\])?/[/#%]?")
# A simple expansion: $NAME, ${NAME}, ${NAME[i]} (and the positional and special ones)
_SIMPLE = lazy_pattern(r"\$(?:[A-Za-z_]\w*|[0-9#?$!@*-]|\{[A-Za-z_]\w*(?:\[[^\]{}$`]*\])?\})")
_NAMING = frozenset("/~.$`()<>;&|")
_MAX_REPLACEMENT = 4
_MAX_DEPTH = 4


@register
class PatternEditedValue(LineValidator):
    """A value assigned through a global pattern substitution that could spell a word the
    line hides: text of the line's own unscrambled, a glob pattern, or a replacement that
    names something. ASK.

    Bad: ``x=/etc/paXsswd; f=${x//X/}; cat $f``. Harmless: ``arrTag=(${GITHUB_REF//\\// })``.
    """

    id = "CG-INJ-033"

    def line_shapes(self) -> int:
        return ls.DOLLAR

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if "$" not in parsed.source or "/" not in parsed.source:
            return NO_OPINION
        values = assigned_values(parsed.commands)
        if not any("/" in text and "${" in text for _, text in values):
            return NO_OPINION
        line = _Line(parsed, values)
        for _name, text in values:
            if "/" not in text:
                continue
            for edit in edits(text):
                if edit is None or not line.inert(edit, frozenset()):
                    return Verdict.ask(self.id, f"a value rebuilt by pattern substitution in "
                                       f"{text!r} may spell a word the line hides",
                                       hint="write the text out plainly")
        return NO_OPINION


def assigned_values(commands: tuple[SimpleCommand, ...]) -> list[tuple[str, str]]:
    """(name, value as written) of every assignment of the line: prefixes and bare ones, and
    the ``NAME=VALUE`` words of ``export``, ``declare`` and their kin."""
    found: list[tuple[str, str]] = []
    for cmd in commands:
        found += [(a.name, a.value.text) for a in cmd.assignments]
        if cmd.program in _DECLARERS:
            for word in cmd.words[1:]:
                match = _NAME_VALUE.match(word.text)
                if match:
                    found.append((match.group(1), match.group(2)))
    return found


class _Edit:
    """``${NAME//PATTERN/REPLACEMENT}`` as written."""

    __slots__ = ("name", "pattern", "replacement")

    def __init__(self, name: str, pattern: str, replacement: str) -> None:
        self.name, self.pattern, self.replacement = name, pattern, replacement


def edits(text: str) -> list[_Edit | None]:
    """Each global pattern substitution of ``text``; None for one this reading cannot split
    (a nested expansion or quote left open), which is never inert."""
    found: list[_Edit | None] = []
    for start in _EDIT_START.finditer(text):
        parts = _split(text, start.end())
        found.append(None if parts is None else _Edit(start.group(1), *parts))
    return found


def _split(text: str, at: int) -> tuple[str, str] | None:
    """The pattern and the replacement from ``at`` (just after ``//``) to the closing brace."""
    pieces: list[list[str]] = [[]]
    index = at
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            pieces[-1].append(text[index:index + 2])
            index += 2
            continue
        if char in "'\"":
            end = text.find(char, index + 1)
            if end < 0:
                return None
            pieces[-1].append(text[index:end + 1])
            index = end + 1
            continue
        if char == "$" and text.startswith("$'", index):
            end = text.find("'", index + 2)
            if end < 0:
                return None
            pieces[-1].append(text[index:end + 1])
            index = end + 1
            continue
        if char in "{$`":
            return None  # an expansion inside: its value is not read here
        if char == "/" and len(pieces) == 1:
            pieces.append([])
        elif char == "}":
            return "".join(pieces[0]), "".join(pieces[1]) if len(pieces) > 1 else ""
        else:
            pieces[-1].append(char)
        index += 1
    return None


def _plain(text: str) -> str:
    """``text`` with its quotes and backslashes taken off, ``$'…'`` decoded."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            out.append(text[index + 1])
            index += 2
        elif text.startswith("$'", index):
            end = text.find("'", index + 2)
            out.append(decode_ansi_c(text[index + 2:end]))  # $'\x2f' is a slash
            index = end + 1
        elif char in "'\"":
            index += 1
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _plain_glob(pattern: str) -> str:
    """The pattern's unquoted, unescaped characters (a quoted ``*`` matches a star)."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
        elif char in "'\"":
            end = pattern.find(char, index + 1)
            index = len(pattern) if end < 0 else end + 1
        else:
            out.append(char)
            index += 1
    return "".join(out)


class _Line:
    """The line's source and its assignments, read for what each variable may hold."""

    __slots__ = ("set_otherwise", "source", "values")

    def __init__(self, parsed: ParsedLine, values: list[tuple[str, str]]) -> None:
        self.source, self.values = parsed.source, values
        self.set_otherwise = _set_otherwise(parsed)

    def inert(self, edit: _Edit, seen: frozenset[str]) -> bool:
        """The substitution can spell nothing the line hides (see the module)."""
        glob = any(c in _plain_glob(edit.pattern) for c in "*?[")
        replacement = _plain(edit.replacement)
        if glob or len(replacement) > _MAX_REPLACEMENT or _NAMING & set(replacement):
            return False
        return not self.written(edit.name, seen)

    def written(self, name: str, seen: frozenset[str]) -> bool:
        """``name`` may hold text of the line's own: an assignment to it with text beyond
        simple expansions and inert pattern substitutions, or any other mention of it as a
        bare word (``read NAME``, ``for NAME in``, ``printf -v NAME``). A name met again while
        its own assignments are read (``V="${V//v}"``) stands for its earlier value."""
        if name in seen:
            return False
        if len(seen) > _MAX_DEPTH or not _NAME.fullmatch(name) or (
                self.set_otherwise is None or name in self.set_otherwise):
            return True  # the positional parameters (set --, a function's arguments), a name
            # a setter, a default or the shell gives a value, or a line that may set any
        inner = seen | {name}
        for assigned, text in self.values:
            if assigned != name:
                continue
            for edit in edits(text):
                if edit is None or not self.inert(edit, inner):
                    return True
            rest = _SIMPLE.sub("", _EDIT_SPAN.sub("", text))
            if _plain(rest).strip("() \t\n"):
                return True
        bare = rf"(?<![\w$!#{{]){name}(?![\w]|(?:\[[^\]]*\])?\+?=)"
        return re.search(bare, self.source) is not None


_EDIT_SPAN = lazy_pattern(r"\$\{[A-Za-z_]\w*/[^}]*\}")
_NAME = lazy_pattern(r"[A-Za-z_]\w*")
# What may set any name (``eval x=…``, ``source f``, ``declare -n r=x; r=…``)
_SETS_ANY = frozenset({"eval", "source", ".", "trap", "alias", "coproc", "exec", "wait"})
# Names the shell sets with no text of the line's (counters, clocks, process ids) or only to
# a directory that exists
_NUMERIC = frozenset({"RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "EPOCHSECONDS",
                      "EPOCHREALTIME", "HISTCMD", "BASH_SUBSHELL", "GROUPS", "PIPESTATUS",
                      "OPTIND", "OPTERR", "PWD", "OLDPWD"})


def _set_otherwise(parsed: ParsedLine) -> frozenset[str] | None:
    """The names the line may set other than by a plain assignment (``shell/clobbers.py``:
    ``printf -vx``, ``${x:=…}``, ``read``, ``mapfile``, ``$_``, ``REPLY`` …), or None when it
    may set any. The directory (``PWD``) is one that exists, whatever the line names."""
    if any(cmd.program in _SETS_ANY for cmd in parsed.commands):
        return None
    named = clobbered(parsed)
    if EVERY in named:
        return None
    return frozenset(named - _NUMERIC)
