"""Lines of plain words need no parser: split them by hand, exactly as the shell would."""

from __future__ import annotations

import re

from clawgate.shell import model as m

# Characters with no special meaning to the shell in any position of a word.
_PLAIN = re.compile(r"[A-Za-z0-9_./:=,@%+\- \t-]*")
_OPERATOR_LINE = re.compile(r"[A-Za-z0-9_./:=,@%+\- \t|&;-]*")
_SEPARATORS = re.compile(r"\s*(\|\||&&|\||;)\s*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for",
                       "case", "esac", "in", "function", "select", "coproc"})


def _first_word(text: str) -> str:
    words = text.split(None, 1)
    return words[0] if words else ""


def is_plain(line: str) -> bool:
    """True when every character is plain and operators stand only between words."""
    if len(line) > 4096 or not _OPERATOR_LINE.fullmatch(line):
        return False
    if _PLAIN.fullmatch(line):
        return _first_word(line) not in _KEYWORDS
    pieces = _SEPARATORS.split(line.strip())
    # Operators must alternate with non-empty plain words: no `&`, `&&&`, `;;` or leading `|`.
    for i, piece in enumerate(pieces):
        if i % 2:
            continue
        if not piece or not _PLAIN.fullmatch(piece) or not piece.strip():
            return False
        if _first_word(piece) in _KEYWORDS:  # compound commands need the real parser
            return False
    return len(pieces) % 2 == 1


def parse_plain(line: str) -> m.ParsedLine:
    """Split a plain line (``is_plain``) into simple commands."""
    pieces = _SEPARATORS.split(line.strip())
    segments = pieces[0::2]
    operators = pieces[1::2]
    commands: list[m.SimpleCommand] = []
    pipelines: list[list[int]] = []
    for i, segment in enumerate(segments):
        tokens = segment.split()
        assignments: list[m.Assignment] = []
        while tokens and _NAME.match(tokens[0]):
            name, value = tokens.pop(0).split("=", 1)
            assignments.append(m.Assignment(name, m.Word(value, value)))
        words = tuple(m.Word(t, t) for t in tokens)
        commands.append(m.SimpleCommand(segment.strip(), words, tuple(assignments)))
        if i > 0 and operators[i - 1] == "|":
            pipelines[-1].append(i)
        else:
            pipelines.append([i])
    return m.ParsedLine(line, tuple(_link(commands, pipelines)))


def _link(commands: list[m.SimpleCommand], pipelines: list[list[int]]) -> list[m.SimpleCommand]:
    linked = list(commands)
    for indices in pipelines:
        if len(indices) < 2:
            continue
        names = [commands[i].program or "" for i in indices]
        for pos, index in enumerate(indices):
            cmd = commands[index]
            linked[index] = m.SimpleCommand(
                cmd.text, cmd.words, cmd.assignments, (),
                tuple(n for n in names[:pos] if n), tuple(n for n in names[pos + 1 :] if n),
            )
    return linked
