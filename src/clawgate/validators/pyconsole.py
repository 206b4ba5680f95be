"""Command-line programs run as Python modules: ``python -m twine upload dist/*`` is ``twine
upload dist/*``, ``python -m awscli s3 rm …`` is ``aws s3 rm …``. The module's ``__main__``
is the program's entry point, so its words are the program's words, judged as that program's
(a publish, a push, a deploy, a delete of a bucket asks or is denied as it is by its own
name)."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
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
    "tox": "tox", "nox": "nox", "jupyter": "jupyter", "sphinx": "sphinx-build",
}


@register
class PythonModulePrograms(Validator):
    """``python -m MODULE ARGS`` where the module is a command-line program's entry point runs
    that program with ``ARGS``: the command is checked again as ``PROGRAM ARGS`` (the words
    as written, expansions and all).

    Bad: ``python3 -m twine upload dist/*`` (``twine upload``: ASK), ``python -m awscli s3 rm
    --recursive s3://b`` (DENY), ``python3 -m zipfile -e x.zip ~`` (``unzip -o x.zip -d ~``:
    DENY). Harmless: ``python -m twine check dist/*``, ``python -m
    pytest -q`` (not a program of this kind: as written).
    """

    id = "CG-INTERP-013"
    programs = _PYTHONS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if family_name(cmd.program) not in _PYTHONS:
            return NO_OPINION
        found = python_module(tuple(w.value for w in cmd.words[1:]))
        if found is not None and found[0] in _ARCHIVE_MODULES:
            return _extraction(cmd, found[0], found[1])
        if found is None or found[0] not in MODULE_PROGRAMS:
            return NO_OPINION
        module, start = found
        name = MODULE_PROGRAMS[module]
        words = (Word(name, name), *cmd.words[1 + start:])
        return Verdict.unwrap(replace(cmd, words=words, text=" ".join(w.text for w in words),
                                      depth=cmd.depth + 1))


# The standard library's archive modules, whose command line extracts an archive into a
# directory (``python -m tarfile -e A.tar DIR``, ``python -m zipfile -e A.zip DIR``): judged as
# the extraction it is, ``tar -xf A.tar -C DIR``, ``unzip -o A.zip -d DIR``.
_ARCHIVE_MODULES = frozenset({"tarfile", "zipfile"})


def _extraction(cmd: SimpleCommand, module: str, start: int) -> Verdict:
    words = cmd.words[1 + start:]
    flags = [i for i, w in enumerate(words) if w.value in ("-e", "--extract")]
    if not flags:
        return NO_OPINION
    rest = words[flags[0] + 1:]
    if not rest:
        return NO_OPINION
    source, target = rest[0], (rest[1] if len(rest) > 1 else Word(".", "."))
    if module == "tarfile":
        head = (Word("tar", "tar"), Word("-xf", "-xf"), source, Word("-C", "-C"), target)
    else:
        head = (Word("unzip", "unzip"), Word("-o", "-o"), source, Word("-d", "-d"), target)
    return Verdict.unwrap(replace(cmd, words=head, text=" ".join(w.text for w in head),
                                  depth=cmd.depth + 1))
