"""Command-line programs run as Python modules: ``python -m twine upload dist/*`` is ``twine
upload dist/*``, ``python -m awscli s3 rm …`` is ``aws s3 rm …``. The module's ``__main__``
is the program's entry point, so its words are the program's words, judged as that program's
(a publish, a push, a deploy, a delete of a bucket asks or is denied as it is by its own
name).

A module not in the table whose name is one word (``python -m ansible …``, ``python -m
celery …``) is most often the program of that name too, and may be another (the standard
library's ``code`` is a console, not the editor): its words are read as that program's, and
only a DENY of the reading counts. The standard library's archivers extract and create as
``tar`` and ``unzip``/``zip`` do (``python -m tarfile -e A DIR`` is ``tar -xf A -C DIR``).
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, MayRun, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.programs.pyargv import python_module
from clawgate.records import replace
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.programs import family_name

_PYTHONS = frozenset({"python", "pypy"})
# module -> the program it is (its console entry point), for tools whose verbs reach beyond
# the checkout: publishing, pushing, deploying, cloud and environment changes
MODULE_PROGRAMS: dict[str, str] = {
    "twine": "twine", "poetry": "poetry", "hatch": "hatch", "flit": "flit", "pdm": "pdm",
    "pipenv": "pipenv", "pipx": "pipx", "uv": "uv", "conda": "conda", "mkdocs": "mkdocs",
    "awscli": "aws", "azure.cli": "az", "dvc": "dvc", "pre_commit": "pre-commit",
    "tox": "tox", "nox": "nox", "jupyter": "jupyter", "sphinx": "sphinx-build", "pip": "pip",
}
# The standard library's archivers: (their action option, its arity) -> the program's words.
_ARCHIVERS: dict[str, dict[str, tuple[str, ...]]] = {
    "tarfile": {"-e": ("tar", "-xf"), "--extract": ("tar", "-xf"), "-c": ("tar", "-cf"),
                "--create": ("tar", "-cf")},
    "zipfile": {"-e": ("unzip",), "--extract": ("unzip",), "-c": ("zip", "-r"),
                "--create": ("zip", "-r")},
}
_ONE_WORD = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*")


@register
class PythonModulePrograms(Validator):
    """``python -m MODULE ARGS`` where the module is a command-line program's entry point runs
    that program with ``ARGS``: the command is checked again as ``PROGRAM ARGS`` (the words
    as written, expansions and all).

    A module of one word not in the table is read as the program of its name, only a DENY
    of that reading counting; the standard library's ``tarfile`` and ``zipfile`` as ``tar``
    and ``unzip``/``zip``.

    Bad: ``python3 -m twine upload dist/*`` (``twine upload``: ASK), ``python -m awscli s3 rm
    --recursive s3://b`` (DENY), ``python -m pip install --index-url http://h/simple x``,
    ``python -m tarfile -e x.tar ~``. Harmless: ``python -m twine check dist/*``, ``python -m
    pytest -q`` (as ``pytest -q``), ``python -m tarfile -l x.tar``.
    """

    id = "CG-INTERP-013"
    programs = _PYTHONS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if family_name(cmd.program) not in _PYTHONS:
            return NO_OPINION
        found = python_module(tuple(w.value for w in cmd.words[1:]))
        if found is None:
            return NO_OPINION
        module, start = found
        rest = cmd.words[1 + start:]
        if module in _ARCHIVERS:
            words = _archived(_ARCHIVERS[module], rest)
            return NO_OPINION if words is None else Verdict.unwrap(_as(cmd, words))
        name = MODULE_PROGRAMS.get(module)
        if name is not None:
            return Verdict.unwrap(_as(cmd, (Word(name, name), *rest)))
        if _ONE_WORD.fullmatch(module) is None:
            return NO_OPINION
        name = module.replace("_", "-")  # only a DENY of this reading counts
        return Verdict.unwrap(MayRun(" ".join((name, *(w.text for w in rest)))))


def _as(cmd: SimpleCommand, words: tuple[Word, ...]) -> SimpleCommand:
    return replace(cmd, words=words, text=" ".join(w.text for w in words),
                   depth=cmd.depth + 1)


def _archived(actions: dict[str, tuple[str, ...]],
              args: tuple[Word, ...]) -> tuple[Word, ...] | None:
    """An archiver module's words as the program's: ``-e A [DIR]`` extracts ``A`` into ``DIR``
    (the current directory when none), ``-c OUT SRC…`` creates ``OUT``; None for listing,
    testing, or words not read."""
    if not args or args[0].value not in actions or len(args) < 2:
        return None
    program = tuple(Word(t, t) for t in actions[args[0].value])
    archive, rest = args[1], args[2:]
    if program[0].value == "tar" and program[1].value == "-xf":
        into = rest[0] if rest else Word(".", ".")
        return (*program, archive, Word("-C", "-C"), into)
    if program[0].value == "unzip":
        into = rest[0] if rest else Word(".", ".")
        return (*program, archive, Word("-d", "-d"), into)
    return (*program, archive, *rest)
