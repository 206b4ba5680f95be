"""Lines of plain words and plain quotes need no parser either: ``grep -F "a b" f | cut -d ' '
-f 2`` is split by hand into the commands tree-sitter-bash reads (the same model, field for
field: ``tests/shell/test_shell_quotedpath.py`` holds the two to it).

A word here is plain characters (``fastpath.py``'s) and quoted runs glued together: ``'…'``
holding any printable ASCII character but ``'``, and ``"…"`` holding none that double quotes
give a meaning to (``$``, a backquote, ``\\``, ``!``, ``"``). Its value is the quotes taken
away; it expands nothing. Operators (``|``, ``||``, ``&&``, ``;``) stand only between words.
Anything else goes to the parser, and so does what the grammar reads otherwise than as plain
words: a reserved word or a keyword glued to a quote, a word starting with ``=``, a quoted
assignment, a declaration builtin, a command name that is quoted or holds ``=``, ``%``,
``@`` or ``:``, a command of assignments alone; and a newline, a redirection, a character
outside printable ASCII.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.shell import model as m

_WORD = r"""(?:[A-Za-z0-9_./:=,@%+-]|'[ -&(-~]*'|"[ #%-\[\]-_a-~]*")+"""
_OPERATOR = r"\|\||&&|[|;]"
# Words between blanks, operators only between words: checked whole, in one match.
_LINE = lazy_pattern(rf"[ \t]*{_WORD}(?:[ \t]+{_WORD})*(?:[ \t]*(?:{_OPERATOR})[ \t]*{_WORD}"
                     rf"(?:[ \t]+{_WORD})*)*[ \t]*")
_TOKEN = lazy_pattern(rf"{_OPERATOR}|{_WORD}")
# A word's runs: single-quoted, double-quoted, plain.
_RUNS = lazy_pattern(r"""'([^']*)'|"([^"]*)"|([^'"]+)""")
_OPERATORS = frozenset({"|", "||", "&&", ";"})
_NAME = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*=")
_RESERVED = frozenset("if then else elif fi case esac for select while until do done in "
                      "function time coproc".split())
# Builtins whose arguments the grammar reads as assignments (and splits at a ``:``).
_DECLARING = frozenset({"export", "declare", "typeset", "local", "readonly", "unset"})
_KEYWORDS = _RESERVED | _DECLARING
# The command's name: plain, unquoted, with no mark the grammar reads specially there (an
# assignment's ``=`` in ``--o=v``, ``%``/``@`` after a name, a leading ``-``). A command of
# assignments alone, which the grammar cannot end before an operator, goes to it too.
_COMMAND_NAME = lazy_pattern(r"[A-Za-z0-9_./][A-Za-z0-9_./,+-]*")
MAX_LENGTH = 4096

Span = tuple[int, int]


def parse_quoted(line: str) -> m.ParsedLine | None:
    """The commands of a line of plain words and plain quotes, or None for any other line."""
    if len(line) > MAX_LENGTH:
        return None
    segments = _segments(line)
    if segments is None:
        return None
    commands: list[m.SimpleCommand] = []
    stages: list[list[int]] = []
    for index, (spans, _) in enumerate(segments):
        cmd = _command(line, spans)
        if cmd is None:
            return None
        if index and segments[index - 1][1] == "|":
            stages[-1].append(index)
        else:
            stages.append([index])
        commands.append(cmd)
    return m.ParsedLine(line, tuple(_piped(commands, stages)))


def _segments(line: str) -> list[tuple[list[Span], str]] | None:
    """The words of each simple command (their spans) and the operator after it."""
    if not _LINE.fullmatch(line):
        return None
    segments: list[tuple[list[Span], str]] = []
    words: list[Span] = []
    for found in _TOKEN.finditer(line):
        token = found.group()
        if token in _OPERATORS:
            segments.append((words, token))
            words = []
        elif _keyword_read(token):
            return None
        else:
            words.append(found.span())
    segments.append((words, ""))
    return segments


def _command(line: str, spans: list[Span]) -> m.SimpleCommand | None:
    tokens = [line[start:end] for start, end in spans]
    assignments: list[m.Assignment] = []
    while tokens and _NAME.match(tokens[0]):
        if "'" in tokens[0] or '"' in tokens[0]:
            return None  # NAME='…': the grammar's variable_assignment
        name, value = tokens.pop(0).split("=", 1)
        assignments.append(m.Assignment(name, m.Word(value, value)))
    if not tokens or tokens[0] in _DECLARING or not _COMMAND_NAME.fullmatch(tokens[0]):
        return None  # the grammar's own readings: see _COMMAND_NAME and _DECLARING
    words = tuple(_word(t) for t in tokens)
    start, end = spans[0][0], spans[-1][1]
    return m.SimpleCommand(line[start:end], words, tuple(assignments), offset=start)


def _keyword_read(token: str) -> bool:
    """A token the grammar reads otherwise than as a word: a reserved word, a keyword with a
    quote glued to it (``local"x"``: the keyword, then a word), a test operator (``==``)."""
    if token in _RESERVED or token.startswith("="):
        return True
    quote = min((i for i in (token.find("'"), token.find('"')) if i >= 0), default=-1)
    return quote > 0 and token[:quote] in _KEYWORDS


def _word(token: str) -> m.Word:
    if "'" not in token and '"' not in token:
        return m.Word(token, token)
    return m.Word(token, "".join([a + b + c for a, b, c in _RUNS.findall(token)]), True)


def _piped(commands: list[m.SimpleCommand], stages: list[list[int]]
           ) -> list[m.SimpleCommand]:
    """Each command of a pipeline with the programs of its stages (named as the tree-sitter
    reading names them: the last path component of the first word's value)."""
    linked = list(commands)
    for indices in stages:
        if len(indices) < 2:
            continue
        names = tuple(_stage_name(commands[i]) for i in indices)
        for pos, index in enumerate(indices):
            cmd = commands[index]
            linked[index] = m.SimpleCommand(cmd.text, cmd.words, cmd.assignments, (), names, pos,
                                            offset=cmd.offset)
    return linked


def _stage_name(cmd: m.SimpleCommand) -> str:
    value = cmd.words[0].value if cmd.words else None
    return "" if value is None else value.rsplit("/", 1)[-1]
