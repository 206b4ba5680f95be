"""Python's own modules that run what their arguments say (``timeit``, ``pdb``, ``cProfile``,
``profile``, ``trace``), judged as the code or the program they run
(``programs/pyrunners.py`` reads their arguments)."""

from __future__ import annotations

from clawgate.decision import Verdict
from clawgate.programs.pyrunners import module_runs
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.programs import family_name

_PYTHONS = frozenset({"python", "pypy"})


@register
class PythonCodeModules(Validator):
    """``python -m timeit``, ``pdb``, ``cProfile``, ``profile`` and ``trace`` run the code or
    the program their arguments give: each is checked as that code (``python -c``) or that
    program (``python SCRIPT``); words only known at run time are ASK.

    Bad: ``python3 -m timeit -s 'import os' 'os.system("rm -rf ~")'``. Harmless:
    ``python3 -m timeit '"-".join(map(str, range(100)))'``.
    """

    id = "CG-INTERP-009"
    programs = _PYTHONS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if family_name(cmd.program) not in _PYTHONS:
            return Verdict.passthrough()
        lines = module_runs(tuple(w.value for w in cmd.words[1:]))
        if lines is None:
            return Verdict.ask(self.id, "a Python module that runs its arguments is given "
                               "words only known at run time")
        return Verdict.unwrap(*lines) if lines else Verdict.passthrough()
