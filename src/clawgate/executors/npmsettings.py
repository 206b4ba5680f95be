"""npm's user configuration without its credentials, for a sandbox that hides the file.

``~/.npmrc`` is a credential store (``//registry.npmjs.org/:_authToken=...``, ``_auth``,
``_password``), so a sandbox shows it empty. It is also where a user keeps settings the work
depends on: a registry mirror (``registry=``, ``@scope:registry=``), the headers native addons
build against (``nodedir=``), the CA to trust (``cafile=``), ``strict-ssl``, and switches such as
``update-notifier=false``, ``fund=false``, ``audit=false``. With the file hidden whole, npm
inside runs as if none were set: it asks a registry it was told not to use, ``node-gyp``
downloads headers the host already has, a notifier calls out on every command.

So each run gets a copy of the settings alone, ``npmrc`` in the workspace's toolchain cache
(written afresh by the executor for every run unless what is there is exactly that copy, a
file of ours and no other's link to it: what a command left there is replaced), and
``npm_config_userconfig`` names it. Only known settings are copied (``SETTINGS``, and
``@scope:registry``): never a ``//host/:key`` entry, ``_auth``, ``_authToken``, ``_password``,
``username``, ``email``, ``certfile``, ``keyfile`` or a key npm does not document (it could
carry a secret); never a value that refers to the environment (``${NPM_TOKEN}``: npm would
expand it from variables the sandbox does not pass, or fail on a missing one); not what the
sandbox decides itself (the proxy, the cache, which config files are read); nothing from the
first ``[section]`` on. A value is copied as npm reads it: an unquoted one ends where a comment
begins (``;`` or ``#``, as npm's ini parser has it: text after it is no setting and could hold
anything), and a URL's user information (``https://me:token@npm.corp.example/``, which npm
sends as the registry's credentials) is left out, so the host stays and the credential does
not.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Mapping

MAX_BYTES = 256 * 1024
COPY_NAME = "npmrc"
# npm's documented settings that name no credential and that the sandbox does not set itself
# (not the proxy, the cache or the config files): a key not listed could carry a secret.
SETTINGS = frozenset({
    "registry", "nodedir", "cafile", "ca", "strict-ssl", "update-notifier", "fund", "audit",
    "audit-level", "progress", "loglevel", "color", "unicode", "save", "save-exact",
    "save-prefix", "engine-strict", "legacy-peer-deps", "strict-peer-deps", "package-lock",
    "package-lock-only", "lockfile-version", "omit", "include", "omit-lockfile-registry-resolved",
    "yes", "prefer-offline", "prefer-online", "offline", "fetch-retries",
    "fetch-retry-factor", "fetch-retry-mintimeout", "fetch-retry-maxtimeout", "fetch-timeout",
    "maxsockets", "ignore-scripts", "script-shell", "foreground-scripts", "python", "git",
    "sign-git-tag", "init-author-name", "init-author-url", "init-license", "init-version",
    "init-module", "install-strategy", "install-links", "bin-links", "scope", "tag",
    "before", "timing", "logs-max", "node-options", "workspaces-update", "prefix",
})
_KEY = re.compile(r"@?[A-Za-z0-9][A-Za-z0-9._:-]*(?:\[\])?")
# A URL's user information: from the scheme's "//" up to the last "@" before the host's end.
_USERINFO = re.compile(r"(?<=//)[^/?#\s]*@")


def npm_userconfig(environ: Mapping[str, str], cache: str) -> dict[str, str]:
    """Write the credential-free copy of the user's ``~/.npmrc`` into ``cache`` and return
    ``{"npm_config_userconfig": its path}``; {} where the user has no ``~/.npmrc``."""
    home = environ.get("HOME") or os.path.expanduser("~")
    try:
        with open(os.path.join(home, ".npmrc"), "rb") as handle:
            text = handle.read(MAX_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return {}
    target = os.path.join(cache, COPY_NAME)
    try:
        os.makedirs(cache, mode=0o700, exist_ok=True)
        _write(target, "".join(f"{line}\n" for line in settings_lines(text)))
    except OSError:
        return {}  # npm then reads the hidden, empty file: no settings, still no credentials
    return {"npm_config_userconfig": target}


def settings_lines(text: str) -> list[str]:
    """The lines of an ``.npmrc`` that are settings, not credentials (the module's rules)."""
    kept = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            break
        key, sep, value = (part.strip() for part in line.partition("="))
        value = _USERINFO.sub("", _read_value(value))
        if sep and _passes(key, value):
            kept.append(f"{key}={value}")
    return kept


def _read_value(value: str) -> str:
    """``value`` as npm's ini parser reads it: a quoted one whole, an unquoted one up to its
    first unescaped ``;`` or ``#`` (a comment)."""
    if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
        return value
    escaped = False
    for index, char in enumerate(value):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in ";#":
            return value[:index].rstrip()
    return value


def _passes(key: str, value: str) -> bool:
    """A known setting (``SETTINGS``) or a scope's registry (``@corp:registry``), whose value
    refers to no variable."""
    if not _KEY.fullmatch(key) or "${" in value:
        return False
    name = key.lower().removesuffix("[]")
    scope, colon, rest = name.partition(":")
    if colon:
        return scope.startswith("@") and rest == "registry"
    return name in SETTINGS


def _write(target: str, content: str) -> None:
    """Replace ``target`` at once by a new file of ours (never through what is there), unless
    it is already that (``_holds``)."""
    if _holds(target, content.encode("utf-8")):
        return
    descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".npmrc-")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(content)
        os.replace(temporary, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _holds(target: str, data: bytes) -> bool:
    """Whether ``target`` is a regular file of ours, mode 0600 (as ``mkstemp`` makes it), with
    no other name (a hard link a command made could change it from elsewhere), holding exactly
    ``data``; opened without following a link."""
    try:
        descriptor = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or stat.S_IMODE(info.st_mode) != 0o600 or \
                info.st_nlink != 1 or info.st_uid != os.geteuid() or info.st_size != len(data):
            return False
        return os.read(descriptor, len(data) + 1) == data
    except OSError:
        return False
    finally:
        os.close(descriptor)
