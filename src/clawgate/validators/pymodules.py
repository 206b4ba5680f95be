"""Python's own modules that run what their arguments say (``timeit``, ``pdb``, ``cProfile``,
``profile``, ``trace``, ``IPython``; ``ipython`` by its own name too), judged as the code or
the program they run (``programs/pyrunners.py`` reads their arguments)."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.programs.pyrunners import ipython_runs, module_runs
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.programs import family_name

_PYTHONS = frozenset({"python", "pypy"})
_IPYTHONS = frozenset({"ipython", "ipython3"})


@register
class PythonCodeModules(Validator):
    """``python -m timeit``, ``pdb``, ``cProfile``, ``profile``, ``trace`` and ``IPython`` (and
    ``ipython``) run the code or the program their arguments give: each is checked as that
    code (``python -c``, IPython's ``!`` lines as shell commands) or that program (``python
    SCRIPT``); words only known at run time are ASK.

    Bad: ``python3 -m timeit -s 'import os' 'os.system("rm -rf ~")'``. Harmless:
    ``python3 -m timeit '"-".join(map(str, range(100)))'``.
    """

    id = "CG-INTERP-009"
    programs = _PYTHONS | _IPYTHONS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = family_name(cmd.program)
        words = tuple(w.value for w in cmd.words[1:])
        if cmd.program in _IPYTHONS or program in _IPYTHONS:
            lines = ipython_runs(words)
        elif program in _PYTHONS:
            lines = module_runs(words)
        else:
            return NO_OPINION
        if lines is None:
            return Verdict.ask(self.id, "a Python module that runs its arguments is given "
                               "words only known at run time")
        return Verdict.unwrap(*lines) if lines else NO_OPINION
