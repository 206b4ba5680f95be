"""Command substitutions whose output can be known by reading: ``$(echo rm)``, ``$(printf
'\\x72\\x6d')``, ``$(rev <<< mr)``, ``$(echo cm0= | base64 -d)``, ``$(printf rm | tr a-z A-Z)``.

A substitution is computed only when every stage is a printer of literal text (``echo``,
``printf``, an interpreter's one-statement print of a string literal: ``python3 -c
"print('rm')"``, ``node -e "console.log('rm')"``, ``perl -e 'print "rm"'``, ``ruby -e 'puts
"rm"'``; ``mktemp``, which prints the fresh name it made: ``shell/mktemp.py``) or a
here-string, followed by filters modelled exactly (``rev``, ``base64 -d``, ``base32 -d``,
``xxd -r -p``, ``tr`` of plain sets, ``cat``). A nested substitution is computed first, by
the same rules (``$(echo $(echo rm))``, a few levels deep); anything else -- a variable,
another program -- leaves it unknown (None).
"""

from __future__ import annotations

import re
import shlex

from clawgate.shell.expand import expand
from clawgate.shell.xargsfeed import printed

MAX_OUTPUT = 4096
MAX_NESTING = 4
_OPERATOR = frozenset("|<>;&()")
_GLOB = re.compile(r"[*?\[]")
_COMMENT = re.compile(r"(?:^|[\s;&|()<>])#")  # shlex gives an operator as a token of these alone
_PYTHONS = frozenset({"python", "python2", "python3"})
_PRINTERS = frozenset({"node", "nodejs", "perl", "ruby"})
# One print of one plain string literal: no interpolation (``$``, ``@``, ``#{``), no escapes.
_PRINTED = re.compile(r"\s*(?:console\.log|print|puts)\s*(\(?)\s*(['\"])([^'\"\\$@#`]*)\2"
                      r"\s*(\)?)\s*;?\s*")


def evaluate(body: str, _depth: int = 0) -> str | None:
    """The output of ``$(body)`` with trailing newlines removed, or None when unknown."""
    if len(body) > MAX_OUTPUT:
        return None
    if ("$" in body or "`" in body) and _expands(body):
        inlined = _inline(body, _depth)
        if inlined is None:
            return None
        body = inlined
    if _COMMENT.search(body):  # a comment, or a word starting with a quoted "#": not read
        return None
    if "~" in body:
        tilded = _tildes(body)
        if tilded is None:
            return None
        body = tilded
    try:
        lexer = shlex.shlex(body, posix=True, punctuation_chars="|<>;&()")
        lexer.whitespace_split = True
        lexer.commenters = ""  # "#" inside a word is text to the shell (echo a#b)
        tokens = list(lexer)
    except ValueError:
        return None
    stages: list[list[str]] = [[]]
    for token in tokens:
        if token == "|":
            stages.append([])
        elif token == "<<<" or not set(token) <= _OPERATOR:
            # the lexer cuts operators apart from unquoted words: a token with other characters
            # is a word, its operator characters were quoted (``printf %s 'a; b'``, print('rm'))
            stages[-1].append(token)
        else:
            return None
    text: str | None = None
    for stage in stages:
        text = _stage(stage, text)
        if text is None:
            return None
    return None if text is None else text.rstrip("\n")


_WORD_START = frozenset(" \t\n|;&(<>")
_WORD_END = frozenset("/ \t\n|;&)<>")


def _tildes(body: str) -> str | None:
    """``body`` with each unquoted ``~`` or ``~/…`` that starts a word replaced by the home
    directory, as bash expands it before the command runs (``echo ~`` prints the home's
    path, not a tilde); None for ``~user``, ``~+`` and ``~-``, which are not read here."""
    import os

    home = os.path.expanduser("~")
    out: list[str] = []
    single = double = False
    i = 0
    while i < len(body):
        char = body[i]
        if single:
            single = char != "'"
        elif char == "\\":
            out.append(body[i:i + 2])
            i += 2
            continue
        elif char == "'" and not double:
            single = True
        elif char == '"':
            double = not double
        elif char == "~" and not double and (i == 0 or body[i - 1] in _WORD_START):
            if i + 1 < len(body) and body[i + 1] not in _WORD_END:
                return None
            if not home.startswith("/"):
                return None
            out.append(shlex.quote(home))
            i += 1
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _expands(body: str) -> bool:
    """Whether ``body`` has a ``$`` or a backtick outside single quotes: text the shell
    expands (``echo 'rm -rf $HOME'`` prints ``$HOME`` as it stands)."""
    single = double = False
    i = 0
    while i < len(body):
        char = body[i]
        if single:
            single = char != "'"
        elif char == "\\":
            i += 1
        elif char == "'" and not double:
            single = True
        elif char == '"':
            double = not double
        elif char in "$`":
            return True
        i += 1
    return False


def _inline(body: str, depth: int) -> str | None:
    """``body`` with each nested substitution replaced by its computed output, or None when one
    cannot be computed or another expansion (a variable) remains."""
    if depth >= MAX_NESTING:
        return None
    out: list[str] = []
    i, single, double = 0, False, False
    while i < len(body):
        char = body[i]
        if single:
            single = char != "'"
        elif char == "\\":
            out.append(body[i:i + 2])
            i += 2
            continue
        elif char == "'" and not double:
            single = True
        elif char == '"':
            double = not double
        elif (body.startswith("$(", i) and not body.startswith("$((", i)) or char == "`":
            tick = char == "`"
            end = body.find("`", i + 1) if tick else _closing(body, i + 2)
            value = evaluate(body[i + (1 if tick else 2):end], depth + 1) if end > 0 else None
            if value is None or (not double and _GLOB.search(value)):
                return None  # (unquoted: split into fields, each globbed)
            out.append(_inserted(value, double) if double else _fields(value))
            i = end + 1
            continue
        elif char == "$":
            return None
        out.append(char)
        i += 1
    return "".join(out)


def _interpreter_print(argv: list[str]) -> str | None:
    """What ``python3 -c "print('rm')"`` and its kin print, or None for any other code."""
    if len(argv) != 3 or argv[1] not in ("-c", "-e"):
        return None
    program = argv[0].rsplit("/", 1)[-1]
    if (program in _PYTHONS and argv[1] == "-c") or (program in _PRINTERS and argv[1] == "-e"):
        match = _PRINTED.fullmatch(argv[2])
        if match is not None and bool(match.group(1)) == bool(match.group(4)):
            return match.group(3) + "\n"
    return None


def _stage(argv: list[str], stdin: str | None) -> str | None:
    if "<<<" in argv:
        at = argv.index("<<<")
        if at + 2 != len(argv) or stdin is not None:
            return None
        stdin, argv = argv[at + 1] + "\n", argv[:at]
    if not argv:
        return None
    if argv[0] in ("echo", "printf"):
        return printed(argv)
    if stdin is None and argv[0][-1:].isalnum() and len(argv) == 3:
        return _interpreter_print(argv)
    if stdin is None:
        if argv[0] == "mktemp":
            from clawgate.shell.mktemp import fresh_path

            return fresh_path(argv)
        return None
    return _filter(argv, stdin)


def _filter(argv: list[str], text: str) -> str | None:
    program, args = argv[0], argv[1:]
    if (program == "cat" and not args) or program == "tee":
        return text  # tee copies its input to standard output, whatever files it also writes
    if program == "rev" and not args:
        return "\n".join(line[::-1] for line in text.split("\n"))
    if program in ("base64", "base32") and args and all(a in ("-d", "--decode", "-D", "-i")
                                                        for a in args):
        return _decode(program, text)
    if program == "xxd" and sorted(args) in (["-p", "-r"], ["-rp"], ["-pr"]):
        try:
            return bytes.fromhex("".join(text.split())).decode("utf-8")
        except ValueError:
            return None
    if program == "tr" and len(args) == 2 and not any(a.startswith("-") for a in args):
        return _translate(text, _set(args[0]), _set(args[1]))
    return None


def _decode(program: str, text: str) -> str | None:
    import base64
    import binascii

    try:
        data = "".join(text.split())
        raw = base64.b64decode(data) if program == "base64" else base64.b32decode(data)
        return raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def _set(spec: str) -> str | None:
    """A ``tr`` set of plain characters and ranges (``a-z``), or None for classes and escapes."""
    if "[" in spec or "\\" in spec:
        return None
    out: list[str] = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-" and spec[i] <= spec[i + 2]:
            out.extend(chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1))
            i += 3
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)


def _translate(text: str, source: str | None, target: str | None) -> str | None:
    if not source or not target:
        return None
    target = target + target[-1] * max(0, len(source) - len(target))
    return text.translate({ord(a): b for a, b in zip(source, target, strict=False)})


def computed(text: str, env: dict[str, str] | None = None, *,
             split: bool = True) -> list[str] | None:
    """The fields of a word whose substitutions can all be computed (variables from ``env``),
    or None. ``split=False`` (an assignment's value): one field, no word splitting."""
    if len(text) > MAX_OUTPUT:
        return None
    out: list[str] = []
    i, double = 0, False
    while i < len(text):
        quoted = double or not split  # an assignment's value is never split, quoted or not
        if text[i] == '"':
            double = not double
        elif text[i] == "'" and not double:
            end = text.find("'", i + 1)
            if end < 0:
                return None
            out.append(text[i:end + 1])
            i = end + 1
            continue
        elif text[i] == "\\":
            out.append(text[i:i + 2])
            i += 2
            continue
        elif (text.startswith("$(", i) and not text.startswith("$((", i)) or text[i] == "`":
            tick = text[i] == "`"  # `echo rm`: the older spelling of $(echo rm)
            end = text.find("`", i + 1) if tick else _closing(text, i + 2)
            value = evaluate(text[i + (1 if tick else 2):end]) if end > 0 else None
            if value is None:
                return None
            if not quoted and len(value.split()) > 1:  # split into words: whole word only
                return value.split() if (i, end) == (0, len(text) - 1) else None
            out.append(_inserted(value, quoted) if double or split else shlex.quote(value))
            i = end + 1
            continue
        out.append(text[i])
        i += 1
    return expand("".join(out), env or {}, split=split)


def _closing(text: str, start: int) -> int:
    depth = 1
    for j in range(start, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


def _fields(value: str) -> str:
    """An unquoted substitution's output written back as the words word splitting makes of
    it (``printf %c $(echo 'r m')`` prints ``rm``): one word per field of white space."""
    return " ".join(shlex.quote(field) for field in value.split())


def _inserted(value: str, quoted: bool) -> str:
    """A substitution's output written back as shell text with the same meaning: inside double
    quotes one literal; outside, one word here (globbing is not modelled)."""
    if quoted:
        return "".join("\\" + c if c in '\\$`"' else c for c in value)
    return shlex.quote(value.strip()) if value.strip() else ""
