"""A line that writes an agent's or editor's settings however it goes about it — a filter's
output moved into place (``jq '.hooks…=…' s.json > t && mv t s.json``), a script that
rewrites the file (``python3 - <<EOF … json.dump(s, open('.claude/settings.json', 'w'))``) —
gives the command the agent will run in its own text, under a key that names a command
(``agentsettings.py``). That command is checked as the line it is."""

from __future__ import annotations

import os

from clawgate.decision import NO_OPINION, MayRun, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.protectedpaths import AGENT_WHY, protected_reason
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators import lineshapes as ls
from clawgate.validators.agentsettings import commands_named
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.writes import may_write, writer_programs

# Words that a key naming a command holds (a cheap test before the key's pattern).
_HINTS = ("command", "cmd", "helper", "args", "bash", "shell", "script", "exec")
# Programs that write files their code names (their code, or a here-document, holds the path).
_CODE_RUNNERS = frozenset({"python", "python3", "python2", "pypy3", "node", "nodejs", "bun",
                           "deno", "ruby", "perl", "php"})
_PATHISH = lazy_pattern(r"[\w.~/-]*\.[\w.-]+(?:/[\w.-]+)*")


def _agent_written(cmd: SimpleCommand, ctx: Context) -> bool:
    """``cmd`` writes an agent's settings: a write the protected-path family sees, or code of
    an interpreter that names such a file."""
    from clawgate.validators.protected import protected_target

    found = protected_target(cmd, ctx) if may_write(cmd) else None
    if found is not None:
        return AGENT_WHY in found[1]
    if cmd.program not in _CODE_RUNNERS:
        return False
    text = "\n".join((cmd.text, *(r.heredoc or "" for r in cmd.redirects)))
    for token in dict.fromkeys(_PATHISH.findall(text)):
        path = os.path.normpath(os.path.join(ctx.cwd, os.path.expanduser(token)))
        why = protected_reason(path, ctx.workspace)
        if why is not None and AGENT_WHY in why:
            return True
    return False


@register
class StagedAgentSettings(LineValidator):
    """A line that writes an agent's or editor's settings (directly, through a temporary file
    moved into place, or by a script's code) and whose text gives a command under a key that
    names one (``hooks…command``, ``apiKeyHelper``, ``callCommand``, ``args``): the command is
    checked as the line it is, and a DENY of it is the line's. DENY when its text switches
    the agent's approvals off (``permissions={allow:['Bash(*)']}``, ``bypassPermissions``).

    Bad: ``jq '.tools.callCommand="rm -rf ~"' .gemini/settings.json > g && mv g
    .gemini/settings.json``. Harmless: ``jq '.theme="dark"' .gemini/settings.json > g && mv g
    .gemini/settings.json`` (asked, as any write of agent settings).
    """

    id = "CG-PROT-007"

    def line_shapes(self) -> int:
        return ls.MULTI | ls.WRITES | ls.LESS | ls.NEWLINE | ls.EQUALS

    def line_programs(self) -> frozenset[str]:
        return writer_programs() | _CODE_RUNNERS

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        commands = parsed.commands
        if len(commands) < 2 and not any(
                may_write(c) or c.program in _CODE_RUNNERS for c in commands):
            return NO_OPINION  # one command that writes nothing and runs no code
        source = parsed.source
        lowered = source.lower()
        if not any(hint in lowered for hint in _HINTS) and "allow" not in lowered:
            return NO_OPINION
        from clawgate.validators.protected import escalates

        named = commands_named(source)
        found = escalates(source)
        if not (named or found) or not any(_agent_written(c, ctx) for c in commands):
            return NO_OPINION
        if found is not None:
            return Verdict.deny(self.id, f"writes agent settings that switch its approvals off "
                                f"({found.group(0)!r})", hint="change this setting by hand")
        return Verdict.unwrap(*map(MayRun, named))
