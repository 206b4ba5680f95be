"""Commands after a ``cd`` run somewhere else: ``cd / && rm -rf *`` deletes ``/*``, and
``cd /etc && echo x > hosts`` writes ``/etc/hosts``. The per-command checks resolve paths
against the directory the line starts in; this one follows the ``cd`` and checks again."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.records import replace
from clawgate.shell.clobbers import subshell_of
from clawgate.shell.constants import unconditional
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.deletes import RecursiveDeleteOfVitalPath
from clawgate.validators.exposure import ServesTheMachine
from clawgate.validators.files import WriteOutsideWorkspace, WritePersistence
from clawgate.validators.paths import resolve
from clawgate.validators.permissions import OwnershipOfSystemPaths
from clawgate.validators.procfs import proc_directory
from clawgate.validators.revshells import ProcessEnvironment
from clawgate.validators.textprograms import SedCommands

_CHANGERS = frozenset({"cd", "pushd", "popd"})
_VARIABLE = lazy_pattern(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_RECHECKS: tuple[Validator, ...] = (RecursiveDeleteOfVitalPath(), OwnershipOfSystemPaths(),
                                    WritePersistence(), WriteOutsideWorkspace(),
                                    ProcessEnvironment(), SedCommands(), ServesTheMachine())
# Commands that read $PWD as the directory they run in (SedCommands.with_cwd): after a move to
# a place only known at run time, or once the line sets PWD itself, that value is unknown.
_READS_PWD = frozenset(SedCommands.programs)
_PWD_SETTERS = frozenset({"export", "declare", "typeset", "local", "readonly", "read",
                          "printf", "mapfile", "readarray"})


@register
class AfterChangeDirectory(LineValidator):
    """Deletes and writes that follow a ``cd`` in the same line, checked from where they run
    (a ``cd`` whose target is an unset variable goes to the home directory); a sed script
    that reads ``$PWD`` after a move to a directory only known at run time, or after the line
    set ``PWD`` (or ``HOME``, which sed scripts also read), is asked about (its script
    is only known then).

    Bad: ``cd / && rm -rf *``, ``cd /etc; echo x > hosts``. Harmless: ``cd src && make``.
    """

    id = "CG-FS-004"

    def line_shapes(self) -> int:
        return ls.MULTI

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if not any(cmd.program in _CHANGERS or _sets_pwd(cmd) or _sets_pwd(cmd, "HOME")
                   for cmd in parsed.commands):
            return NO_OPINION
        moves: list[tuple[tuple[str, ...] | None, str | None]] = []  # (confined to, where)
        pwd_set = home_set = False
        assigned: frozenset[str] = frozenset()  # names the line's own shell has surely set
        for cmd in parsed.commands:
            if cmd.assignments and not cmd.words and unconditional(parsed.source, cmd):
                assigned |= {a.name for a in cmd.assignments}
            here = next((where for inside, where in reversed(moves)
                         if inside is None or cmd.nesting[: len(inside)] == inside), ctx.cwd)
            pwd_set = pwd_set or _sets_pwd(cmd)
            home_set = home_set or _sets_pwd(cmd, "HOME")
            if cmd.program in _CHANGERS:
                moves.append((subshell_of(cmd.nesting), _target(cmd, ctx, here, assigned)))
                continue
            if cmd.program in _READS_PWD and (((here is None or pwd_set) and "PWD" in cmd.text)
                                              or (home_set and "HOME" in cmd.text)):
                return Verdict.ask(self.id, f"{cmd.program} reads $PWD or $HOME after the line "
                                   "moved to, or set, a directory only known at run time",
                                   hint="name the directory literally")
            if here is None or here == ctx.cwd:
                continue
            verdict = _recheck(cmd, replace(ctx, cwd=here))
            if verdict is not None:
                return Verdict.of(verdict.outcome, self.id, f"after cd {here}: "
                                  f"{verdict.reasons[0].message}", hint=verdict.reasons[0].hint,
                                  risk=Risk.HIGH)
        return NO_OPINION


def _sets_pwd(cmd: SimpleCommand, name: str = "PWD") -> bool:
    """``PWD=x``, ``export PWD=x``, ``read PWD``: the line gives PWD (or HOME) a value of its
    own."""
    return any(a.name == name for a in cmd.assignments) or (
        cmd.program in _PWD_SETTERS and name in cmd.text)


def _target(cmd: SimpleCommand, ctx: Context, here: str | None,
            assigned: frozenset[str] = frozenset()) -> str | None:
    """Where ``cd`` goes: its operand from ``here``, home without one, None when unknown
    (``popd`` and ``cd -`` go back to a directory this check does not follow). An operand of
    variables only known at run time is followed as if they were unset, and ``cd`` goes home
    (``cd $D``: the word vanishes); but a quoted operand of variables the line itself has set
    (``assigned``: ``TMP=$(mktemp -d); cd "$TMP"``) holds no value of the environment, and
    empty it stays an empty word, with which bash and dash stay where they are."""
    if cmd.program == "popd":
        return None
    operands = [w for w in cmd.words[1:] if not w.shown.startswith("-") or w.shown == "-"]
    if not operands:
        return ctx.home
    if here is None or operands[0].shown == "-":
        return None
    found = resolve(operands[0], replace(ctx, cwd=here))
    if found.path is None and (proc := proc_directory(operands[0].text, here)) is not None:
        return proc  # cd /proc/$PPID: some process's directory, whichever it is
    if found.path is not None or found.if_unset is None:
        return found.path
    if found.if_unset == here and not (operands[0].quoted and _VARIABLE.findall(
            operands[0].text) and set(_VARIABLE.findall(operands[0].text)) <= assigned):
        return ctx.home  # unset: `cd` alone (or the environment's value: anywhere, home too)
    return found.if_unset  # the line's own, quoted and empty: `cd ""` stays where it is


def _recheck(cmd: SimpleCommand, ctx: Context) -> Verdict | None:
    worst: Verdict | None = None
    for validator in _RECHECKS:
        verdict = validator.check(cmd, ctx)
        if verdict.outcome > Outcome.ALLOW and (worst is None or verdict.outcome > worst.outcome):
            worst = verdict
    return worst
