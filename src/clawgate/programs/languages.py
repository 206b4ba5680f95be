"""The sub-languages that write files and run commands: sed scripts and awk programs.

sed: ``w FILE``/``W FILE`` write, ``r``/``R`` read, ``e [CMD]`` runs, with or without an
address, and the ``w FILE``/``e`` flags of ``s///``. awk: ``print > FILE``, ``>> FILE``,
``printf … > FILE`` write (a target that is not a string literal is only known at run time),
``getline < FILE`` reads, ``system()``, ``| "cmd"``, ``"cmd" | getline`` and ``|&`` run.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.programs.awksites import awk_commands
from clawgate.shell.model import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from clawgate.programs.scan import Effect

# Blanks within a command never include a newline, which ends one: with ``\s`` there, every
# newline of a long run was a start whose blanks the next ones re-read (cubic work).
_BLANKS = r"[^\S\n]*+"
_ADDRESS = r"(?:\d+|\$|/(?:\\.|[^/\\\n])*/|\\(?P<c>.)(?:\\.|(?!(?P=c)).)*(?P=c))" \
           rf"(?:{_BLANKS}[,~]{_BLANKS}(?:\d+|\$|/(?:\\.|[^/\\\n])*/))?"
_SED_COMMAND = lazy_pattern(rf"(?:^|[;\n{{}}]){_BLANKS}(?:{_ADDRESS})?{_BLANKS}!?{_BLANKS}"
                            r"(?P<op>[wWrRe])(?:[^\S\n]++(?P<arg>[^\n]*?))?[^\S\n]*"
                            r"(?=$|\n|;(?!.*[wWrR]\s)|})")
_SED_SUBST = lazy_pattern(r"(?:^|[;\n{}]|\s|\d|\$|/)s(?P<d>[^\w\s\\\n])(?:\\.|(?!(?P=d)).)*"
                          r"(?P=d)(?:\\.|(?!(?P=d)).)*(?P=d)(?P<flags>[gpiImMe\d]*)"
                          r"(?:w[^\S\n]*(?P<file>[^\n]*))?")
_AWK_STRING = r'"(?:\\.|[^"\\])*"'
_AWK_OUT = lazy_pattern(rf"\bprintf?\b[^;{{}}\n]*?(?<![<>=!])>>?(?!=)\s*(?P<t>{_AWK_STRING}|"
                        r"[^;}\n]+)")
_AWK_IN = lazy_pattern(rf"\bgetline\b[^;{{}}\n]*?<\s*(?P<t>{_AWK_STRING}|[^;}}\n)]+)")
_AWK_REGEX = lazy_pattern(r"(?:^|(?<=[\s{(;,!~&|]))/(?:\\.|[^/\\\n])+/")
_AWK_RUN = lazy_pattern(rf"\bsystem\s*\(|(?<!\|)\|\s*(?:getline|{_AWK_STRING}|[A-Za-z_])|\|&")


def _effect(kind: str, text: str | None, known: bool = True) -> Effect:
    from clawgate.programs.scan import Effect

    if text is None:
        return Effect(kind, "(script)", None)
    return Effect(kind, "(script)", Word(text, text if known else None))


MAX_UNREAD_SCRIPT = 4096  # characters of a script the reader cannot follow matched by patterns
_SED_PLAIN = frozenset("=dDgGhHxnNpPzF")  # commands without an argument
_SED_TO_EOL = frozenset("rRwWe")  # a file name or command: the rest of the line
_SED_LABEL = frozenset(":bTtvlLqQ")  # a label or number: up to ``;`` or the line's end


def _sed_address(script: str, i: int) -> int:
    """Where an address that starts at ``i`` ends (``i`` when there is none, -1 when it does
    not close)."""
    n = len(script)
    if i < n and script[i] in "/\\":
        delimiter = "/" if script[i] == "/" else script[i + 1: i + 2]
        j = i + (1 if script[i] == "/" else 2)
        while j < n and script[j] != delimiter:
            j += 2 if script[j] == "\\" else 1
        if not delimiter or j >= n:
            return -1
        j += 1
        while j < n and script[j] in "IM":
            j += 1
        return j
    j = i
    while j < n and (script[j].isdigit() or script[j] in "$~+"):
        j += 1
    return j


def _sed_addresses(script: str, i: int) -> int:
    """Where the address or address range (and ``!``) before a command ends; -1 if it does
    not close."""
    n = len(script)
    for part in range(2):
        i = _sed_address(script, i)
        if i < 0:
            return -1
        while i < n and script[i] in " \t":
            i += 1
        if part or i >= n or script[i] != ",":
            break
        i += 1
        while i < n and script[i] in " \t":
            i += 1
    while i < n and script[i] in "! \t":
        i += 1
    return i


def _sed_operands_end(script: str, i: int, op: str) -> int:
    """Where the command ``op`` at ``i`` ends; -1 for one this reader cannot follow."""
    n = len(script)
    if op in "aic" or op in _SED_TO_EOL or op == "#":  # a/i/c: past escaped newlines
        j = i + 1
        while j < n and script[j] != "\n":
            j += 2 if script[j] == "\\" and op in "aic" else 1
        return min(j, n)
    if op in "sy":
        delimiter = script[i + 1: i + 2]
        if delimiter in ("", "\n", "\\"):
            return -1
        j, parts = i + 2, 0
        while j < n and parts < 2:
            if script[j] == "\\":
                j += 2
                continue
            parts += script[j] == delimiter
            j += 1
        if parts < 2:
            return -1
        while op == "s" and j < n and script[j] in "gpiImMe0123456789":
            j += 1
        if op == "s" and j < n and script[j] == "w":
            end = script.find("\n", j)
            j = n if end < 0 else end
        return j
    if op in _SED_LABEL:
        j = i + 1
        while j < n and script[j] not in ";\n}":
            j += 1
        return j
    return i + 1 if op in _SED_PLAIN else -1


def sed_commands(script: str) -> list[str] | None:
    """The commands of a sed script, each from its command letter to its end (addresses,
    ``!`` and separators left out), in order; None for a script this reader cannot follow.
    One pass: the work is linear in the script's length."""
    spans = _sed_spans(script)
    return None if spans is None else [script[start:end] for start, end in spans]


def _sed_spans(script: str) -> list[tuple[int, int]] | None:
    """Where each command of the script starts (its letter) and ends; None when unreadable."""
    spans: list[tuple[int, int]] = []
    n = len(script)
    i = 0
    while i < n:
        while i < n and script[i] in " \t\n;{}":
            i += 1
        if i >= n:
            break
        i = _sed_addresses(script, i)
        if i < 0 or i >= n:
            return None
        end = _sed_operands_end(script, i, script[i])
        if end < 0:
            return None
        spans.append((i, end))
        i = end
    return spans


def sed_subst_flags(command: str) -> tuple[str, str | None]:
    """The flags of an ``s`` command read by ``sed_commands`` and the file of its ``w`` flag
    (None without one)."""
    delimiter, j, parts = command[1:2], 2, 0
    while j < len(command) and parts < 2:
        if command[j] == "\\":
            j += 2
            continue
        parts += command[j] == delimiter
        j += 1
    start = j
    while j < len(command) and command[j] in "gpiImMe0123456789":
        j += 1
    flags = command[start:j]
    return flags, (command[j + 1:].strip() if command[j:j + 1] == "w" else None)


def sed_without_text(script: str) -> str:
    """The script with the text of its ``a``, ``i`` and ``c`` commands left out: that text is
    written out, never run (``99i\\    print(f"{x!r}")`` is a line of Python to insert, no
    ``s///e``). The text runs to the first newline not escaped by a backslash, as GNU sed reads
    it. A script this reader cannot follow is returned whole."""
    if not any(op in script for op in "aic"):
        return script
    spans = _sed_spans(script)
    if spans is None:
        return script
    kept, start = [], 0
    for begin, end in spans:
        if script[begin] in "aic":
            kept.append(script[start:begin + 1])
            start = end
    kept.append(script[start:])
    return "".join(kept)


def sed_effects(script: str) -> list[Effect]:
    """What a sed script writes, reads and runs, read command by command; a script the reader
    cannot follow is matched by patterns up to ``MAX_UNREAD_SCRIPT`` characters and past that
    said to run a command not known (the patterns' work grows faster than the script)."""
    commands = sed_commands(script)
    if commands is None:
        if len(script) > MAX_UNREAD_SCRIPT:
            return [_effect("run", None)]
        return _sed_effects_by_pattern(script)
    found = []
    for command in commands:
        op, arg = command[0], command[1:].strip()
        if op in "wW" and arg:
            found.append(_effect("write", arg))
        elif op in "rR" and arg:
            found.append(_effect("read", arg))
        elif op == "e":
            found.append(_effect("run", arg or None))
        elif op == "s":
            flags, written = sed_subst_flags(command)
            if written:
                found.append(_effect("write", written))
            if "e" in flags:
                found.append(_effect("run", None))
    return found


def _sed_effects_by_pattern(script: str) -> list[Effect]:
    found = []
    for match in _SED_COMMAND.finditer(script):
        op, arg = match.group("op"), (match.group("arg") or "").strip()
        if op in "wW" and arg:
            found.append(_effect("write", arg))
        elif op in "rR" and arg:
            found.append(_effect("read", arg))
        elif op == "e":
            found.append(_effect("run", arg or None))
    for match in _SED_SUBST.finditer(script):
        if match.group("file"):
            found.append(_effect("write", match.group("file").strip()))
        if "e" in match.group("flags"):
            found.append(_effect("run", None))
    return found


def _awk_target(text: str) -> tuple[str, bool]:
    text = text.strip().rstrip(")").strip()
    if len(text) >= 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1]:
        return text[1:-1], True
    return text, False


def awk_effects(program: str) -> list[Effect]:
    found = []
    for match in _AWK_OUT.finditer(program):
        if match.group("t").lstrip().startswith("|"):
            continue
        target, known = _awk_target(match.group("t"))
        if target not in ("/dev/stdout", "/dev/stderr", "-"):
            found.append(_effect("write", target, known))
    for match in _AWK_IN.finditer(program):
        target, known = _awk_target(match.group("t"))
        found.append(_effect("read", target, known))
    commands = awk_commands(program)
    if commands is not None:  # each command known: the line ``sh -c`` runs
        found += [_effect("run", command) for command in commands]
    elif _AWK_RUN.search(_AWK_REGEX.sub("//", program)):
        found.append(_effect("run", None))
    return found


def script_effects(language: str, script: Word) -> list[Effect]:
    """What a sed script or awk program does (nothing is said of one known only at run
    time: the text-program validators judge those)."""
    if script.value is None or language not in ("sed", "awk"):
        return []  # an expression language (yq, jq) that neither writes nor runs
    return sed_effects(script.value) if language == "sed" else awk_effects(script.value)
