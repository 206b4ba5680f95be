"""The places where a project keeps the programs its ordinary commands run: a virtualenv's
interpreter and scripts and the ``pyvenv.cfg`` that names its base interpreter, a package's
executables under ``node_modules/.bin``, yarn's release under ``.yarn/releases``, the Gradle
and Maven wrappers' jars. ``.venv/bin/pytest``, ``npm test``, ``yarn``, ``./gradlew`` run
whatever is there: a file copied, linked or edited into one of them by hand is run by the next
ordinary command.

The package managers fill these places themselves (``pip install``, ``npm ci``, ``yarn set
version``): only a write by another program is asked about. They are not protected paths:
the sandbox must leave them writable to those managers.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.paths import resolve
from clawgate.validators.writes import may_write, unknown_program, write_shapes, write_targets

PROGRAM_PLACE = lazy_pattern(r"(?:^|/)(?:\.?venv/(?:bin/[^/]+|pyvenv\.cfg)|"
                             r"node_modules/\.bin/[^/]+|\.yarn/releases/[^/]+|"
                             r"gradle/wrapper/gradle-wrapper\.jar|"
                             r"\.mvn/wrapper/maven-wrapper\.jar)$")
# Removing a program from its place runs nothing in its stead, and the mode, owner and time
# programs leave its bytes as they are.
_LEAVE_TEXT = frozenset({"rm", "rmdir", "unlink", "trash", "trash-put", "gio", "chmod", "chown",
                         "chgrp", "touch", "chattr", "setfacl"})


@register
class ProgramPlaceWrite(Validator):
    """A file written, copied, linked or edited into a place whose files the project's
    ordinary commands run (``.venv/bin/python``, ``.venv/pyvenv.cfg``,
    ``node_modules/.bin/jest``, ``.yarn/releases/yarn.cjs``): the next ``pytest``, ``npm
    test`` or ``yarn`` runs it. ASK.

    Bad: ``cp /tmp/x node_modules/.bin/jest``, ``sed -i 's#^home = .*#home = /tmp/p#'
    .venv/pyvenv.cfg``. Harmless: ``cat .venv/pyvenv.cfg``, ``npm ci``.
    """

    id = "CG-PROT-005"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if unknown_program(program) else write_shapes(program)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program in _LEAVE_TEXT or not may_write(cmd):
            return NO_OPINION
        for word in write_targets(cmd):
            path = resolve(word, ctx).path
            if path is not None and PROGRAM_PLACE.search(path):
                return Verdict.ask(self.id, f"{cmd.program} writes {path}, a program the "
                                   "project's ordinary commands run next",
                                   hint="let the package manager install it")
        return NO_OPINION
