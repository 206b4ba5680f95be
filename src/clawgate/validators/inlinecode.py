"""Inline Python read from its syntax tree (``python -c``, ``python - <<EOF``, ``python3 <<<``):
what it starts, writes, deletes, reads, evaluates and reaches, each judged as the shell
command that does the same wherever one exists (``os.system("rm -rf ~")`` is ``rm -rf ~``,
``open("/etc/x", "w")`` is ``: > /etc/x``), so one set of rules decides for both.

Other languages are read by ``interpreters.py`` (CG-INTERP-001) and ``inline/tokens.py``.
"""

from __future__ import annotations

from functools import lru_cache

from clawgate.decision import Outcome, Verdict
from clawgate.inline.effects import Effects
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.indirection import stdin_program
from clawgate.validators.interpreters import INLINE, inline_code
from clawgate.validators.programs import family_name

_PYTHONS = frozenset({"python", "pypy"})
PROGRAMS = frozenset(p for p in INLINE if p in _PYTHONS)


@lru_cache(maxsize=512)
def python_effects(code: str) -> Effects:
    """What inline Python does (``ast`` is imported here, on the first inline Python seen)."""
    from clawgate.inline.python import analyse

    return analyse(code)


def python_sources(cmd: SimpleCommand) -> list[str | None]:
    """Every piece of Python ``cmd`` runs inline: ``-c`` values, and the here-documents and
    here-strings it reads its program from (None: only known at run time)."""
    if family_name(cmd.program) not in _PYTHONS:
        return []
    found: list[str | None] = [code for _, code in inline_code(cmd, INLINE["python"])]
    if found or not stdin_program(cmd):
        return found
    for doc in cmd.redirects:
        if doc.op == "<<<":
            found.append(doc.target.value if doc.target is not None else None)
        elif doc.feeds_input:
            found.append(doc.heredoc)
    return found


def _each(cmd: SimpleCommand) -> list[Effects]:
    return [python_effects(code) for code in python_sources(cmd) if code is not None]


@register
class InlineActions(Validator):
    """Inline Python's processes and file actions, checked as the shell commands that do the
    same: a literal payload (``os.system("…")``, ``subprocess.run([...])``, ``os.execl``) is
    checked as that command, a file written, deleted or read as ``: > F``, ``rm F``, ``cat F``
    (so system paths DENY, start-up files DENY, paths outside the workspace ASK, secrets ASK).
    A payload or target computed at run time: ASK.

    Bad: ``python3 -c 'import os; os.system("rm -rf ~")'`` (DENY, as ``rm -rf ~``).
    Harmless: ``python3 -c 'import json; print(json.dumps([1]))'``.
    """

    id = "CG-CODE-001"
    programs = PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        commands: list[str] = []
        opaque: list[str] = []
        for found in _each(cmd):
            commands.extend(found.commands)
            opaque.extend(found.opaque)
        if opaque:
            return Verdict.unwrap(*commands, outcome=Outcome.ASK, rule_id=self.id,
                                  message=f"inline python {opaque[0]}")
        return Verdict.unwrap(*commands) if commands else Verdict.passthrough()


@register
class InlineEnvironment(Validator):
    """Inline Python that prints or serialises the whole environment (``print(os.environ)``,
    ``json.dumps(dict(os.environ))``) hands every token and key in it to the agent: ASK.

    Bad: ``python3 -c 'import os; print(dict(os.environ))'``. Harmless:
    ``python3 -c 'import os; print(os.environ["HOME"])'``.
    """

    id = "CG-CODE-002"
    programs = PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if any(found.env_dump for found in _each(cmd)):
            return Verdict.ask(self.id, "inline python prints the whole environment, secrets "
                               "included", hint="print the one variable you need")
        return Verdict.passthrough()


@register
class InlineEvaluation(Validator):
    """Inline Python that evaluates text (``exec``, ``eval``, ``compile``, ``__import__``):
    literal text is read as Python in its turn; text decoded, decompressed, reversed or
    fetched at run time (``exec(base64.b64decode(…))``) was hidden on purpose: DENY; any
    other text only known at run time: ASK.

    Bad: ``python3 -c 'import base64; exec(base64.b64decode("aW1wb3J0IG9z"))'``.
    Harmless: ``python3 -c 'exec("print(1)")'``.
    """

    id = "CG-CODE-003"
    programs = PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        effects = _each(cmd)
        if any(found.decoded for found in effects):
            return Verdict.deny(self.id, "inline python runs code decoded or fetched at run "
                                "time", hint="decode it, read it, then run it")
        if any(found.evaluates for found in effects):
            return Verdict.ask(self.id, "inline python evaluates text only known at run time")
        return Verdict.passthrough()


@register
class UnreadablePython(Validator):
    """Inline Python that does not parse cannot be read: what runs is unknown (and a parser
    that gives up is what an attacker aims for). ASK.

    Bad: ``python3 -c 'import os; os.system("id"'``. Harmless: ``python3 -c 'print(1)'``.
    """

    id = "CG-CODE-004"
    programs = PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if any(found.syntax_error for found in _each(cmd)):
            return Verdict.ask(self.id, "inline python does not parse, so it cannot be read",
                               hint="fix the code, or put it in a reviewed file")
        return Verdict.passthrough()


@register
class InlineReach(Validator):
    """Inline Python that opens sockets or fetches URLs: ASK (high risk, as ``curl`` is); with
    a process or rewired descriptors as well (a remote or bind shell), or a process started
    after changing user ids: DENY. Native code loaded (``ctypes``): ASK.

    Bad: ``python3 -c 'import socket,os;s=socket.socket();s.connect(("h",1));os.dup2(…)'``.
    Harmless: ``python3 -c 'import socket; print(socket.gethostname())'``.
    """

    id = "CG-CODE-005"
    programs = PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        for found in _each(cmd):
            if found.network and (found.spawns or found.descriptors):
                return Verdict.deny(self.id, "inline python wires a process to the network "
                                    "(a remote or bind shell)")
            if found.privilege and found.spawns:
                return Verdict.deny(self.id, "inline python changes user ids and starts a "
                                    "process")
            if found.network:
                return Verdict.ask(self.id, "inline python reaches the network")
            if found.native:
                return Verdict.ask(self.id, "inline python loads native code")
        return Verdict.passthrough()
