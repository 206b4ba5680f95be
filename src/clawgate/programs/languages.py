"""The sub-languages that write files and run commands: sed scripts and awk programs.

sed: ``w FILE``/``W FILE`` write, ``r``/``R`` read, ``e [CMD]`` runs, with or without an
address, and the ``w FILE``/``e`` flags of ``s///``. awk: ``print > FILE``, ``>> FILE``,
``printf … > FILE`` write (a target that is not a string literal is only known at run time),
``getline < FILE`` reads, ``system()``, ``| "cmd"``, ``"cmd" | getline`` and ``|&`` run.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from clawgate.programs.scan import Effect

_ADDRESS = r"(?:\d+|\$|/(?:\\.|[^/\\\n])*/|\\(?P<c>.)(?:\\.|(?!(?P=c)).)*(?P=c))" \
           r"(?:\s*[,~]\s*(?:\d+|\$|/(?:\\.|[^/\\\n])*/))?"
_SED_COMMAND = lazy_pattern(rf"(?:^|[;\n{{}}])\s*(?:{_ADDRESS})?\s*!?\s*(?P<op>[wWrRe])"
                            r"(?:\s+(?P<arg>[^\n]*?))?\s*(?=$|\n|;(?!.*[wWrR]\s)|})")
_SED_SUBST = lazy_pattern(r"(?:^|[;\n{}]|\s|\d|\$|/)s(?P<d>[^\w\s\\\n])(?:\\.|(?!(?P=d)).)*"
                          r"(?P=d)(?:\\.|(?!(?P=d)).)*(?P=d)(?P<flags>[gpiImMe\d]*)"
                          r"(?:w\s*(?P<file>[^\n]*))?")
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


# Only a command that opens its line: after ``;`` an ``a`` may as well sit inside an s///
# (``s/x/;a b/;1e cmd``), and a line after an odd backslash continues whatever came before.
_SED_TEXT = lazy_pattern(rf"^\s*(?:{_ADDRESS})?\s*!?\s*(?P<op>[aic])(?=\\|\s|$)")


def text_spans(script: str) -> list[tuple[int, int]]:
    """Where the text of ``a``, ``i`` and ``c`` commands lies: the rest of the line (GNU's
    one-line form) and, after a trailing backslash, the lines that follow. That text is
    printed, never read as commands (``1a\\`` then ``e rm x`` appends a line)."""
    if "a" not in script and "i" not in script and "c" not in script:
        return []
    spans: list[tuple[int, int]] = []
    offset = 0
    lines = script.split("\n")
    i = 0
    continued = False
    while i < len(lines):
        line = lines[i]
        match = None if continued else _SED_TEXT.match(line)
        begin = offset + (match.start("op") if match else 0)
        offset += len(line) + 1
        i += 1
        continued = _continues(line)
        if match is None:
            continue
        while continued and i < len(lines):
            continued = _continues(lines[i])
            offset += len(lines[i]) + 1
            i += 1
        spans.append((begin, offset))
    return spans


def _continues(line: str) -> bool:
    """The line ends with an odd number of backslashes: the next one continues it."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def sed_effects(script: str) -> list[Effect]:
    found = []
    text = text_spans(script)  # s///'s flags are read everywhere: a; may be its delimiter
    for match in _SED_COMMAND.finditer(script):
        if any(a <= match.start("op") < b for a, b in text):
            continue
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
    if _AWK_RUN.search(_AWK_REGEX.sub("//", program)):
        found.append(_effect("run", None))
    return found


def script_effects(language: str, script: Word) -> list[Effect]:
    """What a sed script or awk program does (nothing is said of one known only at run
    time: the text-program validators judge those)."""
    if script.value is None or language not in ("sed", "awk"):
        return []  # an expression language (yq, jq) that neither writes nor runs
    return sed_effects(script.value) if language == "sed" else awk_effects(script.value)
