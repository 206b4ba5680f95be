"""Text programs that read their program from a file an option names: ``awk -f FILE``, gawk's
``-i``/``--include`` and ``-E``, ``sed -f FILE``. Such a file written on the line is run as
that program's code (``validators/staged.py``)."""

from __future__ import annotations

import posixpath

from clawgate.shell.model import SimpleCommand
from clawgate.validators.scriptfiles import SCRIPT_OPTIONS

# program -> (the options naming its program file, how the text is given on a command line)
SCRIPT_FILES = {program: (options, "-e" if program in ("sed", "gsed") else "--")
                for program, options in SCRIPT_OPTIONS.items()
                if program in ("sed", "gsed") or program.endswith("awk")}


def script_files(cmd: SimpleCommand, options: frozenset[str]) -> set[str]:
    """The files named by ``options`` (``-f FILE``, ``-fFILE``, ``--file=FILE``)."""
    words = [w.value or "" for w in cmd.words[1:]]
    found: set[str] = set()
    for index, word in enumerate(words):
        if word in options and index + 1 < len(words):
            found.add(posixpath.normpath(words[index + 1]))
        for option in options:
            glued = option + "=" if option.startswith("--") else option
            if word.startswith(glued) and len(word) > len(glued):
                found.add(posixpath.normpath(word[len(glued):]))
    return found
