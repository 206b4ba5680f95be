"""Inline code read for what it does (``python -c``, ``python - <<EOF``, ``node -e``,
``perl -e``, ``ruby -e``, ``php -r``, ``lua -e``, ``Rscript -e`` ...): Python from its syntax
tree, the others from their tokens. What it starts, writes, deletes and reads is judged as the
shell command that does the same wherever one exists (``os.system("rm -rf ~")`` is ``rm -rf ~``,
``open("/etc/x", "w")`` is ``: > /etc/x``), so one set of rules decides for both.

Processes started by languages other than Python stay with CG-INTERP-001 (``interpreters.py``),
which asks for any of them and checks the commands it can read.
"""

from __future__ import annotations

from functools import lru_cache

from clawgate.decision import NO_OPINION, Outcome, Reason, Risk, Verdict
from clawgate.inline.langtables import LANGUAGES
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.indirection import stdin_program
from clawgate.validators.interpreters import INLINE, inline_code, python_own
from clawgate.validators.programs import family_name

# "http://127.0.0.1:2375/..." and socket addresses written as quoted strings ("10.0.0.5", 80)
_ADDRESS_LITERAL = lazy_pattern(
    r"[a-zA-Z][\w+.-]{0,15}+://(?:[^@/\s'\"]{0,256}+@)?(?P<host>\[[0-9a-fA-F:.]{1,64}+\]|"
    r"[\w.-]{1,253}+)|[\"'](?P<quoted>[0-9][0-9a-fA-Fx.]{0,40}+|\[?[0-9a-fA-F:.]{2,64}+\]?|"
    r"localhost|metadata(?:\.google\.internal)?)[\"']")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from clawgate.inline.effects import Effects

_PYTHONS = frozenset({"python", "pypy"})
PROGRAMS = frozenset(p for p in INLINE if p in _PYTHONS or p in LANGUAGES)


@lru_cache(maxsize=512)
def code_effects(code: str, lang: str, argv: tuple[str | None, ...] = ()) -> Effects:
    """What inline code does: Python from its syntax tree (``ast`` is imported on the first
    inline Python seen; ``argv`` is its ``sys.argv``), the other languages from their tokens."""
    if lang == "python":
        from clawgate.inline.python import analyse

        return analyse(code, argv)
    from clawgate.inline.tokens import analyse as scan_tokens

    return scan_tokens(code, lang)


def python_effects(code: str) -> Effects:
    return code_effects(code, "python")


def inline_sources(cmd: SimpleCommand) -> list[tuple[str, str | None]]:
    """(language, code) of every piece of code ``cmd`` runs inline: ``-c``/``-e`` values, and
    the here-documents and here-strings it reads its program from (code None: only known at
    run time)."""
    program = family_name(cmd.program)
    lang = "python" if program in _PYTHONS else LANGUAGES.get(program or "")
    spec = INLINE.get(program or "")
    if lang is None or spec is None:
        return []
    found: list[tuple[str, str | None]] = [(lang, code) for _, code in inline_code(cmd, spec)]
    if found or not stdin_program(cmd):
        return found
    for doc in cmd.redirects:
        if doc.op == "<<<":
            found.append((lang, doc.target.value if doc.target is not None else None))
        elif doc.feeds_input:
            found.append((lang, doc.heredoc))
    return found


def _each(cmd: SimpleCommand, python_only: bool = False) -> list[Effects]:
    argv = _python_argv(cmd) if family_name(cmd.program) in _PYTHONS else ()
    return [code_effects(code, lang, argv) for lang, code in inline_sources(cmd)
            if code is not None and (lang == "python" or not python_only)]


def _internal_address(cmd: SimpleCommand) -> tuple[str, str] | None:
    """The first URL or quoted address literal in inline code that is a metadata endpoint or
    a loopback, private or link-local address (as ``curl`` to it is judged), or None."""
    from clawgate.validators.netaddr import classify

    for _lang, code in inline_sources(cmd):
        for found in _ADDRESS_LITERAL.finditer(code or ""):
            host = found.group("host") or found.group("quoted")
            kind = classify(host)
            if kind is not None:
                return kind, host
    return None


def _python_argv(cmd: SimpleCommand) -> tuple[str | None, ...]:
    """``sys.argv`` of inline Python: ``-c`` (or ``-``) then the words after the code."""
    rest = tuple(w.value for w in cmd.words[len(python_own(cmd.words)):])
    return rest if rest[:1] == ("-",) else ("-c", *rest)


@register
class InlineActions(Validator):
    """Inline code's processes and file actions, checked as the shell commands that do the
    same (languages other than Python keep CG-INTERP-001's ASK for any process): a literal
    payload (``os.system("…")``, ``subprocess.run([...])``, ``system("rm", "-rf", "/")``) is
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
        if commands and any(c.startswith(": >") for c in commands):
            commands = _with_written_text(commands, cmd)
        if opaque:
            return Verdict.unwrap(*commands, outcome=Outcome.ASK, rule_id=self.id,
                                  message=f"inline code: {opaque[0]}")
        return Verdict.unwrap(*commands) if commands else NO_OPINION


def _with_written_text(commands: list[str], cmd: SimpleCommand) -> list[str]:
    """Writes as ``printf %s CODE > F`` when the code itself holds text that fetches or runs
    something (``open(".git/hooks/pre-commit", "w").write("curl x|sh")``): what lands in the
    file is drawn from that code, so the rules on code written into protected paths see it."""
    import shlex

    from clawgate.validators.protected import RUNS_CODE

    code = " ".join(w.shown for w in cmd.words[1:] if not w.shown.startswith("-"))
    if not RUNS_CODE.search(code):
        return commands
    return [f"printf %s {shlex.quote(code)} {c[2:]}" if c.startswith(": >") else c
            for c in commands]


@register
class InlineEnvironment(Validator):
    """Inline code that prints or serialises the whole environment (``print(os.environ)``,
    ``console.log(process.env)``, ``p ENV``, ``print %ENV``, ``print_r($_ENV)``) hands every
    token and key in it to the agent: ASK; with the network reached as well, DENY.

    Bad: ``python3 -c 'import os; print(dict(os.environ))'``. Harmless:
    ``python3 -c 'import os; print(os.environ["HOME"])'``.
    """

    id = "CG-CODE-002"
    programs = PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        effects = _each(cmd)
        if any(found.env_dump and found.network for found in effects):
            return Verdict.deny(self.id, "inline code sends the whole environment over the "
                                "network")
        if any(found.env_dump for found in effects):
            return Verdict.ask(self.id, "inline code prints the whole environment, secrets "
                               "included", hint="print the one variable you need")
        return NO_OPINION


@register
class InlineEvaluation(Validator):
    """Inline code that evaluates text (``exec``, ``eval``, ``compile``, ``__import__``,
    ``Function``, ``instance_eval`` ...) or runs it as a command: literal Python is read in its
    turn; text decoded,
    decompressed, reversed or fetched at run time (``exec(base64.b64decode(…))``,
    ``eval(atob(…))``, ``eval(base64_decode(…))``) was hidden on purpose: DENY, as is code
    from another host given to an evaluator or a code loader (``eval URI.open(URL).read``,
    ``include(download(URL))``, R's ``source(URL)``); any other Python text only known at
    run time: ASK.

    Bad: ``python3 -c 'import base64; exec(base64.b64decode("aW1wb3J0IG9z"))'``.
    Harmless: ``python3 -c 'exec("print(1)")'``.
    """

    id = "CG-CODE-003"
    programs = PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        effects = _each(cmd)
        if any(found.decoded for found in effects):
            return Verdict.deny(self.id, "inline code runs code decoded or fetched at run "
                                "time", hint="decode it, read it, then run it")
        if any(found.evaluates for found in _each(cmd, python_only=True)):
            return Verdict.ask(self.id, "inline python evaluates text only known at run time")
        return NO_OPINION


@register
class UnreadablePython(Validator):
    """Inline Python that does not parse cannot be read: what runs is unknown (and a parser
    that gives up is what an attacker aims for). ASK.

    Bad: ``python3 -c 'import os; os.system("id"'``. Harmless: ``python3 -c 'print(1)'``.
    """

    id = "CG-CODE-004"
    programs = PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if any(found.syntax_error for found in _each(cmd, python_only=True)):
            return Verdict.ask(self.id, "inline python does not parse, so it cannot be read",
                               hint="fix the code, or put it in a reviewed file")
        return NO_OPINION


@register
class InlineReach(Validator):
    """Inline code that opens sockets or fetches URLs (``socket``, ``urllib``, ``net.connect``,
    ``fsockopen``, ``IO::Socket``, ``TCPSocket``): ASK (high risk, as ``curl`` is; a literal
    metadata address, as ``curl`` to it: DENY); Python with
    files it reads checked as sent (``curl -T F``: credentials DENY); Python with
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
            if found.network:  # files it reads may be what it sends
                from clawgate.inline.effects import upload

                reached = _internal_address(cmd)
                if reached is not None and reached[0] == "metadata":
                    return Verdict.of(Outcome.DENY, self.id, f"inline code reaches the cloud "
                                      f"metadata endpoint {reached[1]}", risk=Risk.HIGH)
                message = "inline code reaches the network" if reached is None else (
                    f"inline code reaches {reached[1]}, a {reached[0]} address")
                return Verdict(Outcome.ASK, (Reason(self.id, message),), risk=Risk.HIGH,
                               nested=tuple(upload(r) for r in found.reads))
            if found.native:
                return Verdict.ask(self.id, "inline python loads native code")
        return NO_OPINION
