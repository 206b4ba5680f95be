"""What ``tee`` writes into a CI runner's files when it is fed by a pipe.

``echo "VERSION=1.2" | tee -a "$GITHUB_ENV"`` and ``{ echo A=1; echo B="$(which b)"; } | tee -a
"$GITHUB_ENV"`` append what the commands before the pipe print: judged, like ``>>``
(``runnerfiles.py``), as the ``export`` each written line amounts to. Read only when the
pipe's left side is wholly printers whose lines can be read (``echo``, ``printf``), alone or in
one ``{ …; }`` group, with nothing else between them; any other feeder is ASK, as before.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.runnerfiles import exports_of, lines_of, runner_files

_GLUE = lazy_pattern(r"^[\s;{]*$")  # what may stand between the printers: separators, a brace
_TAIL = lazy_pattern(r"^[\s;}]*\|\s*$")  # after them: the group's end and the pipe
_NESTED = frozenset({"command_substitution", "process_substitution"})


@register
class RunnerFilePipe(LineValidator):
    """``tee`` into ``$GITHUB_ENV`` or ``$GITHUB_PATH`` fed by printers whose lines can be read
    is judged as the ``export`` of each line; any other feeder is ASK.

    Bad: ``echo LD_PRELOAD=/tmp/x.so | tee -a "$GITHUB_ENV"``. Harmless: ``{ echo
    CHROME_BIN="$(which chrome)"; echo CHROME_TEST=1; } | tee -a "$GITHUB_ENV"``.
    """

    id = "CG-ENV-016"

    def line_shapes(self) -> int:
        return ls.PIPE

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if "GITHUB_" not in parsed.source:
            return NO_OPINION
        exports: list[str] = []
        for at, cmd in enumerate(parsed.commands):
            files = runner_files(cmd) if piped_tee(cmd) else []
            if not files:
                continue
            lines = _fed(parsed, at)
            for name in files:
                found = None if lines is None else exports_of(name, lines)
                if found is None:
                    return Verdict.ask(self.id, f"tee writes what a pipe feeds it to ${name}, "
                                       "which sets up every later step of the job",
                                       hint="write literal NAME=value lines")
                exports += found
        return Verdict.unwrap(*exports) if exports else NO_OPINION


def piped_tee(cmd: SimpleCommand) -> bool:
    """``cmd`` is a ``tee`` reading a pipe (not a here-document or a here-string)."""
    return cmd.program == "tee" and cmd.stage > 0 and not any(
        r.feeds_input for r in cmd.redirects)


def _fed(parsed: ParsedLine, at: int) -> list[str] | None:
    """The lines the commands before the pipe into ``parsed.commands[at]`` print, or None when
    they cannot all be read (see the module's docstring)."""
    tee = parsed.commands[at]
    if tee.stage != 1:
        return None
    printers: list[SimpleCommand] = []
    start: int | None = 0
    for before in reversed(parsed.commands[:at]):
        if _NESTED & set(before.nesting[len(tee.nesting):]):
            continue  # inside a printer's word
        if before.pipeline != tee.pipeline or before.stage != 0 or before.nesting != tee.nesting:
            start = _end(parsed.source, before)
            break
        printers.insert(0, before)
    if not printers or start is None:
        return None
    return _read(parsed.source, start, printers, tee)


def _read(source: str, start: int, printers: list[SimpleCommand],
          tee: SimpleCommand) -> list[str] | None:
    raw = source.encode()
    lines: list[str] = []
    cursor = start
    for printer in printers:
        if not _GLUE.match(raw[cursor:printer.offset].decode(errors="replace")):
            return None
        found = lines_of(printer)
        end = _end(source, printer)
        if found is None or end is None:
            return None
        lines += found
        cursor = end
    return lines if _TAIL.match(raw[cursor:tee.offset].decode(errors="replace")) else None


def _end(source: str, cmd: SimpleCommand) -> int | None:
    """Where ``cmd`` ends in ``source``'s UTF-8 bytes, when its text stands there as written."""
    text = cmd.text.encode()
    raw = source.encode()
    return cmd.offset + len(text) if raw[cmd.offset:cmd.offset + len(text)] == text else None
