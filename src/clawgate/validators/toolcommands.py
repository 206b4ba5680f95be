"""Build and deploy tools told on their command line which program to start, its arguments
given by other options: helm's ``--post-renderer PROGRAM`` with each ``--post-renderer-args
ARG``, and Maven's exec plugin (``mvn exec:exec -Dexec.executable=PROGRAM
-Dexec.args='ARGS'``). The program and its arguments are put together and judged as the command
line they make, so a download-and-run is what it is whichever tool starts it."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register

_UNKNOWN = object()  # a value only known at run time


def _values(words: Sequence[Word], name: str) -> list[object]:
    """Every value given to the long option ``name``, glued (``--x=V``) or as the next word."""
    found: list[object] = []
    for i, word in enumerate(words):
        text = word.value
        if text is None:
            if word.text.startswith(name + "="):
                found.append(_UNKNOWN)
            continue
        if text == name and i + 1 < len(words):
            following = words[i + 1].value
            found.append(_UNKNOWN if following is None else following)
        elif text.startswith(name + "="):
            found.append(text[len(name) + 1:])
    return found


def _helm(cmd: SimpleCommand) -> str | object | None:
    program = _values(cmd.words, "--post-renderer")
    if not program:
        return None
    args = _values(cmd.words, "--post-renderer-args")
    if _UNKNOWN in (program[-1], *args):
        return _UNKNOWN
    return " ".join(shlex.quote(str(w)) for w in (program[-1], *args))


def _mvn(cmd: SimpleCommand) -> str | object | None:
    if not any(w.value is not None and w.value.endswith(":exec") for w in cmd.words[1:]):
        return None
    program = _values(cmd.words, "-Dexec.executable")
    if not program:
        return None
    args = _values(cmd.words, "-Dexec.args")
    if _UNKNOWN in (program[-1], *args[-1:]):
        return _UNKNOWN
    # Maven splits exec.args at white space, quotes kept together, as a shell does
    return " ".join((shlex.quote(str(program[-1])), *(str(a) for a in args[-1:])))


_BUILDERS = {"helm": _helm, "mvn": _mvn, "mvnw": _mvn, "./mvnw": _mvn}


@register
class ToolStartsCommand(Validator):
    """``helm … --post-renderer P --post-renderer-args A`` and ``mvn exec:exec
    -Dexec.executable=P -Dexec.args=A``: the command ``P A`` is checked as the command it is;
    one known only at run time asks.

    Bad: ``helm template . --post-renderer sh --post-renderer-args -c --post-renderer-args
    'rm -rf ~'``. Harmless: ``helm template ./chart --post-renderer ./kustomize-wrap.sh``.
    """

    id = "CG-WRAP-026"
    programs = frozenset(_BUILDERS)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        build = _BUILDERS.get(cmd.program or "")
        if build is None:
            return NO_OPINION
        line = build(cmd)
        if line is None:
            return NO_OPINION
        if line is _UNKNOWN:
            return Verdict.ask(self.id, f"{cmd.program} starts a program known only at run time")
        return Verdict.unwrap(str(line))
