"""Windows command lines as agents on Git Bash or WSL send them: what a path names, how a
delete is switched, and the PowerShell that fetches or runs code. Words are read as written
(``C:\\Windows``: bash would take the backslashes away), quotes removed."""

from __future__ import annotations

import re
from base64 import b64decode
from binascii import Error as Base64Error

from clawgate.ignoretemplates import template_names
from clawgate.lazyre import lazy_pattern
from clawgate.validators.regenerable import REGENERABLE_GLOBS, REGENERABLE_NAMES

_DRIVE = lazy_pattern(r"^(?:[A-Za-z]:)(?:[\\/]|$)|^\\\\|^/[a-z](?:/|$)|^/mnt/[a-z](?:/|$)")
_DRIVE_ONLY = lazy_pattern(r"^(?:[A-Za-z]:[\\/]|\\\\)")
_ROOTED_VAR = lazy_pattern(r"^(%[a-z_()0-9]+%|\$env:[a-z_()0-9]+|\$home|~)", re.IGNORECASE)
_PREFIX = r"^(?:(?:[a-z]:|/[a-z]|/mnt/[a-z])[\\/]*|[\\/]+)"  # a drive, or rooted
_ROOT = lazy_pattern(_PREFIX + r"\*?(?:\.\*)?$", re.IGNORECASE)
_SYSTEM_TREE = lazy_pattern(_PREFIX + r"(?:windows|program ?files(?: \(x86\))?|programdata|boot"
                            r"|recovery|system volume information)(?:[\\/].*)?$", re.IGNORECASE)
_PROFILE = lazy_pattern(_PREFIX + r"users(?:[\\/][^\\/]+)?[\\/]*\*?$", re.IGNORECASE)
_VAR_TREE = lazy_pattern(r"^(?:%(?:systemroot|windir|programfiles|programdata|systemdrive)%"
                         r"|\$env:(?:systemroot|windir|programfiles|programdata|systemdrive))",
                         re.IGNORECASE)
_VAR_HOME = lazy_pattern(r"^(?:%(?:userprofile|homedrive|homepath|appdata|localappdata)%"
                         r"|\$env:(?:userprofile|appdata|localappdata)|\$home|~)[\\/]*\*?$",
                         re.IGNORECASE)
# PowerShell that downloads or runs code, destroys disks or backups, or turns defences off.
PS_DANGER = lazy_pattern(
    r"\b(iex|invoke-expression|downloadstring|downloadfile|downloaddata|net\.webclient"
    r"|start-bitstransfer|frombase64string|format-volume|clear-disk|initialize-disk"
    r"|remove-partition|stop-computer|restart-computer|set-mppreference|add-mppreference"
    r"|vssadmin|bcdedit|wbadmin|sockets\.tcpclient|powercat|invoke-shellcode|mimikatz"
    r"|-enc(odedcommand)?\b|reflection\.assembly)\b", re.IGNORECASE)


def unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def is_absolute(path: str) -> bool:
    """A drive, UNC or variable-rooted Windows path (``C:\\x``, ``\\\\srv``, ``%TEMP%``)."""
    return bool(_DRIVE.match(path) or _ROOTED_VAR.match(path))


def is_drive_path(path: str) -> bool:
    """``C:\\x``, ``C:/x`` or ``\\\\server\\share``: what a Unix tool on Windows also opens."""
    return bool(_DRIVE_ONLY.match(path))


def is_system(path: str) -> bool:
    """A drive root, the Windows, program or users directories, or a profile itself."""
    path = path.strip()
    return any(p.match(path) for p in (_ROOT, _SYSTEM_TREE, _PROFILE, _VAR_TREE, _VAR_HOME))


def regenerable(path: str) -> bool:
    """A relative path whose components include a build-output or cache name."""
    from fnmatch import fnmatchcase

    parts = [p.lower() for p in re.split(r"[\\/]", path) if p and p != "."]
    templated = template_names()
    return ".." not in parts and any(
        p in REGENERABLE_NAMES or p in templated
        or any(fnmatchcase(p, g) for g in REGENERABLE_GLOBS) for p in parts)


def decode_powershell(text: str) -> str | None:
    """The script an ``-EncodedCommand`` carries (base64 of UTF-16LE), None if it is not one."""
    try:
        return b64decode(text + "=" * (-len(text) % 4), validate=True).decode("utf-16-le")
    except (Base64Error, UnicodeDecodeError, ValueError):
        return None


def statements(script: str) -> list[list[str]]:
    """A cmd or PowerShell line cut at ``&``, ``&&``, ``||``, ``|``, ``;`` and newlines, each
    piece as words (quotes kept together, then removed)."""
    pieces = re.split(r"&&|\|\||[&|;\n]", script)
    found = []
    for piece in pieces:
        words = [unquote(w) for w in re.findall(r"\"[^\"]*\"|'[^']*'|\S+", piece)]
        if words:
            found.append(words)
    return found
