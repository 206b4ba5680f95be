"""Lines of plain words need no parser: split them by hand into the model tree-sitter-bash
gives, field for field (``tests/shell/test_shell_fastpath.py`` holds the two to it over the
corpora and generated lines); any line the grammar reads otherwise goes to the parser."""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.shell import model as m

# Characters with no special meaning to the shell in any position of a word.
_PLAIN = lazy_pattern(r"[A-Za-z0-9_./:=,@%+\- \t-]*")
_OPERATOR_LINE = lazy_pattern(r"[A-Za-z0-9_./:=,@%+\- \t|&;-]*")
_SEPARATORS = lazy_pattern(r"\s*(\|\||&&|\||;)\s*")
_NAME = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*=")
_COMMAND_NAME = lazy_pattern(r"[A-Za-z0-9_./][A-Za-z0-9_./,+-]*")
_DECLARING = frozenset({"export", "declare", "typeset", "local", "readonly", "unset"})
# A ``~`` that starts a word (or a value after ``=``) is a tilde expansion; inside a word
# (``HEAD~1``, ``a:~b``) it is a plain character of it, in bash and in the parser's model.
_EXPANDED_TILDE = lazy_pattern(r"(?:^|[\s|&;=])~")
# Reserved words change the grammar; a line holding one goes to the real parser.
_RESERVED = frozenset("if then else elif fi case esac for select while until do done in "
                      "function time coproc".split())
# A reserved word is one next to an operator too (``a && time|a`` times the pipeline ``|a``)
_OPERATORS_AS_BLANKS = str.maketrans(";|&", "   ")


def is_plain(line: str) -> bool:
    """True when every character is plain and operators stand only between words."""
    if "~" in line:
        if _EXPANDED_TILDE.search(line):
            return False
        line = line.replace("~", "_")  # inside a word: as plain as any word character
    if len(line) > 4096 or not _OPERATOR_LINE.fullmatch(line):
        return False
    if not _RESERVED.isdisjoint(line.translate(_OPERATORS_AS_BLANKS).split()):
        return False
    if _PLAIN.fullmatch(line):
        return _named(line)
    pieces = _SEPARATORS.split(line.strip())
    # Operators must alternate with non-empty plain words: no `&`, `&&&`, `;;` or leading `|`.
    for i, piece in enumerate(pieces):
        if i % 2:
            continue
        if not piece or not _PLAIN.fullmatch(piece) or not piece.strip() or not _named(piece):
            return False
    return len(pieces) % 2 == 1


def plain_line(line: str) -> m.ParsedLine | None:
    """``parse_plain(line)`` when ``is_plain(line)``, else None. A line of one command (no
    ``|``, ``&`` or ``;``), the common case, is checked and split in one pass: the tests of
    ``is_plain`` that can fail on it, then its one command."""
    if "|" in line or "&" in line or ";" in line:
        return parse_plain(line) if is_plain(line) else None
    checked = line
    if "~" in line:
        if _EXPANDED_TILDE.search(line):
            return None
        checked = line.replace("~", "_")  # inside a word: as plain as any word character
    if len(checked) > 4096 or not _PLAIN.fullmatch(checked):
        return None
    tokens = checked.split()
    if not _RESERVED.isdisjoint(tokens) or not _named_tokens(tokens):
        return None
    return m.ParsedLine(line, (_command(line, line.strip(), 0),))


def _named(segment: str) -> bool:
    """The command has a name the grammar reads as a plain name (``_COMMAND_NAME``, or the
    builtin ``:``). A command of assignments alone is read otherwise than as one command
    (``a=1 b=2`` as three, ``e=|a`` as an error), and so are names with other marks (``a@@``
    as an error, ``a=b x:y`` likewise) and the declaration builtins, whose arguments the
    grammar reads as assignments (``export a@@``): those lines are the parser's."""
    return _named_tokens(segment.split())


def _named_tokens(tokens: list[str]) -> bool:
    """``_named`` of the segment whose words are ``tokens``."""
    for token in tokens:
        if not _NAME.match(token):
            return token == ":" or (_COMMAND_NAME.fullmatch(token) is not None
                                    and token not in _DECLARING)
    return False


def parse_plain(line: str) -> m.ParsedLine:
    """Split a plain line (``is_plain``) into simple commands."""
    pieces = _SEPARATORS.split(line.strip())
    segments = pieces[0::2]
    operators = pieces[1::2]
    commands: list[m.SimpleCommand] = []
    pipelines: list[list[int]] = []
    position = 0
    for i, segment in enumerate(segments):
        cmd = _command(line, segment, position)
        position = cmd.offset + len(segment)
        commands.append(cmd)
        if i > 0 and operators[i - 1] == "|":
            pipelines[-1].append(i)
        else:
            pipelines.append([i])
    return m.ParsedLine(line, tuple(_link(commands, pipelines)))


def _command(line: str, segment: str, position: int) -> m.SimpleCommand:
    """The simple command of ``segment``, found in ``line`` from ``position`` on."""
    offset = line.index(segment, position)  # plain text is ASCII: characters are bytes
    tokens = segment.split()
    assignments: list[m.Assignment] = []
    while tokens and _NAME.match(tokens[0]):
        name, value = tokens.pop(0).split("=", 1)
        assignments.append(m.Assignment(name, m.Word(value, value)))
    words = tuple(m.Word(t, t) for t in tokens)
    return m.SimpleCommand(segment.strip(), words, tuple(assignments), offset=offset)


def _link(commands: list[m.SimpleCommand], pipelines: list[list[int]]) -> list[m.SimpleCommand]:
    linked = list(commands)
    for indices in pipelines:
        if len(indices) < 2:
            continue
        names = tuple(commands[i].program or "" for i in indices)
        for pos, index in enumerate(indices):
            cmd = commands[index]
            linked[index] = m.SimpleCommand(cmd.text, cmd.words, cmd.assignments, (), names, pos,
                                            offset=cmd.offset)
    return linked
