"""The shell's record of what ran: switched off (``set +o history``, ``HISTFILE=/dev/null``,
``unset HISTFILE``, ``HISTSIZE=0``) or erased (a history file replaced by a link to
``/dev/null``, truncated, overwritten, deleted). Hiding what ran is how an intrusion covers its
tracks (MITRE ATT&CK T1562.003, T1070.003); no build needs either."""

from __future__ import annotations

import os
from itertools import pairwise

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.paths import resolve
from clawgate.validators.writes import write_targets

_DECLARERS = frozenset({"export", "declare", "typeset", "readonly", "local"})
_SWITCHES = _DECLARERS | {"set", "shopt", "unset"}
# The variables that place or size the history, and the values that switch it off.
_EMPTYING = {"HISTFILE": ("", "/dev/null"), "HISTSIZE": ("0",), "HISTFILESIZE": ("0",),
             "SAVEHIST": ("0",), "HISTIGNORE": ("*",)}
_HISTORY_FILE = lazy_pattern(
    r"^\.(?:bash|zsh|sh|ksh|python|node_repl|mysql|psql|sqlite|irb|rediscli)_history$"
    r"|^\.z?history$|^fish_history$")
# Programs that replace or remove a file they are given (append-only writes keep the record).
_ERASERS = frozenset({"ln", "link", "cp", "mv", "install", "truncate", "shred", "wipe", "srm",
                      "rm", "unlink", "dd", "tee", "sed", "perl"})


@register
class HistoryOff(Validator):
    """The shell told to stop recording the commands it runs: ``set +o history``, ``shopt -uo
    history``, ``HISTFILE`` set to ``/dev/null`` or nothing, ``unset HISTFILE``, ``HISTSIZE``,
    ``HISTFILESIZE`` or zsh's ``SAVEHIST`` set to 0, ``HISTIGNORE='*'``. ASK.

    Bad: ``export HISTFILE=/dev/null``. Harmless: ``history | grep pytest``,
    ``set -o history``.
    """

    id = "CG-HIST-001"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if program in _SWITCHES else sh.ASSIGN

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        text = cmd.text
        if "HIST" not in text and "history" not in text:
            return NO_OPINION
        what = _switched_off(cmd)
        if what is None:
            return NO_OPINION
        return Verdict.ask(self.id, f"{what} stops the shell recording the commands it runs",
                           hint="leave the shell history as it is")


def _switched_off(cmd: SimpleCommand) -> str | None:
    program = cmd.program
    args = cmd.args
    if program == "set" and any(a == "+o" and b == "history" for a, b in pairwise(args)):
        return "set +o history"
    if program == "shopt" and "history" in args and any(
            a.startswith("-") and "u" in a and "o" in a for a in args):
        return "shopt -uo history"
    if program == "unset" and any(a in _EMPTYING for a in args):
        return f"unset {next(a for a in args if a in _EMPTYING)}"
    pairs = [(a.name, a.value.shown) for a in cmd.assignments]
    if program in _DECLARERS:
        pairs += [(a.partition("=")[0], a.partition("=")[2]) for a in args if "=" in a]
    for name, value in pairs:
        if value.strip("'\"") in _EMPTYING.get(name, ()):
            return f"{name}={value}"
    return None


@register
class HistoryErased(Validator):
    """A shell or REPL history file (``~/.bash_history``, ``~/.zsh_history``, ``$HISTFILE``,
    ``~/.python_history`` ...) replaced by a link (``ln -sf /dev/null ~/.bash_history``),
    truncated, overwritten or removed: the record of what ran is gone. DENY.

    Bad: ``ln -sf /dev/null ~/.bash_history``. Harmless: ``tail -n 20 ~/.bash_history``.
    """

    id = "CG-HIST-002"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if program in _ERASERS else sh.REDIRECT

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not _names_history(cmd):
            return NO_OPINION
        targets = [r.target for r in cmd.redirects
                   if r.op in (">", ">|", "&>") and r.target is not None]
        appends = cmd.program == "tee" and any(a in ("-a", "--append") for a in cmd.args)
        if cmd.program in _ERASERS and not appends:
            targets += list(write_targets(cmd))
            if cmd.program in ("rm", "unlink", "shred", "wipe", "srm"):
                targets += [w for w in cmd.words[1:] if not w.shown.startswith("-")]
        found = next((w for w in targets if _history_file(w, ctx)), None)
        if found is None:
            return NO_OPINION
        return Verdict.deny(self.id, f"{cmd.program or 'a redirection'} erases the history "
                            f"file {found.shown}", hint="leave the shell history as it is")


def _names_history(cmd: SimpleCommand) -> bool:
    """The cheap first look: a word or a redirection's target (the text leaves redirections
    out) that may name a history file."""
    return any("hist" in w.text or "HIST" in w.text for w in cmd.words[1:]) or any(
        r.target is not None and ("hist" in r.target.text or "HIST" in r.target.text)
        for r in cmd.redirects)


def _history_file(word: Word, ctx: Context) -> bool:
    if "HISTFILE" in word.text:
        return True
    path = resolve(word, ctx).path
    return path is not None and _HISTORY_FILE.match(os.path.basename(path)) is not None
