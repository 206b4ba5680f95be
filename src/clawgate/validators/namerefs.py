"""Namerefs: after ``declare -n ref=PATH`` every assignment to ``ref`` assigns ``PATH``
(``ref=/tmp/evil:$PATH``, ``read ref``, ``printf -v ref …``), which no reading of the word
``ref`` shows. The line's later commands are judged with the name they really set."""

from __future__ import annotations

import re

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.envvars import OPTION_VARIABLES

_DECLARERS = frozenset({"declare", "typeset", "local"})
_NAME = lazy_pattern(r"^[A-Za-z_]\w*$")
# What a shell or the programs it starts read from a variable: code to load or run, where to
# look for programs, how words split, where home is.
SENSITIVE = frozenset({
    "PATH", "LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "BASH_ENV",
    "ENV", "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4", "SHELLOPTS", "BASHOPTS", "IFS",
    "HOME", "CDPATH", "GLOBIGNORE", "HISTFILE", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME",
    "NODE_PATH", "PERL5LIB", "RUBYLIB", "CLASSPATH", "GIT_SSH_COMMAND", "GIT_SSH",
    "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "GIT_EDITOR", "EDITOR",
    "VISUAL", "PAGER", "GIT_PAGER", "MANPAGER", "BROWSER", "LESSOPEN", "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", *OPTION_VARIABLES})


def namerefs(cmd: SimpleCommand) -> list[tuple[str, str | None]] | None:
    """(NAME, TARGET) of each nameref ``declare -n NAME=TARGET`` makes (TARGET None when only
    known at run time); None when ``cmd`` makes none."""
    if cmd.program not in _DECLARERS:
        return None
    flags = [w.value for w in cmd.words[1:] if (w.value or "").startswith(("-", "+"))]
    if not any(f.startswith("-") and "n" in f[1:] for f in flags if f):
        return None
    found: list[tuple[str, str | None]] = []
    for word in cmd.words[1:]:
        value = word.value
        if value is None:
            text = word.text
            name = text.partition("=")[0]
            if "=" in text and _NAME.match(name):
                found.append((name, None))
            continue
        name, equals, target = value.partition("=")
        if equals and _NAME.match(name):
            found.append((name, target.partition("[")[0]))
    return found


@register
class NamerefToSensitive(Validator):
    """``declare -n NAME=TARGET`` where TARGET is a variable the shell or its programs read code
    or search paths from (``PATH``, ``LD_PRELOAD``, ``PROMPT_COMMAND``, ``IFS`` …), or a
    target only known at run time: every later assignment to NAME sets it, out of sight. It
    asks.

    Bad: ``declare -n p=PATH``. Harmless: ``declare -n row=matrix_0``.
    """

    id = "CG-ENV-011"
    programs = _DECLARERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        for name, target in namerefs(cmd) or ():
            if target is None or target in SENSITIVE:
                what = target or "a variable known only at run time"
                return Verdict.ask(self.id, f"assignments to {name} set {what}",
                                   hint=f"assign {target or 'the variable'} by its own name")
        return NO_OPINION


@register
class NamerefAssignments(LineValidator):
    """The commands after ``declare -n NAME=TARGET`` on the same line that assign NAME (as an
    assignment, ``read``, ``printf -v``, ``mapfile``, ``declare``/``export``) are judged with
    TARGET put in its place.

    Bad: ``declare -n p=LD_PRELOAD; p=/tmp/x.so; ls``. Harmless: ``declare -n r=v; r=1``.
    """

    id = "CG-ENV-012"

    def line_shapes(self) -> int:
        return ls.MULTI

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if len(parsed.commands) < 2 or not any(c.program in _DECLARERS
                                               for c in parsed.commands):
            return NO_OPINION
        refs: dict[str, str] = {}
        rewritten: list[str] = []
        for cmd in parsed.commands:
            if refs:
                text = _renamed(cmd.text, refs)
                if text != cmd.text:
                    rewritten.append(text)
            for name, target in namerefs(cmd) or ():
                if target:
                    refs[name] = target
        return Verdict.unwrap(*rewritten) if rewritten else NO_OPINION


def _renamed(text: str, refs: dict[str, str]) -> str:
    """``text`` with each nameref's name, where it stands as a word or before ``=``/``+=``/
    ``[``, replaced by its target."""
    for name, target in refs.items():
        text = re.sub(rf"(?<![\w$/.-]){name}(?=\+?=|\[|\s|$)", target, text)
    return text
