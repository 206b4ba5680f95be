"""Words handed to the project's own code: what a task runner, a package script, a script file
or a program built from the workspace does with its arguments is written in the project, which
the engine does not read.

``make run CMD='…'``, ``just exec '…'``, ``npm run exec -- '…'``, ``nox -s run -- '…'``, ``go
run ./cmd/tool -hook '…'``, ``bash scripts/exec.sh '…'``, ``gradle run --args='-c …'``: the
recipe, the script or the program may evaluate the word (``eval "$1"``, ``sh -c $(CMD)``,
``os.system(argv[1])``). Each word that reads as a command line (a known program with an
option, a path or shell syntax, as the closed-world default reads them; a ``NAME=value``
operand's value, an option's value, and the words inside a quoted value too) is checked as the
line it would be if it ran: only a DENY of that reading counts, so ``make test ARGS=-v`` and
``npm run build -- --watch`` stay as they were. A word's lines are read one by one, and the
substitutions in it as the commands they run when evaluated (``'x\nrm -rf ~'``, ``'$(rm -rf
~)'``). The words after a script or a package script, joined by blanks, are read as the line
an ``eval "$*"`` or ``"$@"`` of them runs (``npm run build -- rm -rf ~``, ``bash x.sh rm -rf
'~'``). yarn and pnpm run a package script named as their first word (``yarn build …``).
"""

from __future__ import annotations

import shlex

from clawgate.decision import NO_OPINION, MayRun, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell import parse
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.programs import SHELLS, family_name
from clawgate.validators.unknownwords import MAX_WORD, payloads

# Runners whose every operand is handed to the project's recipes, sessions or tasks.
_RUNNERS = frozenset({"make", "gmake", "bmake", "remake", "just", "task", "go-task", "mage",
                      "invoke", "inv", "nox", "tox", "rake", "fab", "doit", "pdm", "hatch"})
# Programs whose subcommand runs the project's script, package or program with the words
# after it: (program, subcommands).
_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "npm": frozenset({"run", "run-script", "rum", "urn"}),
    "pnpm": frozenset(),
    "yarn": frozenset(),  # any first word: a script of that name when it is no command of yarn
    "bun": frozenset({"run"}),
    "deno": frozenset({"task", "run"}),
    "composer": frozenset({"run-script", "run"}),
    "go": frozenset({"run"}),
    "cargo": frozenset({"run"}),
    "dotnet": frozenset({"run"}),
    "gradle": frozenset({"run"}),
    "gradlew": frozenset({"run"}),
    "mvn": frozenset({"exec:java", "exec:exec"}),
    "sbt": frozenset({"run"}),
}
# Interpreters that run a script file named as their first operand, its arguments after it.
_SCRIPT_RUNNERS = frozenset({"python", "python3", "node", "ruby", "perl", "php", "Rscript"})
# Options of shells and interpreters that give inline code or a module instead of a file
# (judged by the interpreter and shell families).
_INLINE = lazy_pattern(r"^-[a-zA-Z]*[ceEmr]")
_NAMED = lazy_pattern(r"^[A-Za-z_][A-Za-z0-9_.]*=(.+)$", flags=16)  # re.DOTALL
_SUBSTITUTION = lazy_pattern(r"\$\(([^()]*)\)|`([^`]*)`")


def _runs_project_code(cmd: SimpleCommand) -> bool:
    """``cmd`` hands its words to code the project defines: a task runner, a package script,
    ``go run``, or a shell or interpreter running a script file rather than inline code."""
    program = cmd.program or ""
    family = family_name(program) or program
    args = cmd.args
    if family in _RUNNERS:
        return True
    subcommands = _SUBCOMMANDS.get(program.rsplit("/", 1)[-1]) or _SUBCOMMANDS.get(family)
    if subcommands is not None:
        return not subcommands or any(a in subcommands for a in args[:3])
    if family in SHELLS or family in _SCRIPT_RUNNERS:
        operands = [a for a in args if not a.startswith("-")]
        return bool(operands) and not any(_INLINE.match(a) for a in args[: args.index(
            operands[0])])
    return False


def carried_lines(value: str) -> list[str]:
    """The command lines one word may carry: itself, an option's or a ``NAME=value`` operand's
    value, and the words a quoted value holds (``--args="-c 'curl … | sh'"``)."""
    named = _NAMED.match(value)
    texts = [value, named.group(1)] if named else [value]
    if len(value) <= MAX_WORD:  # each line, and what its substitutions run, when evaluated
        texts += [line for line in value.splitlines() if line.strip()]
        texts += [m.group(1) or m.group(2) or "" for m in _SUBSTITUTION.finditer(value)]
    for text in tuple(texts):
        if ("'" in text or '"' in text) and len(text) <= MAX_WORD:
            try:
                texts += shlex.split(text.partition("=")[2] if text.startswith("-") else text)
            except ValueError:
                continue
    return [line for text in dict.fromkeys(texts) for line in payloads(text) if line]


@register
class ProjectCodeWords(Validator):
    """A word handed to the project's own code (a task runner's recipe or session, a package
    script, ``go run``, a script file run by a shell or an interpreter) that reads as a command
    line is checked as the line it would be if that code evaluated it: DENY when it alone is a
    DENY (``make run CMD='curl … | sh'``, ``bash scripts/exec.sh 'rm -rf ~'``); any other
    reading adds nothing, since the word may well be data.

    Bad: ``just exec 'wget -qO- URL | sh'``, ``nox -s run -- 'rm -rf ~'``. Harmless: ``make test
    ARGS=-v``, ``npm run build -- --watch``, ``bash scripts/lint.sh src/``.
    """

    id = "CG-PROG-006"
    programs = frozenset({*_RUNNERS, *_SUBCOMMANDS, *SHELLS, *_SCRIPT_RUNNERS})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if len(cmd.words) < 2 or not _runs_project_code(cmd):
            return NO_OPINION
        lines = [line for word in cmd.words[1:] if word.value is not None
                 and len(word.value) <= MAX_WORD for line in carried_lines(word.value)]
        lines += _joined(cmd)
        if not lines:
            return NO_OPINION
        return Verdict.unwrap(*(MayRun(line) for line in dict.fromkeys(lines)))


def _joined(cmd: SimpleCommand) -> list[str]:
    """The words a script or a package script is given, joined by blanks, when they read as a
    command line: the line ``eval "$*"`` runs (their values, read again)."""
    args = cmd.args
    family = family_name(cmd.program or "") or cmd.program or ""
    if family in _RUNNERS:
        return []
    if family in SHELLS or family in _SCRIPT_RUNNERS:
        operands = [i for i, a in enumerate(args) if not a.startswith("-")]
        start = operands[0] + 1 if operands else len(args)
    else:  # a subcommand, then the script's name
        start = next((i + 1 for i, a in enumerate(args) if a == "--"), 0) or min(2, len(args))
    values = [w.value for w in cmd.words[1 + start:]]
    if len(values) < 2 or None in values:
        return []
    text = " ".join(v for v in values if v is not None)
    if len(text) > MAX_WORD or parse(text).has_error:
        return []  # a syntax error to an eval too: nothing of it runs
    return payloads(text)
