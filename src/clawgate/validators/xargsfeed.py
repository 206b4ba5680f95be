"""What ``xargs`` and ``parallel`` run once their input is put into the command template.

The input is known when it is a literal here-string or here-document (``xargs rm -rf <<< /``)
or literal ``:::`` arguments (``parallel rm -rf ::: /``): those items are put in. Otherwise
(a pipe, ``-a FILE``, ``< FILE``, ``::::``) every item stands as ``"$XARGS_ITEM"``, a word only
known at run time: ``ls / | xargs -I{} rm -rf /{}`` is checked as ``rm -rf /"$XARGS_ITEM"``,
which is still under ``/``. (``printf``/``echo`` literals piped in are spelled out by
``shell/xargsfeed.py``.)
"""

from __future__ import annotations

import shlex

from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import TILDE, VARIABLE, SimpleCommand, Word

ITEM = '"$XARGS_ITEM"'  # one input item, only known at run time
MAX_ITEMS = 16  # commands spelled out; the rest add nothing new
_HOLDER = lazy_pattern(r"\{\d*(?:\.|/|//|/\.|#|%)?\}")  # {} {.} {/} {2} ...


def fed_lines(template: tuple[Word, ...], token: str | None,
              items: list[str] | None) -> list[str]:
    """The command lines the template runs: one per item with a replace string (``-I{}``),
    else the items appended to one line; unknown items stand as ``ITEM``."""
    texts = [shlex.quote(i) for i in items[:MAX_ITEMS]] if items is not None else [ITEM]
    if token is None:
        return [" ".join([*(w.text for w in template), *texts])]
    return [" ".join(_put(w, token, text) for w in template) for text in texts]


def found_lines(template: tuple[Word, ...], roots: list[str], directories: bool) -> list[str]:
    """``find ROOT … -exec CMD {} +``: CMD once per root, ``{}`` put in as an item under it
    (``ROOT/"$XARGS_ITEM"``, with a trailing ``/`` when find hands on directories only):
    ``find ~/.ssh -exec cat {} +`` reads ``~/.ssh/"$XARGS_ITEM"``."""
    tail = "/" if directories else ""
    return item_lines(template, [f"{root.rstrip('/')}/{ITEM}{tail}" for root in roots])


def item_lines(template: tuple[Word, ...], items: list[str]) -> list[str]:
    """The command line once per item, the item put in for ``{}`` (shell text: quote a
    literal path before)."""
    return [" ".join(_put(w, "{}/" if w.value == "{}/" else "{}", item) for w in template)
            for item in items[:MAX_ITEMS]]


def _put(word: Word, token: str, item: str) -> str:
    value = word.value
    if value is None or token not in value:
        return word.text
    pieces = value.split(token)
    return item.join(shlex.quote(p) if p else "" for p in pieces)


def here_items(cmd: SimpleCommand, lines: bool) -> list[str] | None:
    """The items a literal here-string or here-document gives xargs; None when the input is
    anything else or is not plain (quotes, backslashes: xargs's own quoting)."""
    docs = [r for r in cmd.redirects if r.feeds_input or r.op == "<"]
    if len(docs) != 1 or cmd.upstream:
        return None
    doc = docs[0]
    text = doc.heredoc if doc.op in ("<<", "<<-") else (
        doc.target.value if doc.op == "<<<" and doc.target is not None else None)
    if text is None or (doc.heredoc_expands and "$" in text) or any(c in text for c in "'\"\\"):
        return None
    if lines:
        return [line.lstrip(" \t") for line in text.split("\n") if line.strip()]
    return text.split()


_PASTABLE = frozenset({TILDE, VARIABLE})


def _argument(word: Word) -> str:
    """A ``:::`` argument as text for the command line parallel's shell runs: its value, or,
    for ``~``, ``~/x``, ``$HOME/x`` (expanded by the line's shell, and alike by that one),
    the word as written; anything else stands as ``ITEM``."""
    if word.expansions and word.expansions <= _PASTABLE and "$(" not in word.text and \
            "`" not in word.text:
        return word.text
    return shlex.quote(word.value) if word.value is not None else ITEM


def parallel_lines(code: str, words: tuple[Word, ...]) -> list[str]:
    """``parallel CODE ::: a b`` runs CODE once per argument, put in for ``{}`` (and its
    variants) or appended; arguments read from files (``::::``) or stdin stand as ``ITEM``."""
    args: list[str] = []
    mode = ""
    for word in words:
        text = word.shown
        if text in (":::", ":::+", "::::", "::::+"):
            mode = text.rstrip("+")
            if mode == "::::":
                args.append(ITEM)
        elif mode == ":::":
            args.append(_argument(word))
    out: list[str] = []
    for arg in args[:MAX_ITEMS] or [ITEM]:
        placed = _HOLDER.sub(arg.replace("\\", "\\\\"), code)
        out.append(placed if placed != code else f"{code} {arg}")
    return out
