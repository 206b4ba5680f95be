"""A write whose path a run-time value begins: what the literal tail after it tells of the file.

``> "$ARCHIVE/doc/rg.1"``: ``$ARCHIVE`` may be any directory, ``/`` or a home included, and
may hold slashes and ``..``. What the line does fix is the text after the last expansion:
here a directory named ``doc`` and in it a file named ``rg.1``. A file runs or is read with
authority later for one of two reasons: its directory is one whose every entry a program
loads (``~/.bashrc.d``, ``/etc/bash_completion.d``, ``conf.d``, a hooks directory, a PATH
directory, an agent's commands), or its own name is one a program loads wherever it is asked
to look (``.bashrc``, ``pre-commit``, ``config``, ``CLAUDE.md``, a module ``x.py``, a unit
``x.service``, a command or function named ``_rg``). So a write is known to be inert only when
both are:

- the directory it lands in is named by the line: a literal component after the expansion,
  or the literal end of the component the expansion begins (``"$APP.AppDir"/x``: a directory
  whose name ends in ``.AppDir``); it is not hidden, no drop-in directory (``*.d``), no
  hooks, cron, PATH, library, include, completion, function, plugin, autostart, unit,
  agent-instruction, CI or package directory of the list below nor of the protected paths
  (``protectedpaths.py``, ``files.py``), and no ``..`` leads out of it;
- the file's own name is not hidden, not a protected name, and ends in an extension of data
  no loader runs or obeys by its name: manual pages, documents, checksums and signatures,
  tables and logs, images and backups. A name without an extension may be a command, a
  function or a hook; code, configuration, units, archives and packages are not on the list,
  shell code included: a completion script is one a shell sources, and a shell also sources
  files of the same extension by their name from directories no list can hold
  (``$XDG_CONFIG_HOME/fish/config.fish``).

A directory wholly unknown (``> "$TARGET"``, ``"$D"/rg.1``) stays unknown: it may be one
whose every entry runs. What is set aside is CG-PROG-002's question only; the write is
still judged by every other rule as written.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.protectedpaths import DEFAULT_PROTECTED

# Directories whose entries a program loads or runs by being there (by name, lower case).
_LOADING_DIRS = frozenset("""
bin sbin libexec lib lib32 lib64 include site-packages dist-packages node_modules vendor
hooks githooks git-hooks completions completion site-functions functions zfunc
vendor_completions vendor_functions autoload plugin plugins ftplugin after start opt lua
site-lisp custom autostart applications startup launchagents launchdaemons startupitems
systemd user system units workflows actions commands agents skills prompts rules
instructions modes manifests etc init rc templates profile shims
""".split())
_NAMED_DIRS = frozenset(part for pattern, _ in DEFAULT_PROTECTED
                        for part in pattern.split("/") if part)
# Names some program loads with authority whatever the extension list says.
_LOADED_NAMES = frozenset("""
cmakelists.txt entry_points.txt top_level.txt copilot-instructions.md
microsoft.powershell_profile.ps1 profile.ps1 microsoft.vscode_profile.ps1
""".split()) | frozenset(p.rsplit("/", 1)[-1] for p, _ in DEFAULT_PROTECTED)
_LOADED_PREFIXES = ("requirements", "constraints")
# Extensions of files no loader runs or obeys by their name (see the module).
_INERT_EXTENSIONS = frozenset("""
md markdown rst txt adoc asciidoc html htm pdf info man
sha1 sha224 sha256 sha384 sha512 md5 b2 sum asc sig minisig
csv tsv log out svg png jpg jpeg gif webp ico bak orig
""".split())
_MAN_SECTION = lazy_pattern(r"[1-9][a-z]{0,3}")
_NAME = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = frozenset("*?[]{}()<>|;&\\$` \t\n")  # ~ is literal after a value


def inert_tail(text: str) -> bool:
    """The write target ``text`` (a word as written, beginning with a value known only at
    run time) lands in a directory the line names and under a name no loader obeys."""
    tail = _tail(text)
    if tail is None:
        return False
    parts = tail.split("/")
    if len(parts) < 2:
        return False  # the name itself is glued to the value: its directory is unknown
    glued, dirs, name = parts[0], parts[1:-1], parts[-1]
    if any(p in ("", ".", "..") or p.startswith(".") for p in (*dirs, name)):
        return False
    landing = (dirs[-1] if dirs else glued).lower()
    if not landing or not _inert_directory(landing, whole=bool(dirs)):
        return False
    return all(_inert_directory(d.lower(), whole=True) for d in dirs) and _inert_name(name)


def _inert_directory(name: str, whole: bool) -> bool:
    """A directory named ``name`` (or, not ``whole``, whose name ends in it) is none whose
    entries a program loads by being there."""
    if name.endswith(".d") or "hook" in name or "cron" in name:
        return False
    if whole:
        return not name.startswith(".") and name not in _LOADING_DIRS and \
            name not in _NAMED_DIRS
    return not any(d.endswith(name) for d in (*_LOADING_DIRS, *_NAMED_DIRS))


def _inert_name(name: str) -> bool:
    lowered = name.lower()
    if lowered in _LOADED_NAMES or lowered.startswith(_LOADED_PREFIXES):
        return False
    stem, dot, extension = lowered.rstrip("~").rpartition(".")
    if not dot or not stem:
        return False
    if extension == "gz":  # a compressed manual page: rg.1.gz
        extension = stem.rpartition(".")[2]
        return _MAN_SECTION.fullmatch(extension) is not None and "." in stem
    return extension in _INERT_EXTENSIONS or _MAN_SECTION.fullmatch(extension) is not None


def _tail(text: str) -> str | None:
    """The literal text after the word's last expansion, its quotes removed; None when there
    is no expansion, or the tail holds anything but plain characters."""
    end = _last_expansion_end(text)
    if end is None or end == 0:
        return None
    tail = text[end:]
    if _SPECIAL & set(tail):
        return None
    return tail.replace('"', "").replace("'", "")


def _last_expansion_end(text: str) -> int | None:
    """Where the last ``$…`` or backquoted expansion of ``text`` ends; 0 for none; None for
    a word not read here (an escape, an unclosed expansion)."""
    index, end, single = 0, 0, False
    while index < len(text):
        ch = text[index]
        if single:
            single = ch != "'"
            index += 1
            continue
        if ch == "\\":
            return None
        if ch == "'":
            single = True
            index += 1
            continue
        if ch == "`":
            close = text.find("`", index + 1)
            if close < 0:
                return None
            index = end = close + 1
            continue
        if ch == "$":
            after = _expansion_after(text, index + 1)
            if after is None:
                return None
            index = end = after
            continue
        index += 1
    return None if single else end


def _expansion_after(text: str, start: int) -> int | None:
    """The end of the expansion whose ``$`` stands just before ``start``."""
    if start >= len(text):
        return None
    opener = text[start]
    if opener in "({":
        closer = ")" if opener == "(" else "}"
        depth = 0
        for index in range(start, len(text)):
            depth += (text[index] == opener) - (text[index] == closer)
            if depth == 0:
                return index + 1
        return None
    found = _NAME.match(text, start)
    if found is not None:
        return found.end()
    return start + 1  # $1, $@, $$, $?: one character
