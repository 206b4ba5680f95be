"""The tasks a build tool's operand names, and the catalog tier they carry.

Build tools whose operands are tasks name a task with its scope and run several in one
word: gradle's ``:app:publish`` is the task ``publish`` of the project ``app``; sbt's
``docs/publish``, ``Compile/publish`` and ``rpm:packageBin`` scope a task by project and
configuration, ``+publish`` runs it for every Scala version, and one quoted argument holds a
sequence of commands (``"++2.13.x; publishSigned"``); mill's ``foo.bar.publishLocal`` is the
task ``publishLocal`` of the module ``foo.bar``. A task is judged by its own name,
whatever scope or sequence holds it, and by the whole word too (maven's ``deploy:deploy-file``
is a plugin goal named with its prefix).

Task patterns in the catalog: a name (exact, and it wins over a pattern for that name:
``publishToMavenLocal`` is local although ``publish*`` is not) or a pattern with ``*``
anywhere (``publish*``; ``*Publish*`` for a plugin's camel-cased task that publishes,
``docusaurusPublishGhpages``).
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from clawgate.lazyre import lazy_pattern

_SEQUENCE = lazy_pattern(r"[;\s]+")
_TIER_ORDER = {"low": 0, "medium": 1, "network": 2, "high": 3}


def names(value: str) -> list[str]:
    """The task names an operand may stand for: every command of an sbt sequence, each bare
    of its cross-build ``+`` and each also as its last scope segment (after ``/`` or ``:``)
    and that segment's last member (after ``.``)."""
    found: list[str] = []
    for part in _SEQUENCE.split(value):
        task = part.lstrip("+")
        if not task:
            continue
        found.append(task)
        last = task.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        if last and last != task:
            found.append(last)
        member = last.rsplit(".", 1)[-1]  # mill's module path: foo.bar.publishLocal
        if member and member != last:
            found.append(member)
    return found


def _tier_of(name: str, tasks: dict[str, str]) -> str | None:
    exact = tasks.get(name)
    if exact is not None:
        return exact
    matched = [tier for pattern, tier in tasks.items()
               if "*" in pattern and fnmatchcase(name, pattern)]
    return max(matched, key=_TIER_ORDER.__getitem__, default=None)


def tiers(value: str, tasks: dict[str, str]) -> list[str]:
    """The catalog tiers of the tasks ``value`` names (none when it names no listed task)."""
    found = (_tier_of(name, tasks) for name in names(value))
    return [tier for tier in found if tier is not None]
