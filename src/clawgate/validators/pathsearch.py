"""A bare program name found through a ``PATH`` the line itself sets: ``PATH=.:$PATH ls`` runs
``./ls``, ``PATH=$PWD/bin:$PATH git`` runs ``bin/git``, before the system's programs."""

from __future__ import annotations

import posixpath

from clawgate.shell.model import SimpleCommand

_CWD_PREFIXES = ("$PWD/", "${PWD}/", "$(pwd)/", "`pwd`/")


def searched(cmd: SimpleCommand, env: dict[str, str], name: str, path: str) -> bool:
    """Whether ``name`` is found as the file ``path`` (relative to the line's directory) by a
    ``PATH`` the line sets (the command's own prefix, else one exported before it) that puts
    a directory holding it before the old value (``PATH=.:$PATH``, ``PATH=$PWD/bin:$PATH``)."""
    given = next((a.value.text.strip("\"'") for a in cmd.assignments if a.name == "PATH"),
                 None)
    if given is None:
        given = env.get("PATH")
    if not given:
        return False
    for entry in given.split(":"):
        for prefix in _CWD_PREFIXES:
            if entry.startswith(prefix) or entry == prefix[:-1]:
                entry = "." + entry[len(prefix) - 1:]
        if entry.startswith("$"):
            return False  # the old value: what comes after it is the system's search
        if posixpath.normpath(posixpath.join(entry or ".", name)) == path:
            return True
    return False
