"""Text piped into a data-store client or a cluster tool from ``echo``, ``printf`` or
``cat <<EOF`` is what it reads as its commands, exactly as a here-string would be: the piped
pair is checked again as ``CLIENT ARGS <<< TEXT`` so that every rule reading a client's fed
commands (destructive SQL, store wipes, console escapes, pod manifests) sees it."""

from __future__ import annotations

import shlex

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.consoles import fed_text
from clawgate.validators.written import STDIN_CLIENTS

# Data clients, and the schedulers that run shell lines read on their input later
READERS = STDIN_CLIENTS | {"at", "batch"}
_ESCAPES = {"\\n": "\n", "\\t": "\t"}


def _printed(cmd: SimpleCommand) -> str | None:
    """What ``echo``/``printf``/``cat <<EOF`` writes, when the line says it."""
    words = [w.shown for w in cmd.words[1:]]
    if cmd.program == "echo":
        while words and words[0] in ("-n", "-e", "-E", "-ne", "-en"):
            words.pop(0)
        return " ".join(words)
    if cmd.program == "printf" and words:
        text = " ".join(words)
        for escape, char in _ESCAPES.items():
            text = text.replace(escape, char)
        return text
    if cmd.program == "cat" and not [w for w in words if w != "-"]:
        fed = fed_text(cmd)
        return "\n".join(fed) if fed else None
    return None


def _source(parsed: ParsedLine, cmd: SimpleCommand) -> SimpleCommand | None:
    """The command of the stage before ``cmd`` in its pipeline."""
    before = [c for c in parsed.commands if c.pipeline == cmd.pipeline and c.nesting ==
              cmd.nesting and c.stage == cmd.stage - 1 and c.offset < cmd.offset]
    return max(before, key=lambda c: c.offset) if before else None


@register
class PipedCommands(LineValidator):
    """``echo FLUSHALL | redis-cli -h prod``, ``printf 'DROP TABLE t' | psql``, ``cat <<EOF |
    kubectl apply -f -``, ``echo 'rm -rf ~' | at now``: the piped text is the client's input,
    checked as a here-string.

    Bad: ``echo 'DROP DATABASE app' | psql -h db.prod.example``.
    Harmless: ``echo 'select 1' | psql``.
    """

    id = "CG-DATA-003"

    def line_shapes(self) -> int:
        return ls.PIPE

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if "|" not in parsed.source:
            return NO_OPINION
        lines: list[str] = []
        for cmd in parsed.commands:
            if cmd.stage == 0 or cmd.program not in READERS:
                continue
            source = _source(parsed, cmd)
            text = _printed(source) if source is not None else None
            if text is not None and text.strip():
                prefix = " ".join(f"{a.name}={shlex.quote(a.value.shown)}"
                                  for a in cmd.assignments)
                lines.append(f"{prefix} {shlex.join(cmd.argv)} <<< {shlex.quote(text)}".strip())
        return Verdict.unwrap(*lines) if lines else NO_OPINION
