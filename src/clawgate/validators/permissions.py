"""Ownership and mode changes that break the system or hand out root: DENY."""

from __future__ import annotations

from clawgate.decision import Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.flags import parse_options
from clawgate.validators.paths import resolve, under
from clawgate.validators.systempaths import is_vital
from clawgate.validators.xargsfeed import ITEM as XARGS_ITEM

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
    anyone: the classic way to keep root. DENY; only the setgid bit on files of the workspace
    (or on items ``xargs`` hands over) is ASK: on a directory it only makes new files inherit
    the group (``find build -type d | xargs chmod g+s``), and on a file it lends a group, not
    an owner.

    ``install -m MODE`` (``--mode=``) sets the mode of what it copies the same way.

    Bad: ``chmod u+s /tmp/sh``, ``chmod 4755 ./tool``, ``install -m 4755 /bin/bash /tmp/b``.
    Harmless: ``chmod 755 ./tool``, ``install -m 755 build/app dist/app``.
    """

    id = "CG-CAT-007"
    programs = frozenset({"chmod", "install"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program == "install":
            return self._install(cmd, ctx)
        if cmd.program != "chmod":
            return Verdict.passthrough()
        options = parse_options(cmd.words[1:], takes_value=_SETID_OPTIONS)
        if options.has("--reference") or not options.operands:
            return Verdict.passthrough()
        mode = options.operands[0].shown
        if _is_setid(mode) and _setgid_only(mode) and all(
                _workspace_or_fed(word, ctx) for word in options.operands[1:]):
            return Verdict.ask(self.id, f"chmod {mode} sets the setgid bit in the workspace",
                               hint="on directories it makes new files inherit the group")
        if _is_setid(mode):
            return Verdict.deny(self.id, f"chmod {mode} sets the setuid/setgid bit",
                                hint="ask an administrator")
        return Verdict.passthrough()


    def _install(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        options = parse_options(cmd.words[1:], aliases=_INSTALL_ALIASES,
                                takes_value=_INSTALL_VALUED)
        mode = options.value("m")
        if mode is None or not _is_setid(mode):
            return Verdict.passthrough()
        targets = options.operands if options.has("d") else options.operands[-1:]
        if _setgid_only(mode) and all(_workspace_or_fed(w, ctx) for w in targets):
            return Verdict.ask(self.id, f"install -m {mode} sets the setgid bit in the "
                               "workspace", hint="on directories it makes new files inherit "
                               "the group")
        return Verdict.deny(self.id, f"install -m {mode} sets the setuid/setgid bit",
                            hint="ask an administrator")


_INSTALL_ALIASES = {"--mode": "m", "--owner": "o", "--group": "g", "--target-directory": "t",
                    "--suffix": "S", "--directory": "d"}
_INSTALL_VALUED = frozenset({"m", "o", "g", "t", "S", "--strip-program"})


def _setgid_only(mode: str) -> bool:
    """Every part that sets an id bit sets only setgid: ``g+s``, ``2775`` (not ``u+s``,
    ``+s``, ``6755``)."""
    for part in mode.split(","):
        if _SETID_OCTAL.match(part) and part.lstrip("0")[:1] not in ("2", ""):
            return False
        who = _SETID_SYMBOLIC.match(part)
        if who is not None and (part[: part.find("+") if "+" in part else part.find("=")]
                                != "g"):
            return False
    return True


def _workspace_or_fed(word: Word, ctx: Context) -> bool:
    if XARGS_ITEM in word.text:  # an item xargs hands over, under the feeder's root
        root = word.text.split(XARGS_ITEM, 1)[0].strip("'\"") or "."
        word = Word(root, None if root.startswith("~") or "$" in root else root)
    path = resolve(word, ctx).path if word.value is not None else None
    return path is not None and under(path, ctx.workspace)


def _is_setid(mode: str) -> bool:
    return any(_SETID_SYMBOLIC.match(part) or _SETID_OCTAL.match(part)
               for part in mode.split(","))
