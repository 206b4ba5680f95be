"""What on a line may give a variable a value other than by a plain assignment: the names
same-line resolution (``constants.py``) must not take as known.

Builtins that assign the names they are given (``read``, ``printf -v``, ``mapfile``,
``getopts``, ``declare`` and its kin, ``unset``, ``let``, ``wait -p``), loops, ``${x:=…}``,
arithmetic wherever bash evaluates it (``(( ))``, ``$(( ))``, ``$[ ]``, array subscripts,
``[[ … -eq … ]]``, substring offsets), prefixes of special builtins (they persist in POSIX mode
and in ``sh``), and the variables the shell sets itself (``$_``, ``REPLY``, ``PWD`` ...). A
name given to a setter by an expansion (``read "$n"``) may be any name: then ``EVERY``.
``declared`` reads the declarations that are plain assignments (``export D=build``,
``printf -v D build``).
"""

from __future__ import annotations

import re
import shlex

from clawgate.lazyre import lazy_pattern
from clawgate.shell import model as m

EVERY = "\0every"  # a name set here is not known: no name is
SETTERS = frozenset("read mapfile readarray declare typeset local export readonly unset "
                    "getopts let printf wait".split())
# Set by the shell itself, whatever the line assigns: $_ is the last argument, PWD follows cd.
DYNAMIC = frozenset(
    "_ REPLY MAPFILE OPTARG OPTIND OPTERR PWD OLDPWD RANDOM SRANDOM SECONDS LINENO BASHPID "
    "BASH_COMMAND EPOCHSECONDS EPOCHREALTIME HISTCMD FUNCNAME BASH_REMATCH PIPESTATUS COPROC "
    "BASH_SUBSHELL DIRSTACK GROUPS BASH_ARGV0 BASH_ARGC BASH_ARGV BASH_LINENO BASH_SOURCE "
    "BASH_EXECUTION_STRING".split())
# POSIX special builtins: an assignment before one outlives it (POSIX mode, sh, dash).
_SPECIAL = frozenset(": . source break continue eval exec exit export readonly return set "
                     "shift times trap unset".split())
# Options of read / mapfile that take a value (the word after them is not a name).
_VALUED = {"read": frozenset("dinNptu"), "mapfile": frozenset("dnOsuCc"),
           "readarray": frozenset("dnOsuCc")}
_PLAIN_FLAGS = {"export": "", "readonly": "", "declare": "xrg", "typeset": "xrg"}

_LOOP_VAR = lazy_pattern(r"\b(?:for|select)\s+([A-Za-z_]\w*)")
_DEFAULTING = lazy_pattern(r"\$\{(!?)([A-Za-z_]\w*)(?:\[[^]]*\])?:?=")
_ARITHMETIC = lazy_pattern(r"\(\((.*?)\)\)|\$\[(.*?)\]", re.S)
_SUBSCRIPT = lazy_pattern(r"\w\[([^]]*)\]")
_DOUBLE_BRACKET = lazy_pattern(r"\[\[(.*?)\]\]", re.S)
_OFFSET = lazy_pattern(r"\$\{[A-Za-z_]\w*:([^}]*)\}")
_ASSIGNS = lazy_pattern(r"[^=!<>]=(?!=)|\+\+|--")
_ARITH_TEST = lazy_pattern(r"-(?:eq|ne|lt|le|gt|ge)\b")
_IDENT = lazy_pattern(r"[A-Za-z_]\w*")
_NAME = lazy_pattern(r"[A-Za-z_]\w*")
_QUOTING = lazy_pattern(r"[\"'\\]")


def clobbered(parsed: m.ParsedLine, *, stages: bool = True,
              loops: bool = True) -> frozenset[str]:
    """Names whose values are never taken as known on this line (``EVERY`` among them: none
    is). ``stages=False``: a name a pipeline stage assigns is not among them for that alone
    (the caller keeps such a value to its stage, which runs in a subshell of its own).
    ``loops=False``: nor a loop's variable for being one (the caller reads the loop)."""
    source = parsed.source
    names = set(DYNAMIC)
    if loops and ("for" in source or "select" in source):  # the loop words, before a scan
        names |= set(_LOOP_VAR.findall(source))
    if parsed.shape is not None and "coproc" in source:
        # a coproc before a compound command, blanked for tree-sitter (``prefixed.py``): its
        # NAME (COPROC by default) becomes an array of descriptors
        names.add(EVERY)
    for indirect, name in _DEFAULTING.findall(source):
        names.add(EVERY if indirect else name)  # ${!r:=x} assigns whatever r names
    if "[" in source or "((" in source or "${" in source:
        _arithmetic(source, names)
    for cmd in parsed.commands:
        if cmd.words and cmd.program in SETTERS and declared(cmd) is None:
            _setter(cmd, names)
        elif cmd.program == "time":
            _timed(cmd, names)
        if cmd.assignments and (cmd.program in _SPECIAL if cmd.words else (
                not _sequential(cmd, stages) or "loop" in cmd.nesting)):
            # in a loop, an assignment after a use is seen by the use's next round
            names.update(a.name.partition("[")[0] for a in cmd.assignments)
    return frozenset(names)


def _sequential(cmd: m.SimpleCommand, stages: bool = True) -> bool:
    return not (stages and cmd.pipeline) and not cmd.background and "function" not in cmd.nesting


def _arithmetic(source: str, names: set[str]) -> None:
    """Every name in an arithmetic text that assigns (``D=1``, ``D++``): ``(( ))``, ``$[ ]``,
    subscripts, ``[[ … -eq … ]]`` operands, substring offsets."""
    if "((" in source or "$[" in source:
        for groups in _ARITHMETIC.findall(source):
            for body in groups:
                names.update(_IDENT.findall(body))
    for needle, pattern in (("[", _SUBSCRIPT), ("${", _OFFSET)):
        if needle in source:
            for body in pattern.findall(source):
                if _ASSIGNS.search(body):
                    names.update(_IDENT.findall(body))
    if "[[" in source:
        for body in _DOUBLE_BRACKET.findall(source):
            if _ARITH_TEST.search(body):
                names.update(_IDENT.findall(body))


def _setter(cmd: m.SimpleCommand, names: set[str]) -> None:
    """The names a setter builtin may assign; ``EVERY`` when one is given by an expansion."""
    program = cmd.program or ""
    words = cmd.words[1:]
    if program == "printf":
        words = _printf_names(words)
    elif program == "getopts":
        words = words[1:2]  # getopts OPTSTRING NAME [ARG ...]
    elif program == "wait":
        words = tuple(w for i, w in enumerate(words) if i and words[i - 1].value == "-p")
    valued = _VALUED.get(program, frozenset())
    for index, word in enumerate(words):
        before = words[index - 1].value or "" if index else ""
        takes_value = before[:1] == "-" and before[-1:] in valued
        if _dynamic(word):
            head = word.text.partition("=")[0]
            if takes_value:
                continue  # read -p "$prompt"
            if program not in _VALUED and program != "let" and "$" not in head and \
                    "`" not in head:  # export X="$Y": the name is X
                if (found := _NAME.match(_QUOTING.sub("", head))) is not None:
                    names.add(found.group(0))
                continue
            names.add(EVERY)
            return
        text = word.value or ""
        if text.startswith(("-", "+")) and program != "let":
            letters = text[1:]
            names.update(letters[i:] for i in range(len(letters))
                         if _NAME.fullmatch(letters[i:]))  # read -raD, printf -vD
            continue
        if program == "let":
            names.update(_IDENT.findall(text))
            continue
        found = _NAME.match(_QUOTING.sub("", text))
        if found is not None:
            names.add(found.group(0))


def _timed(cmd: m.SimpleCommand, names: set[str]) -> None:
    """``time D=/`` (``time -p ! D=/``): the parser reads a program ``time``; bash times an
    assignment made in this shell."""
    for word in cmd.words[1:]:
        text = word.text
        if text in ("-p", "--", "!"):
            continue
        head, equals, _ = text.partition("=")
        if not equals or not _NAME.fullmatch(head.partition("[")[0]):
            return
        names.add(head.partition("[")[0])


def _dynamic(word: m.Word) -> bool:
    """Known only when it runs (a word spelled with ``$`` or a backquote counts: the parser
    gives ``export X="$(…)"`` a static value)."""
    return word.value is None or "$" in word.text or "`" in word.text


def _printf_names(words: tuple[m.Word, ...]) -> tuple[m.Word, ...]:
    """``printf -v NAME``'s name word (or ``-vNAME`` itself), else nothing."""
    for index, word in enumerate(words):
        value = word.value
        if value is None or not value.startswith("-") or value == "--":
            break
        if value == "-v":
            return words[index + 1 : index + 2]
        if value.startswith("-v"):
            return (word,)
    return ()


def declared(cmd: m.SimpleCommand) -> tuple[m.Assignment, ...] | None:
    """A declaration that only assigns literal values, as those assignments (``export
    D=build``, ``readonly D=x``, ``declare -x D=y``, ``export D``: none); None for any other
    (a nameref, an integer or case attribute, an array, an expansion, a tilde to expand)."""
    if cmd.program == "printf":
        return _printf_assignment(cmd.words[1:])
    allowed = _PLAIN_FLAGS.get(cmd.program or "")
    if allowed is None:
        return None
    found: list[m.Assignment] = []
    for word in cmd.words[1:]:
        value = word.value
        if value is None or _dynamic(word) or "~" in value or word.expansions:
            return None
        if value[:1] == "-" and value != "--":
            if not value[1:] or not set(value[1:]) <= set(allowed):
                return None
            continue
        name, equals, rest = value.partition("=")
        if not _NAME.fullmatch(name) or rest.startswith("("):
            return None
        if equals:
            found.append(m.Assignment(name, m.Word(rest, rest)))
    return tuple(found)


def _printf_assignment(words: tuple[m.Word, ...]) -> tuple[m.Assignment, ...] | None:
    """``printf -v NAME TEXT`` (a format with no directive nor escape) or ``printf -v NAME %s
    TEXT`` (``-vNAME`` too): the assignment ``NAME=TEXT`` it makes; None for any other."""
    if not words or any(_dynamic(w) or w.expansions for w in words):
        return None
    first = words[0].value or ""
    if first == "-v" and len(words) > 1:
        name, rest = words[1].value or "", [w.value or "" for w in words[2:]]
    elif first.startswith("-v") and len(first) > 2:
        name, rest = first[2:], [w.value or "" for w in words[1:]]
    else:
        return None
    if not _NAME.fullmatch(name) or not rest:
        return None
    if len(rest) == 1 and "%" not in rest[0] and "\\" not in rest[0]:
        value = rest[0]
    elif rest[0] == "%s" and len(rest) == 2:
        value = rest[1]
    else:
        return None
    return (m.Assignment(name, m.Word(shlex.quote(value), value)),)


def readonly(cmd: m.SimpleCommand) -> frozenset[str]:
    """The names a plain declaration makes readonly (``readonly D``, ``declare -r D=x``)."""
    words = [w.value or "" for w in cmd.words[1:]]
    if cmd.program != "readonly" and not any(
            w.startswith("-") and "r" in w for w in words):
        return frozenset()
    return frozenset(w.partition("=")[0] for w in words if not w.startswith("-"))


_SUBSHELLS = frozenset({"subshell", "command_substitution", "process_substitution"})


def subshell_of(nesting: tuple[str, ...]) -> tuple[str, ...] | None:
    """The innermost subshell (as its nesting) a command at ``nesting`` runs in: what it
    assigns or where it moves stays there (``(D=x)``, ``X=$(cd d && pwd)``); None when it runs
    in the line's own shell."""
    for depth in range(len(nesting), 0, -1):
        if nesting[depth - 1] in _SUBSHELLS:
            return nesting[:depth]
    return None
