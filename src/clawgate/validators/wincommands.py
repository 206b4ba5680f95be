"""What Windows commands do, judged as their Unix twins are: a wiped drive or system path is
DENY, a recursive delete in the project ASK unless regenerable, persistence DENY. Each judge
takes the words as written (quotes removed) and returns (outcome, why) or None."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

from clawgate.decision import Outcome
from clawgate.validators.winpaths import is_absolute, is_system, regenerable

Judgement = tuple[Outcome, str] | None
_DENY, _ASK = Outcome.DENY, Outcome.ASK
_PS_DELETERS = frozenset({"remove-item", "ri"})
_CMD_DELETERS = frozenset({"del", "erase", "rd", "rmdir"})
DELETERS = _PS_DELETERS | _CMD_DELETERS


def name(word: str) -> str:
    """``C:\\Windows\\System32\\cmd.EXE`` -> ``cmd`` (``format.com`` -> ``format``)."""
    base = word.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith((".exe", ".com")) else base


def _switches(words: list[str]) -> tuple[set[str], list[str]]:
    """cmd's ``/s /q`` and PowerShell's ``-Recurse -Force`` (any unique prefix), and operands."""
    flags: set[str] = set()
    operands: list[str] = []
    skip = False
    for word in words:
        low = word.lower()
        if skip:
            operands.append(word)
            skip = False
        elif len(low) == 2 and low[0] == "/" and low[1].isalpha():
            flags.add({"q": "f"}.get(low[1], low[1]))
        elif low.startswith("-") and len(low) > 1:
            if "-recurse".startswith(low):
                flags.add("s")
            elif "-force".startswith(low) and len(low) > 2:
                flags.add("f")
            elif low in ("-path", "-literalpath", "-lp"):
                skip = True
        else:
            operands.append(word)
    return flags, operands


def deletes(words: list[str]) -> Judgement:
    program = name(words[0])
    if program not in DELETERS:
        return None
    flags, targets = _switches(words[1:])
    if program == "rmdir" and not flags and not any(is_absolute(t) for t in targets):
        return None  # the Unix rmdir of empty directories
    recursive, forced = "s" in flags, "f" in flags
    for target in targets:
        if is_system(target):
            return _DENY, f"{program} deletes {target}, a drive or system path"
        if is_absolute(target) and (recursive or forced):
            return _DENY, f"{program} deletes {target}, outside the workspace"
        if recursive and not regenerable(target):
            return _ASK, f"{program} deletes the tree {target}, which no build brings back"
    return None


_DISK_VERBS = {"vssadmin": ("delete", "resize"), "wbadmin": ("delete",),
               "wmic": ("shadowcopy", "delete"), "bcdedit": ("/set", "/delete", "/deletevalue")}
_DISK_CMDLETS = frozenset({"format-volume", "clear-disk", "initialize-disk", "remove-partition",
                           "stop-computer", "restart-computer", "diskpart"})


def disks(words: list[str]) -> Judgement:
    program = name(words[0])
    args = [w.lower() for w in words[1:]]
    if program in _DISK_CMDLETS:
        return _DENY, f"{program} erases disks or stops the machine"
    if program == "format" and any(len(a) == 2 and a[1] == ":" for a in args):
        return _DENY, f"format {words[1]} wipes a drive"
    if program == "cipher" and any(a.startswith("/w") for a in args):
        return _DENY, "cipher /w overwrites a drive's free space"
    verbs = _DISK_VERBS.get(program)
    if verbs is not None and any(a in verbs for a in args):
        return _DENY, f"{program} {' '.join(words[1:3])} destroys backups or boot settings"
    return None


_PERSIST = ("\\run", "\\runonce", "winlogon", "image file execution options",
            "\\services\\", "\\policies\\", "appinit_dlls", "\\shell\\open\\command")


def registry(words: list[str]) -> Judgement:
    program = name(words[0])
    args = [w.lower() for w in words[1:]]
    text = " ".join(args)
    if program == "reg" and args[:1] in (["delete"], ["add"], ["import"], ["load"]):
        if args[0] == "add" and any(p in text for p in _PERSIST):
            return _DENY, "reg add writes a key that runs programs at start-up"
        if args[0] == "delete" and ("hklm" in text or "hkey_local_machine" in text
                                    or "hkcr" in text):
            return _DENY, "reg delete removes machine-wide configuration"
        return _ASK, f"reg {args[0]} changes the registry"
    if program == "schtasks" and "/create" in args:
        return _DENY, "schtasks /create installs a scheduled job"
    if program == "powercat":
        exec_flags = {"-e", "-ep", "-ge", "-rep"}
        return (_DENY, "powercat runs a program for the network peer") if exec_flags & set(
            args) else (_ASK, "powercat opens a network connection")
    if program in ("takeown", "icacls") and any(is_system(w) for w in words[1:]):
        return _DENY, f"{program} changes ownership or access of a system path"
    if program == "netsh" and any("firewall" in a for a in args) and any(
            a in ("off", "disable", "state=off", "mode=disable") for a in args):
        return _ASK, "netsh switches the firewall off"
    if program == "net" and args[:1] in (["user"], ["localgroup"]) and (
            "/add" in args or "/delete" in args):
        return _ASK, f"net {args[0]} changes the machine's accounts"
    return None


_REMOTE = ("http:", "https:", "\\\\", "ftp:", "javascript:", "vbscript:")


def fetchers(words: list[str]) -> Judgement:
    """Windows programs that fetch and run code or files (the "living off the land" ones):
    ``mshta URL``, ``regsvr32 /i:URL scrobj.dll``, ``rundll32 javascript:…`` DENY (as ``curl |
    sh``); ``certutil -urlcache``/``-decode``, ``bitsadmin /transfer`` ASK (a download or a
    decode written to disk); ``wsl --unregister`` ASK (a distribution and its files deleted)."""
    program = name(words[0])
    args = [w.lower() for w in words[1:]]
    remote = any(r in a for a in args for r in _REMOTE)
    if program == "mshta" and args:
        return _DENY, "mshta runs an HTML application, which is code"
    if program == "regsvr32" and (remote or any("scrobj" in a for a in args)):
        return _DENY, "regsvr32 loads a script component from a remote place"
    if program == "rundll32" and (remote or any("url.dll" in a or "advpack" in a
                                                for a in args)):
        return _DENY, "rundll32 runs script or a remote file"
    if program == "certutil" and any(a.lstrip("-/") in ("urlcache", "decode", "decodehex",
                                                        "verifyctl") for a in args):
        return _ASK, "certutil downloads or decodes a file"
    if program == "bitsadmin" and any(a in ("/transfer", "/addfile", "/create") for a in args):
        return _ASK, "bitsadmin downloads a file"
    if program == "wsl" and any(a in ("--unregister", "--uninstall") for a in args):
        return _ASK, "wsl --unregister deletes a distribution and every file in it"
    return None


_LISTERS = frozenset({"get-childitem", "gci", "dir", "ls", "get-item", "gi", "get-content",
                      "gc", "type", "cat"})
_SERVICE_VERBS = frozenset({"create", "delete", "config", "stop", "failure", "sdset",
                            "privs"})


def services(words: list[str]) -> Judgement:
    """The environment drive listed (``gci env:``: every variable, as ``env``), services
    created, changed or stopped (``sc create``, ``sc stop WinDefend``), event logs cleared
    (``wevtutil cl``, ``Clear-EventLog``): ASK."""
    program = name(words[0])
    args = [w.lower() for w in words[1:]]
    if program in _LISTERS and any(a.rstrip("\\/") in ("env:", "env:*") for a in args):
        return _ASK, f"{program} env: prints every environment variable, secrets included"
    if program == "sc" and args[:1] and args[0] in _SERVICE_VERBS:
        return _ASK, f"sc {args[0]} changes the machine's services"
    if (program == "wevtutil" and args[:1] in (["cl"], ["clear-log"])) or (
            program in ("clear-eventlog", "remove-eventlog")):
        return _ASK, "clears the event logs"
    return None


# PowerShell cmdlets (and their aliases) that only read or format: a -Command made of these
# alone is judged as its Unix twins (a read), not asked about.
READERS = frozenset({
    "get-childitem", "gci", "dir", "ls", "get-content", "gc", "type", "cat", "get-item", "gi",
    "get-itemproperty", "gp", "get-location", "gl", "pwd", "get-process", "gps", "ps",
    "get-service", "gsv", "test-path", "resolve-path", "rvpa", "select-string", "sls",
    "measure-object", "measure", "write-output", "echo", "write", "write-host", "get-date",
    "get-command", "gcm", "get-help", "format-table", "ft", "format-list", "fl",
    "select-object", "select", "where-object", "where", "?", "sort-object", "sort",
    "out-string", "convertto-json", "convertfrom-json", "get-host", "get-psdrive", "gdr",
    "get-filehash", "get-acl", "get-member", "gm", "group-object", "group", "get-unique",
    "split-path", "join-path", "get-variable", "gv", "get-culture", "get-uiculture",
    "get-executionpolicy", "get-module", "gmo", "get-computerinfo", "get-volume", "ver",
    "hostname", "whoami", "where.exe", "findstr", "more", "tree"})
FILE_READERS = frozenset({"get-content", "gc", "type", "cat", "select-string", "sls",
                           "findstr", "more", "get-filehash"})


def piped_delete(script: str) -> Judgement:
    """``Get-ChildItem C:\\ -Recurse | Remove-Item -Force``: what the listing names is deleted."""
    low = script.lower()
    if "|" not in low or not any(d in low for d in ("remove-item", "ri ", "rm ", "del ")):
        return None
    pieces = [p.split() for p in low.split("|")]
    for left, right in pairwise(pieces):
        if left and right and left[0] in ("get-childitem", "gci", "ls", "dir") and \
                right[0] in ("remove-item", "ri", "rm", "del", "erase"):
            targets = [w for w in left[1:] if not w.startswith("-")] or ["."]
            recursive = any(w.startswith("-r") for w in left[1:])
            found = deletes(["remove-item", *targets, *(["-recurse"] if recursive else []),
                             "-force"])
            if found is not None:
                return found
    return None


JUDGES: tuple[Callable[[list[str]], Judgement], ...] = (deletes, disks, registry, fetchers,
                                                        services)
