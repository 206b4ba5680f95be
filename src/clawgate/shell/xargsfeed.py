"""``printf``/``echo`` literals piped into ``xargs``: the command xargs runs, spelled out.

``printf '%s\\0' -rf / | xargs -0 rm`` runs ``rm -rf /``; ``printf su | xargs -0 sudo`` runs
``sudo su``. Only the simplest formats and xargs options that keep one command per input are
followed (``-I``, ``-n``, ``-L`` ... are left as written).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from clawgate.lazyre import lazy_pattern
from clawgate.shell import model as m

_PRINTF_SEP = {"\\0": "\0", "\\n": "\n", "\\t": "\t", " ": " ", "": ""}
_XARGS_FLAGS = frozenset({"-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit"})
_XARGS_VALUED = lazy_pattern(r"-[Ps]\d+|--max-procs=\d+|--max-chars=\d+")
_RESERVED = frozenset("if then else elif fi case esac for select while until do done in "
                      "function time coproc { } ! [[ ]]".split())
Edit = tuple[int, int, str]  # byte start, byte end, replacement text
Argv = Callable[[m.SimpleCommand, dict[str, str]], "list[str] | None"]


def xargs_feed(commands: tuple[m.SimpleCommand, ...], index: int, env: dict[str, str],
               src: bytes, argv: Argv) -> Edit | None:
    """``printf …|xargs CMD`` or ``echo …|xargs CMD`` of known words: the command xargs runs."""
    if index + 1 >= len(commands):
        return None
    feeder, xargs = commands[index], commands[index + 1]
    if (feeder.pipeline, feeder.stage, xargs.stage) != (xargs.pipeline, 0, 1) or \
            len(feeder.pipeline) != 2 or xargs.program != "xargs" or \
            feeder.program not in ("printf", "echo"):
        return None
    left, right = argv(feeder, env), argv(xargs, env)
    if left is None or right is None:
        return None
    printed = _printed(left)
    run = _xargs_run(right)
    if printed is None or run is None:
        return None
    items = _items(printed, null=run[1])
    end = xargs.offset + len(encode(xargs.text) or b"")
    if items is None or src[xargs.offset : end] != encode(xargs.text):
        return None
    prefix = [f"{a.name}={a.value.text}" for a in xargs.assignments]
    return feeder.offset, end, " ".join([*prefix, *(quote(f) for f in [*run[0], *items])])


def _printed(argv: list[str]) -> str | None:
    """What ``printf FORMAT ARGS`` or ``echo ARGS`` writes, for the simplest formats."""
    if argv[0].rsplit("/", 1)[-1] == "echo":
        newline = "\n"
        args = argv[1:]
        while args and args[0] in ("-n", "-E"):
            newline = "" if args.pop(0) == "-n" else newline
        if args and args[0].startswith("-e"):
            return None
        return " ".join(args) + newline
    if len(argv) < 2:
        return None
    fmt, args = argv[1], argv[2:]
    if "%" not in fmt and "\\" not in fmt:
        return fmt
    if not fmt.startswith("%s") or fmt[2:] not in _PRINTF_SEP or not args:
        return None
    return "".join(a + _PRINTF_SEP[fmt[2:]] for a in args)


def _xargs_run(argv: list[str]) -> tuple[list[str], bool] | None:
    """(the command xargs runs, whether it reads NUL-separated items); None for options that
    change how items become commands (``-I``, ``-n``, ``-L`` ...)."""
    i, null = 1, False
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        if arg in ("-0", "--null"):
            null = True
        elif arg in ("-P", "-s"):
            i += 1
        elif arg not in _XARGS_FLAGS and not _XARGS_VALUED.fullmatch(arg):
            if arg.startswith("-") and arg != "-":
                return None
            break
        i += 1
    return (argv[i:] or ["echo"]), null


def _items(printed: str, *, null: bool) -> list[str] | None:
    if null:
        items = printed.split("\0")
        return items[:-1] if items and items[-1] == "" else items
    if any(c in printed for c in "'\"\\\0"):
        return None  # xargs's own quoting is not modelled
    return printed.split()


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
