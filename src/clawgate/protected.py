"""Protected paths for the file tools, the hooks and the MCP proxy: the one list the shell
checker uses (``clawgate.protectedpaths``), applied to a path as a tool call names it.

A path is matched as written (made absolute against the workspace) and canonicalised (symlinks
resolved), so a link named ``notes`` pointing at ``.git/hooks`` is caught too. Writing one is
never a silent allow: the file tools, the hooks and the MCP proxy answer ASK (a person must
approve).
"""

from __future__ import annotations

import os

from clawgate.protectedpaths import protected_reason as _reason

PROTECTED_ID = "CG-PROT-001"


def protected_reason(path: str, workspace: str, extra: tuple[str, ...] = ()) -> str | None:
    """Why writing ``path`` (relative to ``workspace``, or absolute, or ``~``) needs a person's
    approval, or None when it is not a protected path. ``extra``: the policy's
    ``paths.protected`` patterns."""
    root = os.path.realpath(os.path.abspath(workspace))
    joined = os.path.normpath(os.path.join(root, os.path.expanduser(path)))
    for candidate in dict.fromkeys((joined, os.path.realpath(joined))):
        why = _reason(candidate, root, extra)
        if why is not None:
            return f"{path}: a protected path ({why})"
    return None
