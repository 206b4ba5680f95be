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


# Toolchain pins that may name a directory instead of a version: rustup's ``path = "DIR"``
# (a toolchain taken from there), mise's and asdf's ``path:DIR`` versions.
_PIN_FILE = lazy_pattern(r"(?:^|/)(?:rust-toolchain(?:\.toml)?|\.?mise(?:\.local)?\.toml|"
                         r"\.mise/config\.toml|\.config/mise/config\.toml|\.tool-versions)$")
_PIN_PATH = lazy_pattern(r"(?m)^\s*path\s*=|[\"'\s]path:")


@register
class ToolchainPinPath(Validator):
    """A toolchain pin written to take its programs from a directory (``path = "/tmp/r"`` in
    ``rust-toolchain.toml``, ``node = "path:/tmp/n"`` in ``mise.toml``): every later ``cargo``
    or ``node`` in the project runs what that directory holds. ASK; a version or channel
    pinned is left alone.

    Bad: ``printf '[toolchain]\\npath = "/tmp/r"\\n' > rust-toolchain.toml``. Harmless:
    ``printf '[toolchain]\\nchannel = "1.79.0"\\n' > rust-toolchain.toml``.
    """

    id = "CG-PROT-006"
    programs = frozenset({"echo", "printf", "tee", "cat"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        from clawgate.validators.written import written

        if cmd.program not in self.programs:
            return NO_OPINION
        for path, text in written(cmd):
            if _PIN_FILE.search(path) and (text is None or _PIN_PATH.search(text)):
                return Verdict.ask(self.id, f"{cmd.program} pins {path} to programs in a "
                                   "directory, which the project's tools then run",
                                   hint="pin a version or channel")
        return NO_OPINION
