"""Wrappers: programs that run another command (``sudo``, ``nice``, ``timeout``, ``uv run`` ...).

The wrapped command is handed back to the engine (``Verdict.unwrap``) and checked as a command
of its own, recursively; the strictest outcome wins.
"""

from __future__ import annotations

import shlex

from clawgate.decision import Outcome, Reason, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.records import replace
from clawgate.shell import parse
from clawgate.shell.model import Assignment, SimpleCommand, Word
from clawgate.validators.argv import (
    command_start,
    inner,
    joined_code,
    option_values,
    option_width,
)
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.programs import SHELLS
from clawgate.validators.wraptable import PLAIN, PRIVILEGED, SUBCOMMAND, Wrap

_ASSIGNMENT = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*=")
_SUBCOMMAND_PROGRAMS = frozenset(p for p, _ in SUBCOMMAND)
_GLOBAL_REACH = 12  # words before a subcommand looked through for it
# Wrappers whose command is a package spec (``name@version``), fetched and then run.
_PACKAGE_RUNNERS = frozenset({("npx", ""), ("npm", "exec"), ("pnpm", "dlx"), ("pnpm", "exec"),
                              ("yarn", "dlx"), ("bunx", ""), ("bun", "x"), ("uvx", ""),
                              ("uv", "tool run"), ("pipx", "run")})
# Flags with which a wrapper only reports and runs nothing.
_QUERIES = {"screen": frozenset({"-ls", "-list", "-wipe", "-v", "--version"}),
            "script": frozenset({"-V", "--version", "-h", "--help"}),
            "wsl": frozenset({"-l", "--list", "--status", "--version", "-v", "--help"})}
_SHELL_MODE_FLAGS = frozenset({"-i", "-p", "-l", "--login", "-s", "-pi", "-ip", "-li", "-il"})


def _subcommand(cmd: SimpleCommand) -> tuple[str, int]:
    """(the subcommand, where the wrapper's own options start): two words where the table
    has them (``uv tool run``), else one."""
    words = [w.value or "" for w in cmd.words[1:3]]
    if len(words) == 2 and (cmd.program, " ".join(words)) in SUBCOMMAND:
        return " ".join(words), 3
    if words[:1] and words[0].startswith("-"):  # nix --impure develop, devenv -O a:b c shell
        return _after_global_options(cmd)
    return (words[0] if words else ""), 2


def _after_global_options(cmd: SimpleCommand) -> tuple[str, int]:
    """(the subcommand, where its options start) past the program's own options, whose values
    are not known here: the first word that is a subcommand of the table (an option's value
    taken for one reads the words after it as the wrapped command, which are then judged)."""
    for at, word in enumerate(cmd.words[1:_GLOBAL_REACH], start=1):
        if (cmd.program, word.value or "") in SUBCOMMAND:
            return word.value or "", at + 1
    return cmd.words[1].value or "", 2


def _unwrapped(cmd: SimpleCommand, spec: Wrap, start: int) -> tuple[SimpleCommand | str | None,
                                                                    bool]:
    """(what the wrapper runs, whether it starts a shell) for argv from ``start``."""
    words = cmd.words
    if spec.tail:
        return _after_tail(cmd, spec, start)
    index = command_start(words, start, spec.options)
    own = words[:index + 1] if index is not None else words  # own options (and a value)
    if spec.unjudged and any((w.value or "").split("=", 1)[0] in spec.unjudged
                             for w in own[start:index]):
        return "", False  # watchexec --shell=PROG: PROG runs the command
    codes = option_values(own, start, spec.code, spec.code_long) if (
        spec.code or spec.code_long) else []
    for _, _, value in codes:
        return (value if value is not None else ""), False
    if spec.shell_flags and any(w.value in spec.shell_flags for w in own[start:]):
        if index is not None and index < len(words):
            return inner(cmd, index), False  # sudo -s CMD: the shell runs CMD (-c) and exits
        return None, True
    first = index
    while index is not None and index < len(words) and _ASSIGNMENT.match(words[index].shown):
        index += 1  # env A=b cmd
    if index is None or index >= len(words):
        return None, spec.bare_shell
    found = inner(cmd, index)
    moved = _moved(words[:first], start, spec)
    if spec.joined:
        later = _optional_value_taken(cmd, spec, index)
        readings = _both_readings(found) + ("" if later is None else "\n" + later)
        environment = _environment(words[:index], start, spec)
        return _with_environment(readings, None if environment is None or moved is None
                                 else moved + environment), False
    if moved != "":  # env -C DIR A=b cmd: the command and its variables, run in DIR
        text = " ".join(w.text for w in words[first:])
        return ("" if moved is None else moved + text), False
    if first is not None and index > first:  # the variables go into the command's environment
        found = replace(found, assignments=(*found.assignments,
                                            *(_assigned(w) for w in words[first:index])))
    return found, False


def _moved(own: tuple[Word, ...], start: int, spec: Wrap) -> str | None:
    """``cd -- DIR && `` for the directory the wrapper's own ``chdir`` options run the command
    in (``env -C ~ rm -rf node_modules`` deletes ``~/node_modules``), as shell text to put
    before the command; "" when it stays here, None when the directory is not known."""
    if not spec.chdir:
        return ""
    short = "".join(o[1] for o in spec.chdir if len(o) == 2)
    long = frozenset(o[2:] for o in spec.chdir if o.startswith("--"))
    found = option_values(own, 1, short, long)  # with the program's own (mise -C DIR x)
    if not found:
        return ""
    option, word, _ = found[-1]
    if word is None:
        return None
    text = word.text
    if text.startswith("-"):  # attached: --chdir=DIR, -CDIR
        text = text.partition("=")[2] if text.startswith("--") else text[
            text.index(option) + 1:]
    return f"cd -- {text} && " if text else None


def _environment(own: tuple[Word, ...], start: int, spec: Wrap) -> str | None:
    """The assignments the wrapper's own ``env`` options put in the command's environment
    (``watchexec -E LD_PRELOAD=x.so -- make``), as shell text to put before it; None when
    one is only known at run time."""
    if not spec.env:
        return ""
    short = "".join(o[1] for o in spec.env if len(o) == 2)
    long = frozenset(o[2:] for o in spec.env if o.startswith("--"))
    found: list[str] = []
    for _, word, value in option_values(own, start, short, long):
        if value is None:  # written as shell text after its name: X="$Y" as env takes it
            separate = word is not None and not word.text.startswith("-")
            if not (separate and word is not None and _ASSIGNMENT.match(word.text)):
                return None
            found.append(f"{word.text} ")
            continue
        name, equals, text = value.partition("=")
        if equals and _ASSIGNMENT.match(name + "="):
            found.append(f"{name}={shlex.quote(text)} ")
    return "".join(found)


def _with_environment(readings: str, environment: str | None) -> str:
    """Each line of ``readings`` run with ``environment`` before it ("" when it is unknown)."""
    if environment is None or readings == "":
        return ""
    return "\n".join(environment + line for line in readings.split("\n"))


def _optional_value_taken(cmd: SimpleCommand, spec: Wrap, index: int) -> str | None:
    """When the word at ``index`` follows an option whose value is optional, the program may
    have taken it as that value (``watchexec -c reset -- rm -rf ~`` runs ``rm -rf ~``): the
    command read from the next word on, both ways; None when no such option comes before."""
    before = cmd.words[index - 1].shown if index > 0 else ""
    short = not before.startswith("--") and before.startswith("-") and len(before) > 1
    if before not in spec.optional and not (short and f"-{before[-1]}" in spec.optional):
        return None
    later = command_start(cmd.words, index + 1, spec.options)
    return None if later is None else _both_readings(inner(cmd, later))


def _both_readings(found: SimpleCommand) -> str:
    """A command whose words are joined and run by a shell, read both ways, the strictest to
    win: as the joined text (``watchexec 'make test'``) and as the argv it is (``watchexec --
    sh -c 'rm -rf ~'``, should the words reach the program unjoined). Empty when a word is
    only known at run time."""
    text = joined_code(found.words)
    if text is None:
        return ""
    return text + "\n" + shlex.join(w.value or "" for w in found.words)


def is_wrapper(cmd: SimpleCommand) -> bool:
    """Whether ``cmd`` is a wrapper of the tables, whose command CG-WRAP-001/002 check."""
    program = cmd.program or ""
    if program in PLAIN or program in PRIVILEGED:
        return True
    return program in _SUBCOMMAND_PROGRAMS and (program, _subcommand(cmd)[0]) in SUBCOMMAND


def runs_command(cmd: SimpleCommand) -> bool:
    """True when ``cmd`` is a subcommand wrapper given a command to run (``devenv shell --
    cargo test``), which CG-WRAP-001 checks in its place."""
    program = cmd.program
    if program not in _SUBCOMMAND_PROGRAMS:
        return False
    sub, start = _subcommand(cmd)
    spec = SUBCOMMAND.get((program or "", sub))
    if spec is None:
        return False
    target, shell = _unwrapped(cmd, spec, start)
    return not shell and target is not None


def _after_tail(cmd: SimpleCommand, spec: Wrap, start: int) -> tuple[SimpleCommand | str | None,
                                                                      bool]:
    """(the command after the first ``tail`` option, or the code of a code option before it;
    whether a shell starts without either): ``nix develop .#ci -c make check`` runs ``make
    check``, ``mise x node -- npm test`` runs ``npm test``, ``mise x -c 'make'`` runs ``make``."""
    words = cmd.words
    starts = _tail_starts(words, start, spec)
    end = starts[0] if starts else len(words)
    if spec.code or spec.code_long:
        for _, _, value in option_values(words[:end], start, spec.code, spec.code_long):
            return (value if value is not None else ""), False
    if end < len(words) and words[end].shown in spec.tail:
        if end + 1 >= len(words):
            return None, True
        moved = _moved(words[:end], start, spec)
        if len(starts) == 1 and moved == "":
            return inner(cmd, end + 1), False
        if moved is None:
            return "", False
        return "\n".join(moved + " ".join(w.text for w in words[at + 1:]) for at in starts
                         if at + 1 < len(words)), False
    return None, spec.bare_shell


def _tail_starts(words: tuple[Word, ...], start: int, spec: Wrap) -> list[int]:
    """Where the wrapper's own options may end at a ``tail`` option (or ``--``): the first one
    reached with each option's values skipped (``nix develop --arg a -c true -c make``: ``-c``
    is a value of ``--arg``), and the next as well each time the one before it follows an
    option not known to take no value, which may have taken it as its value."""
    starts: list[int] = []
    i = start
    while i < len(words):
        text = words[i].shown
        if text in spec.tail or text == "--":
            starts.append(i)
            before = words[i - 1].shown if i > start else ""
            if not (before.startswith("-") and len(before) > 1 and before != "--"
                    and before not in spec.flags and text != "--"):
                break
            i += 1
        elif len(text) > 1 and text[0] == "-":
            i += option_width(text, words, i, spec.options)
        else:
            i += 1
    return starts


def _assigned(word: Word) -> Assignment:
    """``NAME=value`` given to a wrapper (``env A=b cmd``) as the assignment it makes."""
    name, _, text = word.text.partition("=")
    value = word.value.partition("=")[2] if word.value is not None else None
    return Assignment(name, Word(text, value, word.quoted, word.expansions))


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
    programs = frozenset(PLAIN) | _SUBCOMMAND_PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        spec = PLAIN.get(program) if program else None
        start = 1
        sub = ""
        if spec is None and program in _SUBCOMMAND_PROGRAMS:
            sub, start = _subcommand(cmd)
            spec = SUBCOMMAND.get((program, sub)) or SUBCOMMAND.get((program, ""))
            if (program, sub) not in SUBCOMMAND:
                sub, start = "", 1
        if spec is None:
            return Verdict.passthrough()
        if _QUERIES.get(program or "", frozenset()).intersection(cmd.args):
            return Verdict.passthrough()
        target, shell = _unwrapped(cmd, spec, start)
        if shell:
            return Verdict.ask(self.id, f"{program} with no command starts an interactive shell",
                               hint="give the command to run")
        if isinstance(target, SimpleCommand) and (program or "", sub) in _PACKAGE_RUNNERS:
            target = _without_version(target)
        if target == "":
            return Verdict.ask(self.id, f"{program} runs code only known at run time")
        return _verdict(self.id, target, Outcome.PASSTHROUGH, "")


@register
class PrivilegedWrapper(Validator):
    """``sudo``, ``doas``, ``su``, ``pkexec``, ``run0``, ``chroot``, ``nsenter``, ``setpriv``,
    ``systemd-run`` ... run a command with other privileges: always ASK, and DENY for a shell
    (``sudo -i``, ``su``, ``doas sh``, ``pkexec /bin/sh``); the inner command is checked too.

    Bad: ``sudo -u root /bin/sh``. Harmless: none; even ``sudo apt-get update`` is asked.
    """

    id = "CG-WRAP-002"
    programs = frozenset(PRIVILEGED)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        spec = PRIVILEGED.get(program) if program else None
        if spec is None:
            return Verdict.passthrough()
        words = tuple(w for w in cmd.words if w.shown != "-")
        if program == "runuser" and not any(w.shown.startswith(("-u", "--user")) for w in words):
            spec = PRIVILEGED["su"]  # runuser [-l] USER -c CMD: su's form, a user operand
        if program == "capsh":
            return self._capsh(cmd, words)
        target, shell = _unwrapped(cmd if words == cmd.words else _with(cmd, words), spec, 1)
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
            return Verdict.passthrough()
        bodies: list[str] = []
        for word in cmd.words[1:]:
            if word.value is None:
                return Verdict.ask(self.id, f"the alias {word.text!r} is only known at run "
                                   "time", hint="write the alias body literally")
            name, equals, body = word.value.partition("=")
            if equals and not name.startswith("-"):
                bodies += [body, *_heredoc_lines(body)]
        return Verdict.unwrap(*bodies) if bodies else Verdict.passthrough()


def _heredoc_lines(body: str) -> list[str]:
    """An alias's text is read where the alias is used, but a here-document it starts takes
    its body from the input after that line, not from the alias text: every further line of
    the text is a command (``alias x='cat <<EOF⏎rm -rf ~⏎EOF'`` runs ``rm -rf ~``)."""
    if "\n" not in body or "<<" not in body.replace("<<<", ""):
        return []
    return [line for line in body.split("\n")[1:] if line.strip()]
