"""Names the shell's command hash table is told about on the line: ``hash -p FILE NAME`` makes
every later ``NAME`` (looked up without a slash, not a function or a builtin) run FILE, until
``hash -r`` or ``hash -d NAME`` forgets it. What runs is FILE, with the arguments given to the
name."""

from __future__ import annotations

import shlex

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.identity import shadows
from clawgate.validators.unknownwords import BUILTINS


def hashed(cmd: SimpleCommand, table: dict[str, str]) -> None:
    """Apply one ``hash`` command to ``table`` (name -> file): ``-p FILE`` (or ``-pFILE``)
    gives each name operand FILE, ``-r`` empties it, ``-d`` forgets the names given."""
    path: str | None = None
    forget = False
    names: list[str] = []
    words = [w.value for w in cmd.words[1:]]
    at = 0
    while at < len(words):
        value = words[at]
        at += 1
        if value is None:
            continue
        if value == "--":
            names.extend(v for v in words[at:] if v is not None)
            break
        if value.startswith("-") and len(value) > 1:
            flags = value[1:]
            for index, flag in enumerate(flags):
                if flag == "p":
                    given = flags[index + 1:] or (words[at] if at < len(words) else None)
                    if not flags[index + 1:]:
                        at += 1
                    path = given
                    break
                if flag == "r":
                    table.clear()
                elif flag == "d":
                    forget = True
            continue
        names.append(value)
    for name in names:
        if forget:
            table.pop(name, None)
        elif path is not None:
            table[name] = path


@register
class HashedName(LineValidator):
    """``hash -p FILE NAME`` puts FILE in the shell's command hash table under NAME: a later
    ``NAME`` on the line runs FILE (bash looks a slash-less name up in the table before
    ``PATH``; builtins still come first). Each later use is checked as FILE
    with its arguments: ``hash -p /usr/bin/rm ls; ls -rf ~`` is ``rm -rf ~``. A program's name
    given to a different program that is not a mere reader hides what the next plain command
    does: ASK.

    Bad: ``hash -p /usr/bin/rm ls; ls -rf ~``. Harmless: ``hash -p /usr/bin/python3 py; py
    -V``.
    """

    id = "CG-IDENT-005"

    def line_shapes(self) -> int:
        return ls.MULTI | ls.NEWLINE

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if "hash" not in parsed.source or len(parsed.commands) < 2:
            return NO_OPINION
        table: dict[str, str] = {}
        uses: list[str] = []
        shadowing: str | None = None
        for cmd in parsed.commands:
            if cmd.program == "hash" and cmd.name_word is not None:
                hashed(cmd, table)
                for hashed_name, path in table.items():
                    shadowing = shadowing or shadows(hashed_name, path)
                continue
            used = cmd.name_word
            name = used.value if used is not None else None
            if name is None or name not in table or name in BUILTINS:
                continue
            rest = " ".join(w.text for w in cmd.words[cmd.words.index(used) + 1:])
            uses.append(f"{shlex.quote(table[name])} {rest}".strip())
        if not uses:
            return NO_OPINION
        if shadowing is not None:
            return Verdict.unwrap(*uses, outcome=Outcome.ASK, rule_id=self.id,
                                  message=shadowing.replace("alias", "hashed name"))
        return Verdict.unwrap(*uses)
