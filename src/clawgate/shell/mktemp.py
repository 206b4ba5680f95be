"""What ``$(mktemp …)`` prints: the name of a file (or directory) it has just made, one that no
other file had. ``tmp=$(mktemp); jq … f > "$tmp" && mv "$tmp" f`` writes to, moves and deletes
nothing that existed before the line.

The name is written with its random part as ``X``s, where GNU mktemp puts it: in ``$TMPDIR``
(read as ``/tmp``) as ``tmp.XXXXXXXXXX`` with no template; a template holding a ``/`` as
given; one without, in the current directory, or in the temporary directory with ``-t``,
``-p DIR`` or ``--tmpdir[=DIR]``. Anything else (an unknown option, two templates, a template
without ``XXX`` in its last component) is None.
"""

from __future__ import annotations

import posixpath

_TMP = "/tmp"
_FLAGS = frozenset({"-d", "--directory", "-u", "--dry-run", "-q", "--quiet", "-t"})
_MIN_X = 3


def fresh_path(argv: list[str]) -> str | None:
    """The path ``mktemp`` prints for ``argv`` (``argv[0]`` is ``mktemp``), or None."""
    directory: str | None = None
    in_tmp = False
    suffix = ""
    template: str | None = None
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _FLAGS:
            in_tmp = in_tmp or arg == "-t"
        elif arg == "-p":
            if i + 1 >= len(args):
                return None
            directory, in_tmp, i = args[i + 1], True, i + 1
        elif arg == "--tmpdir":
            in_tmp = True
        elif arg.startswith("--tmpdir="):
            directory, in_tmp = arg[len("--tmpdir="):], True
        elif arg.startswith("--suffix="):
            suffix = arg[len("--suffix="):]
        elif arg.startswith("-") or template is not None:
            return None
        else:
            template = arg
        i += 1
    if template is None:
        return posixpath.join(directory or _TMP, "tmp.XXXXXXXXXX" + suffix)
    if "X" * _MIN_X not in posixpath.basename(template):
        return None
    if in_tmp and "/" not in template:
        return posixpath.join(directory or _TMP, template) + suffix
    return template + suffix
