"""A status query run with privileges: ``sudo auditctl -s``, ``doas aa-status``.

Such a program, given only the words with which the program catalog says it prints the
system's state (its ``queries``), changes nothing as any user; with privileges it shows more
of that state, nothing else. ``sudo`` of anything else stays a question, and a ``sudo`` that
moves the root first (``-R``/``--chroot``: another program of that name) or keeps the caller's
environment (``-E``, ``--preserve-env=PYTHONPATH``: what the program loads) is not this.
"""

from __future__ import annotations

from clawgate import programs
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.argv import command_start
from clawgate.validators.wrapargv import unwrapped
from clawgate.validators.wraptable import PRIVILEGED

ELEVATORS = frozenset({"sudo", "doas"})  # run a command as root, the command as given
# sudo's -s/--shell, -i/--login (the command run by a shell) and -R/--chroot, also clustered;
# and -E/--preserve-env[=LIST], which carries the caller's environment (variables the line may
# have exported: --preserve-env=PYTHONPATH keeps even one sudo would remove) to the program
_SHELL_OR_ROOT = lazy_pattern(r"^-[A-Za-z]*[siRE]|^--(?:shell|login|chroot|preserve-env)\b")


def privileged_query(cmd: SimpleCommand) -> SimpleCommand | None:
    """The status query ``cmd`` runs with privileges, or None."""
    program = cmd.program
    if program not in ELEVATORS:
        return None
    spec = PRIVILEGED[program]
    index = command_start(cmd.words, 1, spec.options)
    own = [w.shown for w in cmd.words[1:index if index is not None else len(cmd.words)]]
    if any(_SHELL_OR_ROOT.search(word) for word in own):
        return None  # through a shell (-s, -i), from another root (-R), or with the caller's
        # environment (-E): not the program as the system runs it
    target, shell = unwrapped(cmd, spec, 1)
    if shell or not isinstance(target, SimpleCommand) or target.assignments:
        return None
    return target if programs.status_query(target) else None
