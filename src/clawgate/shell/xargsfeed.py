"""``printf``/``echo`` literals piped into ``xargs`` or into a shell: the command that runs,
spelled out.

``printf '%s\\0' -rf / | xargs -0 rm`` runs ``rm -rf /``; ``printf su | xargs -0 sudo`` runs
``sudo su``; ``echo / | xargs -I{} rm -rf {}`` runs ``rm -rf /``; ``echo ~ | xargs rm -rf``
runs ``rm -rf ~``; ``printf 'rm -rf ~' | sh`` runs ``sh -c 'rm -rf ~'``. Only the simplest
formats and xargs options are followed (``-n``, ``-L`` ... are left as written).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from itertools import pairwise

from clawgate.lazyre import lazy_pattern
from clawgate.shell import model as m
from clawgate.shell.words import decode_ansi_c

_PRINTF_SEP = {"\\0": "\0", "\\n": "\n", "\\t": "\t", " ": " ", "": ""}
_XARGS_FLAGS = frozenset({"-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit"})
_XARGS_VALUED = lazy_pattern(r"-[Ps]\d+|--max-procs=\d+|--max-chars=\d+")
_TILDE = lazy_pattern(r"~(?:/[\w./-]*)?")
_HOME = "\ue000"  # stands for the home directory a feeder's ``~`` expands to
RAW = _RAW = "\ue001"  # marks an item already written as shell text
_FEEDERS = frozenset({"printf", "echo", "cat", "tee", "find", "ls"})
MAX_ITEMS = 16  # commands spelled out for ``xargs -I``; the rest add nothing new
# Programs that read the program they run from standard input, and how to give it inline.
STDIN_CODE = {"sh": "-c", "bash": "-c", "dash": "-c", "zsh": "-c", "ksh": "-c", "mksh": "-c",
              "ash": "-c", "yash": "-c", "posh": "-c", "python": "-c", "python3": "-c",
              "python2": "-c", "perl": "-e", "ruby": "-e", "node": "-e"}
# Interpreters that read their program from standard input and take none inline by a flag
# this table knows: the printed text is given as the here-string it amounts to
# (``printf CODE | jshell -q`` is ``jshell -q <<< CODE``).
STDIN_HERESTRING = frozenset({"jshell", "tclsh", "wish", "expect", "lua", "luajit", "php",
                              "julia", "irb", "guile", "racket", "sbcl", "clisp", "gosh",
                              "csi", "octave", "octave-cli", "R", "groovysh", "scala",
                              "kotlinc", "erl", "elixir", "iex", "ghci", "swift"})
# Files that are standard input, as a program operand (``bash /dev/stdin``).
STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
_STDIN_OPERAND = [[f] for f in STDIN_FILES]
# Consumers that run each line they read as a command line: ``source``/``.`` of standard
# input, and ``parallel`` with no command template.
_LINE_RUNNERS = frozenset({"source", ".", "parallel"})
_RESERVED = frozenset("if then else elif fi case esac for select while until do done in "
                      "function time coproc { } ! [[ ]]".split())
Edit = tuple[int, int, str]  # byte start, byte end, replacement text
Argv = Callable[[m.SimpleCommand, dict[str, str]], "list[str] | None"]


def xargs_feed(commands: tuple[m.SimpleCommand, ...], index: int, env: dict[str, str],
               src: bytes, argv: Argv) -> Edit | None:
    """``printf …|xargs CMD`` or ``echo …|xargs CMD`` of known words: the command xargs runs;
    or ``printf …|sh`` (a shell or interpreter reading its program): the program inline."""
    pair = _pair(commands, index, src)
    if pair is None:
        return None
    feeder, consumer, end = pair
    left, right = _feeder_argv(feeder, env, argv), argv(consumer, env)
    if feeder.program == "find" and consumer.program == "xargs":
        return _found_items(feeder, consumer, end, right)
    if feeder.program == "ls":
        return _listed_items(feeder, consumer, end, right)
    text = _document(feeder, consumer) if feeder.program in ("cat", "tee") else (
        printed(left) if left is not None else None)
    if text is None or right is None:
        return None
    if consumer.program != "xargs":
        end = _past_document(feeder, src, end)
        code = text.replace(_HOME, "~").rstrip("\n")  # as code, ~ is expanded where it runs
        if consumer.program in _LINE_RUNNERS:  # source /dev/stdin, parallel: lines are commands
            if right[1:] != ([] if consumer.program == "parallel" else right[1:2]) or (
                    consumer.program != "parallel" and right[1:] not in _STDIN_OPERAND):
                return None
            return feeder.offset, end, "eval " + quote(code)
        if consumer.program in STDIN_HERESTRING:
            if any(not a.startswith("-") for a in right[1:]):
                return None  # a script operand: the text is that program's input, not code
            return feeder.offset, end, " ".join([*map(quote, right), "<<<", quote(code)])
        flag = STDIN_CODE.get(consumer.program or "")
        if flag is None or any(a not in STDIN_FILES and (
                not a.startswith("-") or "c" in a or "e" in a) for a in right[1:]):
            return None
        if flag == "-c" and code.startswith(("-", "+")) and not (consumer.program or "").startswith(
                "python"):  # a shell reading its program runs it; -c would take it for options
            code = " " + code
        return feeder.offset, end, " ".join([quote(right[0]), flag, quote(code)])
    run = _xargs_run(right)
    items = _items(text, null=run[1], lines=run[2] is not None) if run else None
    if run is None or items is None:
        return None
    prefix = [f"{a.name}={a.value.text}" for a in consumer.assignments]
    head = " ".join(prefix + [quote(f) for f in run[0]])
    if run[2] is None:
        return feeder.offset, end, " ".join([head, *(_item(f) for f in items)]).strip()
    token = run[2]
    lines = [" ".join(prefix + [_replaced(f, token, item) for f in run[0]])
             for item in items[:MAX_ITEMS]]
    return feeder.offset, end, "; ".join(lines) if lines else head


def _pair(commands: tuple[m.SimpleCommand, ...], index: int,
          src: bytes) -> tuple[m.SimpleCommand, m.SimpleCommand, int] | None:
    """(feeder, consumer, end of the consumer in ``src``) for a two-stage pipeline from a
    printer into xargs, a shell or an interpreter."""
    feeder = commands[index]
    inside = feeder.offset + len(encode(feeder.text) or b"")
    after = index + 1  # the commands of the feeder's own substitutions come first: passed over
    while after < len(commands) and commands[after].offset < inside:
        after += 1
    if after >= len(commands):
        return None
    consumer = commands[after]
    if (feeder.pipeline, feeder.stage, consumer.stage) != (consumer.pipeline, 0, 1) or \
            len(feeder.pipeline) != 2 or feeder.program not in _FEEDERS or (
            consumer.program != "xargs" and consumer.program not in STDIN_CODE
            and consumer.program not in _LINE_RUNNERS
            and consumer.program not in STDIN_HERESTRING) or (
            consumer.redirects and consumer.program != "xargs"):
        return None
    end = consumer.offset + len(encode(consumer.text) or b"")
    if src[consumer.offset : end] != encode(consumer.text):
        return None
    return feeder, consumer, end


def _found_items(feeder: m.SimpleCommand, consumer: m.SimpleCommand, end: int,
                 right: list[str] | None) -> Edit | None:
    """``find ROOT … | xargs CMD``: the items are paths under each ROOT, names unknown:
    ``find / … | xargs rm -rf`` runs ``rm -rf /"$XARGS_ITEM"``."""
    run = _xargs_run(right) if right is not None else None
    roots = find_roots(feeder.words)
    if run is None or roots is None or not prints_paths(feeder.words):
        return None
    tail = "/" if only_directories(feeder.words) else ""
    items = [_RAW + r.rstrip("/") + '/"$XARGS_ITEM"' + tail for r in roots]
    head = [quote(f) for f in run[0]]
    if run[2] is None:
        return feeder.offset, end, " ".join([*head, *(_item(i) for i in items)])
    return feeder.offset, end, "; ".join(
        " ".join(_replaced(f, run[2], item) for f in run[0]) for item in items[:MAX_ITEMS])


def _listed_items(feeder: m.SimpleCommand, consumer: m.SimpleCommand, end: int,
                  right: list[str] | None) -> Edit | None:
    """``ls PATHS | xargs CMD``: CMD run on the paths ls prints (``shell/lsfeed.py``)."""
    from clawgate.shell.lsfeed import listed_operands

    run = _xargs_run(right) if right is not None and consumer.program == "xargs" else None
    items = listed_operands(feeder) if run is not None else None
    if run is None or items is None:
        return None
    head = [quote(f) for f in run[0]]
    if run[2] is None:
        return feeder.offset, end, " ".join([*head, *(_item(i) for i in items)])
    return feeder.offset, end, "; ".join(
        " ".join(_replaced(f, run[2], item) for f in run[0]) for item in items[:MAX_ITEMS])


def find_roots(words: tuple[m.Word, ...]) -> list[str] | None:
    """The starting points of ``find`` (its words up to the first option or test), as shell
    text (``~`` kept as written, ``.`` when none is given); None when one is known only at run
    time or is a pattern."""
    roots: list[str] = []
    for word in words[1:]:
        if word.value is None or word.expansions & {m.GLOB, m.BRACE}:
            return None
        if word.value.startswith(("-", "(", "!", ")")):
            if roots or word.value not in ("-H", "-L", "-P"):
                break
            continue
        tilde = m.TILDE in word.expansions and _TILDE.fullmatch(word.text)
        roots.append(word.text if tilde else shlex.quote(word.value.rstrip("/") or "/"))
    return roots or ["."]


# find options after which what it prints is not (only) the paths it found under its
# starting points: formatted output, listings, commands' own output, links followed out.
_NOT_PATHS = frozenset({"-printf", "-fprintf", "-fprint", "-fprint0", "-ls", "-fls", "-exec",
                        "-execdir", "-ok", "-okdir", "-L", "-H", "-follow"})


def prints_paths(words: tuple[m.Word, ...]) -> bool:
    """``find`` prints only paths under its starting points, each starting with one."""
    return all(w.value is not None and w.value not in _NOT_PATHS for w in words[1:])


def only_directories(words: tuple[m.Word, ...]) -> bool:
    """``find`` selects directories only: a ``-type d`` test in an expression without ``-o``,
    ``,`` or negation (each item it hands on is then a directory)."""
    values = [w.value for w in words[1:]]
    if any(v is None or v in ("-o", "-or", ",", "!", "-not") for v in values):
        return False
    return any(a == "-type" and b == "d" for a, b in pairwise(values))


def _document(feeder: m.SimpleCommand, consumer: m.SimpleCommand) -> str | None:
    """What ``cat`` prints of a literal here-string or here-document given as its only input,
    and ``tee`` too, whatever files it also copies it to (``tee log <<< TEXT | sh``). (A
    here-document's body is taken out of the rewritten line where ``_past_document`` can find
    its end; else it stays after the consumer, read as commands, which is what a shell makes
    of it, so only shells and interpreters take one.)"""
    docs = feeder.redirects
    if (feeder.program == "cat" and len(feeder.words) != 1) or len(docs) != 1 or \
            not docs[0].feeds_input:
        return None
    doc = docs[0]
    if doc.op == "<<<":
        return None if doc.target is None or doc.target.value is None else doc.target.value + "\n"
    if doc.heredoc is None or consumer.program == "xargs" or (
            doc.heredoc_expands and ("$" in doc.heredoc or "`" in doc.heredoc)):
        return None
    return doc.heredoc


def _past_document(feeder: m.SimpleCommand, src: bytes, end: int) -> int:
    """Where the feeder's here-document ends (after its delimiter line), when nothing but
    blank space follows the consumer on its line and the body stands there as read: the
    rewritten line puts the body in as the program's code, so the body must not stay behind
    as lines of its own (Python read as shell commands). Else ``end``."""
    doc = feeder.redirects[0] if feeder.redirects else None
    if doc is None or doc.op != "<<" or doc.heredoc is None or doc.target is None:
        return end
    newline = src.find(b"\n", end)
    body = encode(doc.heredoc)
    if newline < 0 or src[end:newline].strip() or body is None or \
            not src.startswith(body, newline + 1):
        return end
    start = newline + 1 + len(body)
    stop = src.find(b"\n", start)
    stop = len(src) if stop < 0 else stop
    delimiter = doc.target.text.strip("'\"")
    return stop if src[start:stop].decode("utf-8", "surrogateescape") == delimiter else end


def _feeder_argv(feeder: m.SimpleCommand, env: dict[str, str], argv: Argv) -> list[str] | None:
    """The printer's argv; a plain ``~`` or ``~/path`` word stands for the home directory."""
    tildes = [w for w in feeder.words if m.TILDE in w.expansions]
    if not tildes:
        return argv(feeder, env)
    if any(w.expansions != {m.TILDE} or not _TILDE.fullmatch(w.text) for w in tildes):
        return None
    plain = m.SimpleCommand(feeder.text, tuple(
        m.Word(w.text, _HOME + w.text[1:]) if m.TILDE in w.expansions else w
        for w in feeder.words))
    return argv(plain, env)


def _item(field: str) -> str:
    if field.startswith(_RAW):
        return field[1:]
    if field.startswith(_HOME):
        return "~" + (quote(field[1:]) if len(field) > 1 else "")
    return quote(field)


def _replaced(field: str, token: str, item: str) -> str:
    """One template word with the replace string put in (``-I{}``)."""
    if token not in field:
        return quote(field)
    return "".join(_item(item) if part is None else quote(part) if part else ""
                   for part in _pieces(field, token))


def _pieces(field: str, token: str) -> list[str | None]:
    out: list[str | None] = []
    for n, part in enumerate(field.split(token)):
        if n:
            out.append(None)
        out.append(part)
    return out


def printed(argv: list[str]) -> str | None:
    """What ``printf FORMAT ARGS`` or ``echo ARGS`` writes, for the simplest formats; None
    where bash's reading is not modelled (``\\c``, echo's ``\\0NNN``, ``printf -v``)."""
    if argv[0].rsplit("/", 1)[-1] == "echo":
        return _echoed(argv[1:])
    args = argv[1:]
    if args[:1] == ["--"]:  # printf -- FORMAT: the end of printf's options
        args = args[1:]
    if not args or (args[0].startswith("-") and args[0] != "-"):
        return None  # printf -v VAR: the output goes to a variable
    fmt, args = args[0], args[1:]
    if "\\c" in fmt:
        return None
    if "%" not in fmt.replace("%%", ""):
        return decode_ansi_c(fmt.replace("%%", "%")) if "\\" in fmt else fmt.replace("%%", "%")
    if fmt.startswith("%s") and fmt[2:] in _PRINTF_SEP and args:
        return "".join(a + _PRINTF_SEP[fmt[2:]] for a in args)
    return _formatted(fmt, args)


_SPEC = lazy_pattern(r"%(.)")
# Escapes whose meaning in echo -e and printf's %b (and \c in a format) differs from $'…'
_ECHO_ESCAPE = lazy_pattern(r"\\[c0-9]")
_ECHO_OPTION = lazy_pattern(r"-[neE]+")


def _echoed(args: list[str]) -> str | None:
    """What bash's ``echo ARGS`` writes: leading words of only ``n``, ``e`` and ``E`` letters
    (``-ne``, ``-e -n``) are its options, applied in order; any other word is printed."""
    newline, escapes = "\n", False
    while args and _ECHO_OPTION.fullmatch(args[0]):
        for letter in args.pop(0)[1:]:
            newline = "" if letter == "n" else newline
            escapes = letter == "e" if letter != "n" else escapes
    text = " ".join(args)
    if not escapes:
        return text + newline
    return None if _ECHO_ESCAPE.search(text) else decode_ansi_c(text) + newline


def _formatted(fmt: str, args: list[str]) -> str | None:
    """``printf '%c%c' r m``: formats of %s, %c and %b only (no widths, no escapes in the
    format), reused while arguments remain, as printf does."""
    if "\\" in fmt or not all(s.group(1) in "scb%" for s in _SPEC.finditer(fmt)):
        return None
    out: list[str] = []
    queue = list(args)
    for _ in range(max(1, len(args))):
        pos = 0
        for found in _SPEC.finditer(fmt):
            out.append(fmt[pos:found.start()])
            pos = found.end()
            kind = found.group(1)
            if kind == "%":
                out.append("%")
                continue
            arg = queue.pop(0) if queue else ""
            if kind == "b" and _ECHO_ESCAPE.search(arg):
                return None
            out.append(arg[:1] if kind == "c" else decode_ansi_c(arg) if kind == "b" else arg)
        out.append(fmt[pos:])
        if not queue:
            break
    return "".join(out)


def _xargs_run(argv: list[str]) -> tuple[list[str], bool, str | None] | None:
    """(the command xargs runs, whether it reads NUL-separated items, the replace string of
    ``-I``/``-i``/``--replace``); None for options that change how items become commands
    (``-n``, ``-L`` ...)."""
    i, null, token = 1, False, None
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        if arg in ("-0", "--null"):
            null = True
        elif arg in ("-P", "-s", "-I"):
            token = argv[i + 1] if arg == "-I" and i + 1 < len(argv) else token
            i += 1
        elif arg.startswith(("-I", "--replace=", "-i")) or arg == "--replace":
            token = arg.partition("=")[2] if arg.startswith("--") else arg[2:]
            token = token or "{}"
        elif len(arg) > 2 and arg[0] == "-" and set(arg[1:]) <= set("0rtx"):
            null = null or "0" in arg  # a cluster of flags: -0r
        elif arg not in _XARGS_FLAGS and not _XARGS_VALUED.fullmatch(arg):
            if arg.startswith("-") and arg != "-":
                return None
            break
        i += 1
    return (argv[i:] or ["echo"]), null, token


def _items(text: str, *, null: bool, lines: bool = False) -> list[str] | None:
    if null:
        items = text.split("\0")
        return items[:-1] if items and items[-1] == "" else items
    if any(c in text for c in "'\"\\\0"):
        return None  # xargs's own quoting is not modelled
    if lines:  # -I: one item a line, leading blanks dropped
        return [line.lstrip(" \t") for line in text.split("\n") if line.strip(" \t")]
    return text.split()


def quote(field: str) -> str:
    if not field.isprintable():
        body = "".join(_escaped(c) if not c.isprintable() else "\\" + c if c in "\\'" else c
                       for c in field)
        return f"$'{body}'"
    if field in _RESERVED or "=" in field:
        return "'" + field.replace("'", "'\\''") + "'"
    return shlex.quote(field)


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code < 0x10000 else \
        f"\\U{code:08x}"


def encode(text: str) -> bytes | None:
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return None
