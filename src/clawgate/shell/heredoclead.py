"""A line that starts with a here-document and no command (``<<EOF``, its body, ``EOF``).

Bash runs such a command as it runs ``> out``: it makes the redirections (expanding the body of
a here-document with an unquoted delimiter, substitutions included) and runs no program.
tree-sitter-bash cannot read a here-document ahead of everything: it reads an error, and the
body's lines as commands. The line is read with a ``:`` before it (``:<<EOF``: the same words,
the same body), then the ``:`` is taken out again, so what is left is bash's command of
redirections alone, at the offsets of the line itself.
"""

from __future__ import annotations

from clawgate.records import replace
from clawgate.shell.model import ParsedLine, SimpleCommand

NAME = ":"


def starts_with_heredoc(line: str) -> bool:
    """The first thing on the line is a here-document operator (not a ``<<<`` string)."""
    text = line.lstrip(" \t")
    return text.startswith("<<") and not text.startswith("<<<")


def read_lead(line: str) -> ParsedLine | None:
    """The reading of ``line`` whose first command is a here-document alone; None when the line
    read with ``:`` before it does not parse cleanly either."""
    from clawgate.shell.treesitter import parse_tree as read

    indent = len(line) - len(line.lstrip(" \t"))
    named = line[:indent] + NAME + line[indent:]
    parsed = read(named)
    if parsed.has_error or not parsed.commands or parsed.written is not None or \
            parsed.shape is not None:
        return None  # read only after being written again: left as an error
    lead = parsed.commands[0]
    if lead.offset != indent or [w.text for w in lead.words] != [NAME]:
        return None  # words after the here-document: ``hoist.py`` reads those, or none does
    commands = tuple(_without_name(c) if c is lead else _shifted(c, lead)
                     for c in parsed.commands)
    return replace(parsed, source=line, commands=commands)


def _without_name(cmd: SimpleCommand) -> SimpleCommand:
    """The ``:`` taken out: bash's command of redirections alone, no program in its stage."""
    return replace(cmd, text=cmd.text[len(NAME):].lstrip(" \t"), words=(),
                   pipeline=_unnamed(cmd.pipeline, cmd.stage))


def _shifted(cmd: SimpleCommand, lead: SimpleCommand) -> SimpleCommand:
    """A later command at its offset in the line; in the lead's pipeline, with no program
    at the lead's stage."""
    pipeline = cmd.pipeline
    if lead.pipeline and pipeline == lead.pipeline and cmd.nesting == lead.nesting:
        pipeline = _unnamed(pipeline, lead.stage)
    return replace(cmd, offset=cmd.offset - len(NAME), pipeline=pipeline)


def _unnamed(pipeline: tuple[str, ...], stage: int) -> tuple[str, ...]:
    if stage >= len(pipeline):
        return pipeline
    return (*pipeline[:stage], "", *pipeline[stage + 1:])
