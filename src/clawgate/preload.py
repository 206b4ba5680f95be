"""What a long-lived process loads before its first decision.

A one-shot ``policy check`` imports only the modules its line reaches and compiles only the
patterns it uses (``lazyre``): the start-up it pays is what it needs. A process that decides
many calls (the resident decider, the service, the fuzz harness timing each decision) loads
all of it once instead, so that no call pays for another's first use: every module of the
check path is imported and every pattern compiled.
"""

from __future__ import annotations

import importlib
import pkgutil

from clawgate import lazyre

# The packages a decision reaches into, lazily: the shell readers, the validators, the
# program catalog and the shadow run.
CHECK_PATH = ("clawgate.shell", "clawgate.validators", "clawgate.programs", "clawgate.policy")
MODULES = ("clawgate.engine", "clawgate.shadowing", "clawgate.shadowtriggers", "clawgate.bounds")


def preload() -> int:
    """Import every module of the check path and compile every pattern; how many patterns."""
    for name in MODULES:
        importlib.import_module(name)
    for name in CHECK_PATH:
        package = importlib.import_module(name)
        for found in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
            importlib.import_module(found.name)
    return lazyre.compile_all()


def forget_lines() -> None:
    """Drop what the readers remember of lines seen (bashlex's readings, inline code's
    effects, the last few readings): the next check of a line costs what its first sight
    costs. For timing."""
    from clawgate.shell import forget as forget_readings
    from clawgate.shell.differential import forget
    from clawgate.validators.inlinecode import code_effects

    forget()
    forget_readings()
    code_effects.cache_clear()
