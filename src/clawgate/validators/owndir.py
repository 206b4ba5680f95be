"""The shell's own directory: ``"$(dirname "$0")/lib.sh"`` and ``"$(cd "$(dirname "$0")" &&
pwd)/lib.sh"``, the idiom a script uses to find the files beside it.

In a line the agent hands its shell, ``$0`` is that shell's own name (``sh``, ``bash``, or its
path in a system directory): no word of the line can change it (bash has no assignment to
``$0``), so ``dirname "$0"`` is ``.`` -- the working directory -- or a root-owned program
directory. A file named under it by a plain relative path (no ``..``, no expansion) is
therefore the file of that name in the working directory, or one in a system directory.

Not in a line some command hands a shell (``bash -c CODE NAME``: there ``$0`` is NAME, the
caller's choice), which ``Context.nested`` marks.
"""

from __future__ import annotations

import posixpath

from clawgate.lazyre import lazy_pattern
from clawgate.validators.base import Context
from clawgate.validators.paths import under

# With double quotes taken out: $(dirname $0), $(dirname -- ${0}), and the same inside
# $([CDPATH=] cd [--] … && pwd [-P|-L]), then a relative path of plain characters.
_DIRNAME = r"\$\(\s*dirname\s+(?:--\s+)?\$(?:0|\{0\})\s*\)"
_PREFIX = r"(?:[A-Za-z_]\w*=[\w./:-]*\s+)?"  # CDPATH= cd …
_OWN_DIR = lazy_pattern(rf"(?:{_DIRNAME}|\$\(\s*{_PREFIX}cd\s+(?:--\s+)?{_DIRNAME}\s*&&\s*"
                        rf"pwd(?:\s+-[PL])?\s*\))((?:/[\w.+@-]+)+)")


def beside_the_shell(text: str, ctx: Context) -> bool:
    """Whether ``text`` (a word as written) names a file under the shell's own directory by
    a plain relative path that stays inside the workspace from the working directory."""
    if ctx.nested or "'" in text or "\\" in text or "`" in text:
        return False
    found = _OWN_DIR.fullmatch(text.replace('"', ""))
    if found is None:
        return False
    rest = found.group(1)
    if ".." in rest.split("/"):
        return False
    return under(posixpath.normpath(ctx.cwd + rest), ctx.workspace)
