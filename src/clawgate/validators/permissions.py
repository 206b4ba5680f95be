"""Ownership and mode changes that break the system or hand out root: DENY."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.shell.xargsfeed import find_roots, only_directories
from clawgate.validators.argv import command_start, inner, opts
from clawgate.validators.base import Context, LineValidator, Validator, register
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
            return NO_OPINION
        options = parse_options(cmd.words[1:], takes_value=_SETID_OPTIONS)
        operands = options.operands if options.has("--reference") else options.operands[1:]
        for word in operands:
            found = resolve(word, ctx)
            for path in (found.path, found.if_unset):
                if path is not None and is_vital(path, ctx):
                    return Verdict.deny(self.id, f"{cmd.program} on the system path {path}",
                                        hint="change modes only of files in the workspace")
        return NO_OPINION


@register
class SetuidBit(Validator):
    """Setting the setuid or setgid bit makes a program run as its owner (often root) for
    anyone: the classic way to keep root. DENY; only the setgid bit on files of the workspace
    (or on items ``xargs`` hands over) is ASK, as on a file it lends a group, not an owner;
    and on what can only be a directory of the workspace (``build/``, the items of ``find
    build -type d | xargs chmod g+s``) it is left alone: new files inherit the directory's
    group, and nothing runs with another identity.

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
            return NO_OPINION
        options = parse_options(cmd.words[1:], takes_value=_SETID_OPTIONS)
        if options.has("--reference") or not options.operands:
            return NO_OPINION
        mode = options.operands[0].shown
        targets = options.operands[1:]
        if _is_setid(mode) and _setgid_only(mode) and all(
                _workspace_or_fed(word, ctx) for word in targets):
            if targets and all(_directory(word) for word in targets):
                return NO_OPINION  # new files inherit the group: nothing runs
            if all(word.text == XARGS_ITEM for word in targets):
                return NO_OPINION  # xargs' items: CG-CAT-013 reads their feeder
            return Verdict.ask(self.id, f"chmod {mode} sets the setgid bit in the workspace",
                               hint="on directories it makes new files inherit the group")
        if _is_setid(mode):
            return Verdict.deny(self.id, f"chmod {mode} sets the setuid/setgid bit",
                                hint="ask an administrator")
        return NO_OPINION


    def _install(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        options = parse_options(cmd.words[1:], aliases=_INSTALL_ALIASES,
                                takes_value=_INSTALL_VALUED)
        mode = options.value("m")
        if mode is None or not _is_setid(mode):
            return NO_OPINION
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


def _directory(word: Word) -> bool:
    """A path that can only name a directory: it ends in ``/`` or ``/.`` (``build/``, an item
    of ``find -type d``, which stands as ``ROOT/"$XARGS_ITEM"/``)."""
    text = word.text.strip("'\"")
    return text.endswith(("/", "/.")) or text in (".", "..")


def _workspace_or_fed(word: Word, ctx: Context) -> bool:
    if XARGS_ITEM in word.text:  # an item xargs hands over, under the feeder's root
        root = word.text.split(XARGS_ITEM, 1)[0].strip("'\"") or "."
        word = Word(root, None if root.startswith("~") or "$" in root else root)
    path = resolve(word, ctx).path if word.value is not None else None
    return path is not None and under(path, ctx.workspace)


def _is_setid(mode: str) -> bool:
    return any(_SETID_SYMBOLIC.match(part) or _SETID_OCTAL.match(part)
               for part in mode.split(","))


_XARGS = opts("aEILnPsd", "arg-file max-args max-procs max-chars delimiter process-slot-var")


@register
class SetgidOnFedItems(LineValidator):
    """``xargs chmod g+s``: the setgid bit on the items xargs is fed. Where a ``find`` of the
    workspace that hands on directories only feeds it (``find build -type d | xargs chmod
    g+s``), the items are directories of the workspace (each stands as ``build/"$ITEM"/`` in
    the line's resolved reading, judged by CG-CAT-007); from any other feeder they may be
    files: ASK, as for files of the workspace.

    Bad: ``cat list | xargs chmod g+s``. Harmless: ``find build -type d -print0 | xargs -0
    chmod g+s``.
    """

    id = "CG-CAT-013"

    def line_shapes(self) -> int:
        return 0  # it looks only at xargs commands

    def line_programs(self) -> frozenset[str]:
        return frozenset({"xargs"})

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        source = parsed.source
        if "xargs" not in source or "chmod" not in source:
            return NO_OPINION
        commands = parsed.commands
        for index, cmd in enumerate(commands):
            if cmd.program != "xargs":
                continue
            start = command_start(cmd.words, 1, _XARGS)
            template = inner(cmd, start) if start is not None else None
            if template is None or template.program != "chmod" or len(template.words) < 2:
                continue
            mode = template.words[1].shown
            if not (_is_setid(mode) and _setgid_only(mode)):
                continue  # another mode, or setuid: CG-CAT-007 judges the fed commands
            feeder = commands[index - 1] if index else None
            if feeder is not None and feeder.program == "find" and (
                    feeder.pipeline == cmd.pipeline and feeder.stage == cmd.stage - 1 == 0) and (
                    _directories_of_workspace(feeder, ctx)):
                continue
            return Verdict.ask(self.id, f"xargs chmod {mode} sets the setgid bit on items "
                               "that may be files", hint="feed it `find DIR -type d`")
        return NO_OPINION


def _directories_of_workspace(find: SimpleCommand, ctx: Context) -> bool:
    roots = find_roots(find.words)
    if roots is None or not only_directories(find.words):
        return False
    for root in roots:
        path = resolve(Word(root, None if root.startswith("~") else root.strip("'")), ctx).path
        if path is None or not under(path, ctx.workspace):
            return False
    return True
