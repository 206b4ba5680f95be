"""Files a line makes under another name: ``cp``, ``mv`` and ``ln`` of a file, and the names a
``cd`` gives them.

A file the line wrote keeps its text under the name it is copied, moved or linked to
(``echo … > words.txt; ln -s words.txt run.sh; sh run.sh`` runs what ``words.txt`` holds). A
symbolic link to an absolute or home path outside the system's own directories (``ln -s
/tmp/evil node_modules/x``) gives a name in the project to a file from elsewhere, whose text
the line cannot know.
"""

from __future__ import annotations

import fnmatch
import posixpath

from clawgate.shell import model as m
from clawgate.shell.model import SimpleCommand, Word

_COPIERS = frozenset({"cp", "mv", "ln"})
# options of these programs that take a value: the operands cannot be told apart simply
_VALUED = frozenset({"-t", "--target-directory", "-S", "--suffix", "--backup"})
# where the system's own programs, libraries and settings are: a link to them brings nothing new
_SYSTEM = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/opt/", "/etc/", "/snap/", "/nix/")


def copied(cmd: SimpleCommand, files: dict[str, str | None]) -> list[tuple[str, str | None]]:
    """(path, text or None when unknown) of each file ``cmd`` makes under a new name from a
    file of ``files`` (the line's own, by normalised path), or, for a symbolic link, from an
    absolute or home path outside the system's directories."""
    if cmd.program not in _COPIERS:
        return []
    values = [w.value for w in cmd.words[1:]]
    if any(v is None or v in _VALUED or v.startswith(("--target-directory=", "--suffix="))
           for v in values):
        return []
    words = [v for v in values if v is not None]
    options = [v for v in words if v.startswith("-") and v != "-"]
    operands = [v for v in words if not (v.startswith("-") and v != "-")]
    if len(operands) < 2:
        return []
    symbolic = cmd.program == "ln" and any(
        o in ("--symbolic", "-s") or (not o.startswith("--") and "s" in o[1:]) for o in options)
    found: list[tuple[str, str | None]] = []
    destination = operands[-1]
    for source in operands[:-1]:
        names = [destination] if len(operands) == 2 else []
        names.append(posixpath.join(destination, posixpath.basename(source.rstrip("/"))))
        # a symbolic link's text is found from the link's own directory
        key = posixpath.normpath(posixpath.join(posixpath.dirname(destination), source)
                                 if symbolic else source)
        if key in files:
            found += [(posixpath.normpath(n), files[key]) for n in names]
        elif symbolic and source.startswith(("/", "~")) and not source.startswith(_SYSTEM):
            found += [(posixpath.normpath(n), None) for n in names]
        # the files under a directory copied, moved or linked (cp -r d e: d/x.sh is e/x.sh)
        found += [(posixpath.normpath(posixpath.join(n, path[len(key) + 1:])), text)
                  for path, text in files.items() if path.startswith(key + "/") for n in names]
    return found


_MOVERS = frozenset({"cd", "pushd"})


def renamed_by_cd(cmd: SimpleCommand, files: dict[str, str | None]
                  ) -> list[tuple[str, str | None]]:
    """After ``cd DIR`` (or ``pushd DIR``) to a directory below the current one, named
    literally, each file of ``files`` also goes by its path from there (``d/w.txt`` is then
    ``w.txt``): a later ``sh w.txt`` runs it. The old names are kept as well (the ``cd`` may be
    in a subshell)."""
    if cmd.program not in _MOVERS or not files:
        return []
    values = [w.value for w in cmd.words[1:]]
    if len(values) != 1 or values[0] is None:
        return []
    target = posixpath.normpath(values[0])
    if target.startswith(("/", "~", "-")) or ".." in target.split("/") or target == ".":
        return []
    return [(posixpath.relpath(path, target), text) for path, text in files.items()
            if not path.startswith("/")]


def named_at_run_time(word: Word, files: dict[str, str | None]) -> bool:
    """A script operand only known at run time that may be one of ``files``: a glob matching
    one (``./w*.txt``), or a word built from a variable whose literal end is one's name
    (``"$PWD/w.txt"``, ``$DIR/run.sh``)."""
    if word.value is not None and m.GLOB not in word.expansions:
        return False
    text = word.text.strip("\"'")
    if m.GLOB in word.expansions and word.value is not None:
        pattern = posixpath.normpath(word.value)
        return any(fnmatch.fnmatchcase(path, pattern) for path in files)
    tail = text.rpartition("/")[2]
    return bool(tail) and "$" not in tail and "`" not in tail and any(
        posixpath.basename(path) == tail for path in files)
