"""The variables that name the files and scratch directories a CI runner hands a step, set by
a command (CG-ENV-015).

``> "$GITHUB_OUTPUT"`` and ``"$RUNNER_TEMP/x"`` are writes the engine lets pass unasked
(CG-PROG-002): the runner sets these variables to its own files and directories. A command
that sets one (``export GITHUB_OUTPUT=~/.bashrc``, ``TMPDIR=~ make``) makes every later write
to it, on this line or after it, land where the value says. So setting a runner's file
(``GITHUB_OUTPUT``, ``GITHUB_ENV``, ``GITHUB_STEP_SUMMARY``, ``GITHUB_PATH``,
``GITHUB_STATE``) asks, whatever the value; setting a scratch directory (``RUNNER_TEMP``,
``TMPDIR``, ``TMP``, ``TEMP``) asks unless the value is a literal path in a temporary
directory or the workspace, or a fresh ``mktemp`` directory.

Bad: ``export GITHUB_ENV=~/.bashrc``, ``export TMPDIR=~``. Harmless: ``TMPDIR=/tmp/x go
test``, ``TEMP=$(mktemp -d)``.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.envvars import assignments
from clawgate.validators.paths import in_scratch, resolve

_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly", "env"})
_MKTEMP = lazy_pattern(r"^\$\((?:\s*(?:command\s+)?mktemp\b[^)]*)\)$|^`\s*mktemp\b[^`]*`$")
RUNNER_FILES = frozenset({"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY", "GITHUB_PATH",
                          "GITHUB_STATE"})
SCRATCH_DIRECTORIES = frozenset({"RUNNER_TEMP", "TMPDIR", "TMP", "TEMP"})


@register
class RunnerVariableSet(Validator):
    """A command sets a variable that names a file or scratch directory of the CI runner
    (see the module): later writes to it land where the value says. ASK.

    Bad: ``export GITHUB_ENV=~/.bashrc``. Harmless: ``TMPDIR=/tmp/x go test``.
    """

    id = "CG-ENV-015"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if program in _DECLARERS else sh.ASSIGN

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not cmd.assignments and cmd.program not in _DECLARERS:
            return NO_OPINION
        for name, value in assignments(cmd):
            if name in RUNNER_FILES or (name in SCRATCH_DIRECTORIES and
                                        not _scratch(value, ctx)):
                return Verdict.ask(self.id, f"{name} names a file or directory the CI runner "
                                   "hands a step; set, the writes made to it land where the "
                                   "value says", hint=f"write to a literal path, not {name}")
        return NO_OPINION


def _scratch(value: Word, ctx: Context) -> bool:
    """A literal path in a temporary directory or the workspace (or none), or a fresh
    ``mktemp`` result."""
    if _MKTEMP.match(value.text.strip('"')):
        return True
    if value.value is None or "~" in value.text:
        return False  # known at run time, or a home directory (bash expands ~ after = and :)
    if value.value == "":
        return True
    path = resolve(value, ctx).path
    return path is not None and in_scratch(path, ctx)
