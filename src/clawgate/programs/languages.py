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


def sed_effects(script: str) -> list[Effect]:
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
    if _AWK_RUN.search(_AWK_REGEX.sub("//", program)):
        found.append(_effect("run", None))
    return found


def script_effects(language: str, script: Word) -> list[Effect]:
    """What a sed script or awk program does (nothing is said of one known only at run
    time: the text-program validators judge those)."""
    if script.value is None or language not in ("sed", "awk"):
        return []  # an expression language (yq, jq) that neither writes nor runs
    return sed_effects(script.value) if language == "sed" else awk_effects(script.value)
