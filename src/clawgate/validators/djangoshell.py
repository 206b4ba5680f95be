"""Django's ``shell`` management command: without ``-c`` it opens an interactive Python
console; with ``-c CODE`` (``--command CODE``, ``--command=CODE``) it runs CODE once in the
project's environment and exits, as ``python -c CODE`` would. The command is the same
whether ``manage.py`` runs by its path (``./manage.py``), through an interpreter
(``python manage.py``, ``python3 src/manage.py``) or as ``django-admin``."""

from __future__ import annotations

import shlex

from clawgate.shell.model import SimpleCommand

_DJANGO = frozenset({"manage.py", "django-admin", "django-admin.py"})
_PYTHONS = frozenset({"python", "python3", "py"})
_CODE = frozenset({"-c", "--command"})
# shell's own options that take a value and run nothing (the console's flavour, settings)
_VALUED = frozenset({"-i", "--interface", "--settings", "--pythonpath", "-v", "--verbosity"})
_FLAGS = frozenset({"--no-startup", "--no-color", "--force-color", "--traceback",
                    "--no-imports"})
INTERACTIVE = ""  # the console opens: no code given


def _django_args(cmd: SimpleCommand) -> list[str | None] | None:
    """The words after ``manage.py`` or ``django-admin``, if ``cmd`` runs Django's."""
    words = [w.value for w in cmd.words]
    program = cmd.program or ""
    if program in _DJANGO:
        return words[1:]
    if (program in _PYTHONS or program.startswith("python3.")) and len(words) > 1 and (
            words[1] is not None and words[1].rsplit("/", 1)[-1] == "manage.py"):
        return words[2:]
    return None


def shell_code(cmd: SimpleCommand) -> str | None:
    """What Django's ``shell`` of ``cmd`` runs: the Python code of ``-c``, ``INTERACTIVE``
    for a console; None when ``cmd`` is not Django's shell or its words are not all known
    (a value held by a variable, an option the shell does not take)."""
    args = _django_args(cmd)
    if not args or args[0] != "shell":
        return None
    code = INTERACTIVE
    rest = args[1:]
    while rest:
        word = rest.pop(0)
        if word is None:
            return None
        name, eq, value = word.partition("=")
        if name in _CODE and not code:
            if not eq and (not rest or rest[0] is None):
                return None
            code = value if eq else rest.pop(0) or ""
        elif name in _VALUED:
            if not eq and (not rest or rest[0] is None):
                return None
            if not eq:
                rest.pop(0)
        elif word not in _FLAGS:
            return None
    return code


def as_python(code: str) -> str:
    """The line Django's ``shell -c CODE`` amounts to."""
    return f"python3 -c {shlex.quote(code)}"
