"""Trees a line makes again: ``rm -rf build.x64.release; cmake -B build.x64.release -S .``.

A script's clean rebuild deletes the directory it is about to make: the build tree it hands
``cmake -B`` or ``meson setup`` or enters to run ``cmake ..`` there (``rm -rf out && mkdir
out && cd out && cmake ..``), the checkout it hands ``git clone``. Such a delete loses
nothing the same line does not bring back, provided what stands there now *is* that kind of
tree (a CMake cache, Meson's private directory, a repository of its own) or nothing at all:
``rm -rf src; cmake -B src`` deletes sources wherever ``src`` holds no build tree, and stays
judged as written. Nothing git tracks goes (``tracked_under``), no symbolic link leads there,
and the tree lies inside the workspace (a delete outside it is judged before this is asked).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from clawgate import fsfacts
from clawgate.records import replace
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context
from clawgate.validators.flags import parse_options
from clawgate.validators.gitindex import tracked_under
from clawgate.validators.ignored import linked
from clawgate.validators.paths import resolve, under

_CMAKE_MODES = ("-E", "-P", "--build", "--install", "--open", "--help", "--version",
                "--find-package", "--workflow")
MAKERS = frozenset({"cmake", "meson", "git"})
# What marks a directory as the tree its maker made (the maker's own first files)
_MARKS = {"cmake": ("CMakeCache.txt",), "meson": ("meson-private",), "git": (".git",)}
# (as ``parse_options`` names them: a long option with its dashes, a short one by its letter)
_CLONE_VALUED = frozenset({"b", "--branch", "o", "--origin", "--depth", "c", "--config",
                           "--reference", "--template", "u", "--upload-pack", "--filter",
                           "--separate-git-dir", "--shallow-since", "--shallow-exclude", "j",
                           "--jobs", "--server-option", "--bundle-uri"})
_MESON_VALUED = frozenset({"--prefix", "--buildtype", "D", "--backend", "--native-file",
                           "--cross-file", "C"})


def made_tree(cmd: SimpleCommand) -> tuple[str, Word] | None:
    """The maker (``cmake``, ``meson``, ``git``) and the word naming the tree ``cmd`` makes
    (``.`` for ``cmake ..`` run inside its build directory), or None when it makes none."""
    words = cmd.words[1:]
    if cmd.program == "cmake":
        for i, word in enumerate(words):
            text = word.value or ""
            if text == "-B" and i + 1 < len(words):
                return "cmake", words[i + 1]
            if text.startswith("-B") and len(text) > 2:
                return "cmake", Word(text[2:], text[2:])
        if any((w.value or "") in _CMAKE_MODES or (w.value or "").startswith(_CMAKE_MODES)
               for w in words):
            return None  # a build, an install, a command or a script: no tree made
        # ``cmake ..`` or ``cmake -S src``: configured in the directory it runs in
        return ("cmake", Word(".", ".")) if words else None
    if cmd.program == "meson":
        return _operand("meson", words, "setup", _MESON_VALUED, 0)
    if cmd.program == "git":
        return _operand("git", words, "clone", _CLONE_VALUED, 1)
    return None


def _operand(maker: str, words: tuple[Word, ...], verb: str, valued: frozenset[str],
             position: int) -> tuple[str, Word] | None:
    if not words or words[0].value != verb:
        return None
    operands = parse_options(words[1:], takes_value=valued).operands
    if len(operands) <= position:
        return None
    return maker, operands[position]


def trees(made: Iterable[tuple[SimpleCommand, str]], ctx: Context) -> dict[str, str]:
    """The absolute trees the line's commands make (each read from the directory it runs in),
    with their makers."""
    found: dict[str, str] = {}
    for cmd, here in made:
        named = made_tree(cmd)
        if named is None or named[1].value is None:
            continue
        where = ctx if here == ctx.cwd else replace(ctx, cwd=here)
        path = resolve(named[1], where).path
        if path is not None:
            found[os.path.normpath(path)] = named[0]
    return found


def without_rebuilt(cmd: SimpleCommand, made: dict[str, str], ctx: Context) -> SimpleCommand:
    """``cmd`` (an ``rm``) without the targets that are a tree ``made`` says the line makes,
    holding nothing but that kind of tree and nothing git tracks."""
    if cmd.program != "rm" or not made:
        return cmd
    gone = {id(w) for w in cmd.words[1:] if _rebuilt(w, made, ctx)}
    if not gone:
        return cmd
    return replace(cmd, words=tuple(w for w in cmd.words if id(w) not in gone))


def _rebuilt(word: Word, made: dict[str, str], ctx: Context) -> bool:
    if word.value is None or word.value.startswith("-") or word.expansions:
        return False
    path = resolve(word, ctx).path
    if path is None:
        return False
    path = os.path.normpath(path)
    maker = made.get(path)
    if maker is None or path == ctx.workspace or not under(path, ctx.workspace):
        return False
    if linked(path, ctx.workspace, entered=True) or tracked_under(path) is not False:
        return False
    if not fsfacts.lexists(path):
        return True
    return fsfacts.isdir(path) and any(fsfacts.lexists(os.path.join(path, mark))
                                       for mark in _MARKS[maker])
