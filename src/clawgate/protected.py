"""Protected paths for the file tools, the hooks and the MCP proxy: the one list the shell
checker uses (``clawgate.protectedpaths``), applied to a path as a tool call names it.

A path is matched as written (made absolute against the workspace, ``..`` taken as text), as
the kernel resolves it (each ``..`` after the link before it: ``link/../config`` with ``link``
pointing at ``.git/hooks`` is ``.git/config``) and canonicalised, so a link named ``notes``
pointing at ``.git/hooks`` is caught too. A path holding a NUL byte is matched up to it, as a
C string is read (containment refuses it on its own). A file with more than one hard link asks
too: the agents' tools write in place, through the link, and its other names cannot be found
from this one. Writing either is never a silent allow: the file tools, the hooks and the MCP
proxy answer ASK (a person must approve).

Where the workspace holds an account's home (a workspace of ``~``, or of ``/home``), the
places there that run or are trusted later are protected too, whatever the list says: shell
start-up files, SSH key lists, service and autostart definitions (``validators/files.py``'s
persistence targets), and the user-wide configuration of git, the GitHub CLI, editors and
clawgate itself, and ``~/.local/bin``, which comes first on PATH.
"""

from __future__ import annotations

import os

from clawgate import fsfacts
from clawgate.protectedpaths import hard_links
from clawgate.protectedpaths import protected_reason as _reason

PROTECTED_ID = "CG-PROT-001"
# An account's user-wide configuration that runs code or holds its credentials, by the home.
_USER_WIDE = (".gitconfig", ".config/git", ".config/gh", ".local/bin", ".config/clawgate",
              ".config/Code/User", ".config/Cursor/User", ".config/VSCodium/User")
_HOME_WHY = ("a start-up file, service definition or user-wide configuration of an account's "
             "home, which runs or is trusted at its next start")


def protected_reason(path: str, workspace: str, extra: tuple[str, ...] = ()) -> str | None:
    """Why writing ``path`` (relative to ``workspace``, or absolute, or ``~``) needs a person's
    approval, or None when it is not a protected path. ``extra``: the policy's
    ``paths.protected`` patterns."""
    root = fsfacts.realpath(os.path.abspath(workspace))
    text = path.split("\0", 1)[0]
    # Windows separates components with a backslash too: .git\hooks is .git/hooks there
    texts = (text, text.replace("\\", "/")) if "\\" in text else (text,)
    for candidate in (c for t in texts for c in spellings(t, root)):
        why = _reason(candidate, root, extra) or _home_place(candidate)
        if why is not None:
            return f"{path}: a protected path ({why})"
    links = hard_links(os.path.join(root, os.path.expanduser(text)))
    return None if links is None else f"{path}: {links}"


def spellings(path: str, root: str) -> tuple[str, ...]:
    """Every place ``path`` (relative to ``root``) may name: the text normalised, that text's
    real path, and the real path of the text as given, whose ``..`` the kernel takes after
    the link before it rather than lexically."""
    given = os.path.join(root, os.path.expanduser(path))
    lexical = os.path.normpath(given)
    return tuple(dict.fromkeys((lexical, fsfacts.realpath(lexical), fsfacts.realpath(given))))


def _home_place(path: str) -> str | None:
    """Why ``path`` (absolute, normalised) is a place of an account's home that runs or is
    trusted later, or None."""
    from clawgate.validators.base import Context
    from clawgate.validators.files import persistence_target

    home = os.path.normpath(os.path.expanduser("~"))
    if persistence_target(path, Context(cwd=home, workspace=home, home=home)):
        return f"{path} is {_HOME_WHY}"
    homes = dict.fromkeys((home, fsfacts.realpath(home)))
    for base in homes:
        for name in _USER_WIDE:
            place = f"{base}/{name}"
            if path == place or path.startswith(place + "/"):
                return f"{path} is {_HOME_WHY}"
    return None
