"""Options that move where a program looks for its later operands: tar's ``-C DIR``
(``--directory``) changes directory before it takes the names after it, so ``tar -czf - -C ~
.ssh`` archives ``~/.ssh``, not ``./.ssh``. Each later operand is resolved from the last such
directory before it."""

from __future__ import annotations

from clawgate.records import replace
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context
from clawgate.validators.paths import resolve

# program: (short letter, long name) of its directory option
_DIRECTORY_OPTIONS = {"tar": ("C", "--directory"), "gtar": ("C", "--directory"),
                      "bsdtar": ("C", "--cd")}


def operand_places(cmd: SimpleCommand, ctx: Context) -> dict[int, Context]:
    """For the words after a directory option of ``cmd``: (id of the word, the context whose
    working directory is where the program resolves it). Empty for other programs, and from a
    directory not known here on (those words keep the line's own directory, and the word
    naming the directory is judged as itself)."""
    spec = _DIRECTORY_OPTIONS.get(cmd.program or "")
    if spec is None or len(cmd.words) < 3:
        return {}
    letter, long = spec
    places: dict[int, Context] = {}
    here: Context | None = None
    words = cmd.words
    at = 1
    while at < len(words):
        word = words[at]
        shown = word.shown
        at += 1
        named: Word | None = None
        if shown.startswith("--") and len(shown) > 3 and long.startswith(shown.split("=")[0]):
            named = _glued(word, word.text.find("=")) if "=" in shown else (
                words[at] if at < len(words) else None)
            at += 0 if "=" in shown else 1
        elif shown.startswith("-") and not shown.startswith("--") and letter in shown[1:]:
            glued = shown[shown.index(letter, 1) + 1:]
            named = _glued(word, word.text.find(letter, 1)) if glued else (
                words[at] if at < len(words) else None)
            at += 0 if glued else 1
        elif here is not None:
            places[id(word)] = here
        if named is not None:
            path = resolve(named, here or ctx).path
            here = None if path is None else replace(ctx, cwd=path)
    return places


def _glued(word: Word, cut: int) -> Word | None:
    """The part of ``word`` after the character at ``cut`` (an option's glued value), with
    the word's expansions (``--directory=$HOME``)."""
    if cut < 0:
        return None
    text = word.text[cut + 1:]
    value = word.value.partition(word.text[cut])[2] if word.value is not None else None
    return Word(text, value, word.quoted, word.expansions)
