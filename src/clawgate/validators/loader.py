"""The dynamic loader run as a program: ``/lib64/ld-linux-x86-64.so.2 --preload /tmp/x.so
/bin/ls`` is ``LD_PRELOAD=/tmp/x.so /bin/ls`` by another name."""

from __future__ import annotations

import shlex

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register

# ld.so, ld-linux.so.2, ld-linux-x86-64.so.2, ld-linux-aarch64.so.1, ld-musl-x86_64.so.1
LOADER = lazy_pattern(r"^ld(?:-linux(?:-[\w-]+)?|-musl-\w+)?\.so(?:\.\d+)*$")
# The loader's options and the variables that do the same for a program run normally.
_AS_VARIABLE = {"--preload": "LD_PRELOAD", "--audit": "LD_AUDIT",
                "--library-path": "LD_LIBRARY_PATH"}
_VALUED = frozenset({*_AS_VARIABLE, "--argv0"})


@register
class LoaderOptions(Validator):
    """The dynamic loader run directly with ``--preload``, ``--audit`` or ``--library-path``:
    the options load libraries into the program as ``LD_PRELOAD``, ``LD_AUDIT`` and
    ``LD_LIBRARY_PATH`` do, and are judged as those variables on the program's command.

    Bad: ``/lib64/ld-linux-x86-64.so.2 --preload /tmp/x.so /bin/ls``. Harmless:
    ``/lib64/ld-linux-x86-64.so.2 --list /bin/ls``.
    """

    id = "CG-ENV-006"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if program is not None and LOADER.match(program) else 0

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program is None or not LOADER.match(cmd.program):
            return NO_OPINION
        words = cmd.words[1:]
        settings: list[str] = []
        i = 0
        while i < len(words) and words[i].shown.startswith("--"):
            name, eq, value = words[i].shown.partition("=")
            if name in _VALUED and not eq:
                i += 1
                value = words[i].text if i < len(words) else ""
            elif eq:
                value = shlex.quote(value)
            if name in _AS_VARIABLE:
                settings.append(f"{_AS_VARIABLE[name]}={value}")
            i += 1
        if not settings:
            return NO_OPINION
        rest = " ".join(w.text for w in words[i:]) or "true"
        return Verdict.unwrap(f"{' '.join(settings)} {rest}")
