"""Which paths a simple command writes (creates, changes or deletes), read from its argv.

Redirections, ``tee``, the target of ``cp``/``mv``/``ln``/``install``, files edited in place by
``sed -i``, ``--output=`` style options, ``dd of=``, and the operands of programs whose whole
job is to change the files they are given (``rm``, ``touch``, ``chmod``, editors ...).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from clawgate.shell.model import Redirect, SimpleCommand, Word
from clawgate.validators.flags import parse_options

_OUTPUT_OPTIONS = ("--output=", "--output-file=", "--outfile=", "--output-document=",
                   "--log-file=", "--target-directory=")
_SHORT_OUTPUT = frozenset({"sort", "gcc", "cc", "g++", "c++", "clang", "clang++", "curl",
                           "rustc", "ld", "as", "objcopy", "pandoc", "uglifyjs", "javac", "tsc"})
_OPERANDS_WRITTEN = frozenset({"rm", "rmdir", "unlink", "touch", "mkdir", "truncate", "shred",
                               "vim", "vi", "nvim", "nano", "emacs", "pico", "code", "subl",
                               "gedit", "kate", "micro", "ed", "mcedit", "joe"})
_FIRST_IS_MODE = frozenset({"chmod", "chown", "chgrp", "chattr", "setfacl"})
_COPIERS = frozenset({"cp", "mv", "ln", "install", "rsync", "link"})
_DEVICE_DUP = frozenset({">&", "<&", ">&-", "<&-"})


def redirect_targets(cmd: SimpleCommand) -> Iterator[Word]:
    """Files a command's redirections write (``2>&1`` duplicates a descriptor: not a file)."""
    for redirect in cmd.redirects:
        if redirect.writes and redirect.target is not None and not _is_dup(redirect):
            yield redirect.target


def may_write(cmd: SimpleCommand) -> bool:
    """A cheap first look: False means ``write_targets`` would find nothing."""
    return bool(cmd.redirects) or cmd.program in _WRITERS or (
        "--" in cmd.text and "=" in cmd.text)


def write_targets(cmd: SimpleCommand) -> Iterator[Word]:
    """Every word a command writes to as a path, redirections included."""
    if cmd.redirects:
        yield from redirect_targets(cmd)
    program = cmd.program
    if program is None or len(cmd.words) < 2:
        return
    args = cmd.words[1:]
    if "--" in cmd.text:
        for word in args:
            text = word.shown
            if text.startswith(_OUTPUT_OPTIONS):
                yield Word(text.split("=", 1)[1], _after_eq(word), word.quoted, word.expansions)
    handler = _HANDLERS.get(program)
    if handler is not None:
        yield from handler(args)
    elif program in _OPERANDS_WRITTEN:
        yield from parse_options(args).operands
    elif program in _FIRST_IS_MODE:
        operands = parse_options(args, takes_value=frozenset({"--reference"})).operands
        yield from operands[1:]
    elif program in _SHORT_OUTPUT:
        yield from _option_words(args, "o")


def _is_dup(redirect: Redirect) -> bool:
    target = redirect.target
    if redirect.op not in _DEVICE_DUP or target is None:
        return False
    return target.value is not None and (target.value.isdigit() or target.value == "-")


def _after_eq(word: Word) -> str | None:
    return None if word.value is None else word.value.split("=", 1)[1]


def _option_words(args: tuple[Word, ...], letter: str) -> Iterator[Word]:
    """Values of a short option given as the next word (``-o out``) or glued (``-oout``)."""
    for index, word in enumerate(args):
        text = word.shown
        if text == "-" + letter and index + 1 < len(args):
            yield args[index + 1]
        elif text.startswith("-" + letter) and len(text) > 2 and not text.startswith("--"):
            yield Word(text[2:], None if word.value is None else word.value[2:], word.quoted,
                       word.expansions)


def _tee(args: tuple[Word, ...]) -> Iterator[Word]:
    yield from parse_options(args).operands


def _copier(args: tuple[Word, ...]) -> Iterator[Word]:
    options = parse_options(args, aliases={"--target-directory": "t"},
                            takes_value=frozenset({"t", "S", "--suffix", "m", "o", "g"}))
    if options.value("t") is not None:
        yield from _option_words(args, "t")
        return
    operands = options.operands
    if len(operands) >= 2 and ":" not in operands[-1].shown.split("/", 1)[0]:
        yield operands[-1]


def _sed(args: tuple[Word, ...]) -> Iterator[Word]:
    in_place = any(w.shown.startswith(("-i", "--in-place")) or
                   (w.shown.startswith("-") and not w.shown.startswith("--") and "i" in w.shown)
                   for w in args)
    if not in_place:
        return
    options = parse_options(args, aliases={"--expression": "e", "--file": "f"},
                            takes_value=frozenset({"e", "f", "l"}))
    operands = options.operands
    yield from operands if options.has("e", "f") else operands[1:]


def _find(args: tuple[Word, ...]) -> Iterator[Word]:
    """``find DIR ... -delete`` (or ``-exec rm``) changes what lies under its start points."""
    values = [w.shown for w in args]
    if "-delete" not in values and not any(
            v in ("-exec", "-execdir") and i + 1 < len(values) and
            values[i + 1].rsplit("/", 1)[-1] in ("rm", "shred", "unlink", "mv", "chmod", "chown")
            for i, v in enumerate(values)):
        return
    for word, value in zip(args, values, strict=True):
        if value.startswith(("-", "(", "!")):
            if value in ("-L", "-P", "-H"):
                continue
            break
        yield word


def _dd(args: tuple[Word, ...]) -> Iterator[Word]:
    for word in args:
        if word.shown.startswith("of="):
            yield Word(word.shown[3:], _after_eq(word), word.quoted, word.expansions)


def _tar(args: tuple[Word, ...]) -> Iterator[Word]:
    first = args[0].shown if args else ""
    bundle = first if not first.startswith("-") else ""
    options = parse_options(args, aliases={"--directory": "C", "--file": "f", "--extract": "x",
                                           "--create": "c"},
                            takes_value=frozenset({"C", "f"}))
    extracting = options.has("x") or "x" in bundle
    creating = options.has("c") or "c" in bundle
    directory, archive = options.value("C"), options.value("f")
    if bundle and "f" in bundle and archive is None and len(args) > 1:
        archive = args[1].shown  # tar czf out.tgz .: the first operand after the bundle
    if extracting and directory is not None:
        yield Word(directory, directory)
    if creating and archive is not None:
        yield Word(archive, archive)


_HANDLERS: dict[str, Callable[[tuple[Word, ...]], Iterator[Word]]] = {
    "tee": _tee, "sed": _sed, "gsed": _sed, "dd": _dd, "tar": _tar, "find": _find,
    **dict.fromkeys(_COPIERS, _copier),
}
_WRITERS = frozenset(_HANDLERS) | _OPERANDS_WRITTEN | _FIRST_IS_MODE | _SHORT_OUTPUT
