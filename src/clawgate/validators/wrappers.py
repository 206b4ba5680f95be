"""Wrappers: programs that run another command (``sudo``, ``nice``, ``timeout``, ``uv run`` ...).

The wrapped command is handed back to the engine (``Verdict.unwrap``) and checked as a command
of its own, recursively; the strictest outcome wins.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, MayRun, Outcome, Reason, Verdict
from clawgate.records import replace
from clawgate.shell import parse
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.argv import option_values
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.privquery import privileged_query
from clawgate.validators.programs import SHELLS
from clawgate.validators.wrapargv import (
    SUBCOMMAND_PROGRAMS,
    subcommand,
    unwrapped,
    valued_reading,
)
from clawgate.validators.wraptable import PLAIN, PRIVILEGED, SUBCOMMAND

# Wrappers whose command is a package spec (``name@version``), fetched and then run.
_PACKAGE_RUNNERS = frozenset({("npx", ""), ("npm", "exec"), ("pnpm", "dlx"), ("pnpm", "exec"),
                              ("yarn", "dlx"), ("bunx", ""), ("bun", "x"), ("uvx", ""),
                              ("uv", "tool run"), ("pipx", "run")})
# Flags with which a wrapper only reports and runs nothing.
_QUERIES = {"screen": frozenset({"-ls", "-list", "-wipe", "-v", "--version"}),
            "script": frozenset({"-V", "--version", "-h", "--help"}),
            "wsl": frozenset({"-l", "--list", "--status", "--version", "-v", "--help"})}
_SHELL_MODE_FLAGS = frozenset({"-i", "-p", "-l", "--login", "-s", "-pi", "-ip", "-li", "-il"})


def is_wrapper(cmd: SimpleCommand) -> bool:
    """Whether ``cmd`` is a wrapper of the tables, whose command CG-WRAP-001/002 check."""
    program = cmd.program or ""
    if program in PLAIN or program in PRIVILEGED:
        return True
    return program in SUBCOMMAND_PROGRAMS and (program, subcommand(cmd)[0]) in SUBCOMMAND


def runs_command(cmd: SimpleCommand) -> bool:
    """True when ``cmd`` is a subcommand wrapper given a command to run (``devenv shell --
    cargo test``), which CG-WRAP-001 checks in its place."""
    program = cmd.program
    if program not in SUBCOMMAND_PROGRAMS:
        return False
    sub, start = subcommand(cmd)
    spec = SUBCOMMAND.get((program or "", sub))
    if spec is None:
        return False
    target, shell = unwrapped(cmd, spec, start)
    return not shell and target is not None


def wrapped_program(cmd: SimpleCommand) -> Word | None:
    """The word naming the program a subcommand wrapper runs, when its argv is the wrapper's
    own tail (``nix develop .#ci -c sh -c CODE`` runs ``sh``), else None."""
    program = cmd.program
    if program not in SUBCOMMAND_PROGRAMS:
        return None
    sub, start = subcommand(cmd)
    spec = SUBCOMMAND.get((program or "", sub))
    if spec is None:
        return None
    target, shell = unwrapped(cmd, spec, start)
    if shell or not isinstance(target, SimpleCommand) or not target.words:
        return None
    first = target.words[0]
    return first if any(w is first for w in cmd.words) else None


def _without_version(target: SimpleCommand) -> SimpleCommand:
    """A package runner's command named by a package spec runs that package's program:
    ``npx rimraf@5 dist`` runs ``rimraf``, ``npx @scope/tool@latest`` runs ``tool``."""
    first = target.words[0] if target.words else None
    value = first.value if first is not None else None
    if first is None or value is None or "@" not in value[1:]:
        return target
    name = value[: value.rindex("@")] if value.rindex("@") > 0 else value
    return replace(target, words=(replace(first, text=name, value=name), *target.words[1:]))


def starts_shell(target: SimpleCommand | str | None) -> bool:
    """True when the wrapped command is an interactive or privileged shell (not ``sh -c``)."""
    if isinstance(target, str):
        return any(starts_shell(c) for c in parse(target).commands)
    if target is None or target.program not in SHELLS:
        return False
    rest = [w.shown for w in target.words[1:]]
    return all(a.startswith("-") and "c" not in a for a in rest) or bool(
        _SHELL_MODE_FLAGS.intersection(rest))


def _verdict(rule_id: str, target: SimpleCommand | str | None, outcome: Outcome,
             message: str) -> Verdict:
    reasons = (Reason(rule_id, message),) if outcome is not Outcome.PASSTHROUGH else ()
    nested: tuple[SimpleCommand | str, ...] = () if target is None or target == "" else (target,)
    return Verdict(outcome, reasons, nested=nested)


@register
class ArgvWrapper(Validator):
    """A wrapper (``nice``, ``timeout``, ``env``, ``stdbuf``, ``xvfb-run``, ``uv run`` ...) runs
    the rest of its argv: that command is checked in its place, after the wrapper's own options.

    Bad: ``timeout -s KILL 5 rm -rf ~`` (checked as ``rm -rf ~``). Harmless: ``nice -n 10 make``.
    A wrapper left with nothing to run that would start a shell (``script``, ``screen``) asks.
    """

    id = "CG-WRAP-001"
    programs = frozenset(PLAIN) | SUBCOMMAND_PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        spec = PLAIN.get(program) if program else None
        start = 1
        sub = ""
        if spec is None and program in SUBCOMMAND_PROGRAMS:
            sub, start = subcommand(cmd)
            spec = SUBCOMMAND.get((program, sub)) or SUBCOMMAND.get((program, ""))
            if (program, sub) not in SUBCOMMAND:
                sub, start = "", 1
        if spec is None:
            return NO_OPINION
        if _QUERIES.get(program or "", frozenset()).intersection(cmd.args):
            return NO_OPINION
        target, shell = unwrapped(cmd, spec, start)
        if shell:
            return Verdict.ask(self.id, f"{program} with no command starts an interactive shell",
                               hint="give the command to run")
        if isinstance(target, SimpleCommand) and (program or "", sub) in _PACKAGE_RUNNERS:
            target = _without_version(target)
        if target == "":
            return Verdict.ask(self.id, f"{program} runs code only known at run time")
        verdict = _verdict(self.id, target, Outcome.PASSTHROUGH, "")
        other = valued_reading(cmd, spec, start) if isinstance(target, SimpleCommand) else None
        return verdict if other is None else Verdict(
            verdict.outcome, verdict.reasons, nested=(*verdict.nested, MayRun(other)))


@register
class PrivilegedWrapper(Validator):
    """``sudo``, ``doas``, ``su``, ``pkexec``, ``run0``, ``chroot``, ``nsenter``, ``setpriv``,
    ``systemd-run`` ... run a command with other privileges: ASK, and DENY for a shell
    (``sudo -i``, ``su``, ``doas sh``, ``pkexec /bin/sh``); the inner command is checked too.

    A status query of the program catalog (``sudo auditctl -s``, ``doas aa-status``: the
    installed program given only the words with which it prints the system's state) is judged
    as the query it is: privileges show more of that state and change nothing.

    Bad: ``sudo -u root /bin/sh``. Harmless: ``sudo aa-status`` (``sudo apt-get update`` is
    asked all the same).
    """

    id = "CG-WRAP-002"
    programs = frozenset(PRIVILEGED)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        spec = PRIVILEGED.get(program) if program else None
        if spec is None:
            return NO_OPINION
        query = privileged_query(cmd)
        if query is not None:  # shows more of the system's state, changes nothing
            return Verdict.unwrap(query)
        words = tuple(w for w in cmd.words if w.shown != "-")
        if program == "runuser" and not any(w.shown.startswith(("-u", "--user")) for w in words):
            spec = PRIVILEGED["su"]  # runuser [-l] USER -c CMD: su's form, a user operand
        if program == "capsh":
            return self._capsh(cmd, words)
        target, shell = unwrapped(cmd if words == cmd.words else _with(cmd, words), spec, 1)
        if program == "start-stop-daemon":
            target = _daemon_command(cmd)
        if shell or starts_shell(target):
            return _verdict(self.id, target, Outcome.DENY,
                            f"{program} starts a shell with other privileges")
        if target == "":
            return Verdict.deny(self.id, f"{program} runs code only known at run time")
        what = "a command" if target is not None else "itself"
        return _verdict(self.id, target, Outcome.ASK,
                        f"{program} runs {what} with other privileges")

    def _capsh(self, cmd: SimpleCommand, words: tuple[Word, ...]) -> Verdict:
        """``capsh [opts] -- args``: the args go to /bin/bash; with none, a shell starts."""
        texts = [w.shown for w in words]
        if "--" not in texts:
            return Verdict.ask(self.id, "capsh changes capabilities")
        rest = words[texts.index("--") + 1:]
        if len(rest) > 1 and rest[0].shown.startswith("-") and "c" in rest[0].shown:
            return _verdict(self.id, rest[1].value or "", Outcome.ASK,
                            "capsh runs a command with changed capabilities")
        return Verdict.deny(self.id, "capsh -- starts a shell with changed capabilities")


def _daemon_command(cmd: SimpleCommand) -> SimpleCommand | None:
    """``start-stop-daemon -S -x PROG -- ARGS``: PROG (or ``--startas``) runs with ARGS."""
    found = option_values(cmd.words, 1, "xa", frozenset({"exec", "startas"}))
    program = next((w for _, w, v in found if w is not None and v == w.value), None)
    if program is None:
        return None
    texts = [w.shown for w in cmd.words]
    rest = cmd.words[texts.index("--") + 1:] if "--" in texts else ()
    words = (program, *rest)
    return replace(cmd, words=words, assignments=(), text=" ".join(w.text for w in words),
                   depth=cmd.depth + 1)


def _with(cmd: SimpleCommand, words: tuple[Word, ...]) -> SimpleCommand:
    return replace(cmd, words=words)


@register
class AliasBody(Validator):
    """``alias name='body'``: in a shell that expands aliases (interactive, or a persistent
    agent shell with ``expand_aliases``) the next ``name`` runs the body, checked by nothing.
    Each body is checked here as the command it is; one only known at run time asks.

    Bad: ``alias ls='rm -rf ~'``. Harmless: ``alias ll='ls -la'`` or ``alias`` (a listing).
    """

    id = "CG-WRAP-012"
    programs = frozenset({"alias"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program != "alias":
            return NO_OPINION
        bodies: list[str] = []
        for word in cmd.words[1:]:
            if word.value is None:
                return Verdict.ask(self.id, f"the alias {word.text!r} is only known at run "
                                   "time", hint="write the alias body literally")
            name, equals, body = word.value.partition("=")
            if equals and not name.startswith("-"):
                bodies += [body, *_heredoc_lines(body)]
        return Verdict.unwrap(*bodies) if bodies else NO_OPINION


def _heredoc_lines(body: str) -> list[str]:
    """An alias's text is read where the alias is used, but a here-document it starts takes
    its body from the input after that line, not from the alias text: every further line of
    the text is a command (``alias x='cat <<EOF⏎rm -rf ~⏎EOF'`` runs ``rm -rf ~``)."""
    if "\n" not in body or "<<" not in body.replace("<<<", ""):
        return []
    return [line for line in body.split("\n")[1:] if line.strip()]
