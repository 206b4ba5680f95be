"""Ownership and mode changes that break the system or hand out root: DENY."""

from __future__ import annotations

from clawgate.decision import Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.flags import parse_options
from clawgate.validators.paths import resolve
from clawgate.validators.systempaths import is_vital

_CHANGERS = frozenset({"chmod", "chown", "chgrp"})
_SETID_SYMBOLIC = lazy_pattern(r"^[ugoa]*[+=][rwxXt]*s")
_SETID_OCTAL = lazy_pattern(r"^0*[2-7][0-7]{3}$")
_SETID_OPTIONS = frozenset({"--reference", "--from"})


@register
class OwnershipOfSystemPaths(Validator):
    """``chmod``/``chown``/``chgrp`` on ``/``, a system path or the home directory itself:
    one wrong mode on ``/etc`` or ``/usr/bin`` and nothing starts any more.

    Bad: ``chmod -R 777 /``, ``chown user /etc/passwd``. Harmless: ``chmod +x ./run.sh``.
    """

    id = "CG-CAT-006"
    programs = _CHANGERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in _CHANGERS:
            return Verdict.passthrough()
        options = parse_options(cmd.words[1:], takes_value=_SETID_OPTIONS)
        operands = options.operands if options.has("--reference") else options.operands[1:]
        for word in operands:
            found = resolve(word, ctx)
            for path in (found.path, found.if_unset):
                if path is not None and is_vital(path, ctx):
                    return Verdict.deny(self.id, f"{cmd.program} on the system path {path}",
                                        hint="change modes only of files in the workspace")
        return Verdict.passthrough()


@register
class SetuidBit(Validator):
    """Setting the setuid or setgid bit makes a program run as its owner (often root) for
    anyone: the classic way to keep root.

    Bad: ``chmod u+s /tmp/sh``, ``chmod 4755 ./tool``. Harmless: ``chmod 755 ./tool``.
    """

    id = "CG-CAT-007"
    programs = frozenset({"chmod"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program != "chmod":
            return Verdict.passthrough()
        options = parse_options(cmd.words[1:], takes_value=_SETID_OPTIONS)
        if options.has("--reference") or not options.operands:
            return Verdict.passthrough()
        mode = options.operands[0].shown
        if _is_setid(mode):
            return Verdict.deny(self.id, f"chmod {mode} sets the setuid/setgid bit",
                                hint="ask an administrator")
        return Verdict.passthrough()


def _is_setid(mode: str) -> bool:
    return any(_SETID_SYMBOLIC.match(part) or _SETID_OCTAL.match(part)
               for part in mode.split(","))
