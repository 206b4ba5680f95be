"""Confirmations answered by the line itself.

``find -ok``/``-okdir`` asks a person before each command it runs, reading the answer from
its standard input; that question is the only thing between it and ``-exec``. A line that
feeds that input (``echo y |``, ``yes |``, ``<<< y``, ``< answers.txt``) answers it without
anyone reading it: the prompt is forged, and the command runs as if approved. (``xargs -p``
asks on the terminal, not on its input, and is left alone.)
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register

_PROMPTS = frozenset({"-ok", "-okdir"})


@register
class ForgedConfirmation(Validator):
    """``find -ok``/``-okdir`` whose standard input the line itself supplies (a pipe, a
    here-string or here-document, a file): the question meant for a person is answered by
    the line, so the command runs unapproved. DENY.

    Bad: ``echo y | find . -okdir open -a Calculator {} \\;``. Harmless: ``find . -ok rm {}
    \\;`` (a person answers).
    """

    id = "CG-ESC-013"
    programs = frozenset({"find"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program != "find" or not (cmd.stage or cmd.redirects):
            return NO_OPINION
        option = next((a for a in cmd.args if a in _PROMPTS), None)
        if option is None:
            return NO_OPINION
        if cmd.stage == 0 and not any(r.feeds_input or r.op == "<" for r in cmd.redirects):
            return NO_OPINION
        return Verdict.deny(self.id, f"find {option} asks a person, and the line answers it",
                            hint="run the command with -exec and approve that")
