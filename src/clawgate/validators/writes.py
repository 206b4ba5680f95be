"""Which paths a simple command writes (creates, changes or deletes), read from its argv.

What a program's options and operands write comes from the program catalog
(``clawgate.programs``: ``-o FILE``, ``--output=FILE`` and its prefixes, ``tee``'s operands,
the last operand of ``cp``, sed ``w`` and awk ``print >`` in scripts ...). Left here, as code:
redirections, the ``--output=``-style options most programs share, and the three argv shapes
a table cannot say: ``dd of=``, tar's old-style bundles (``tar czf out.tgz``) and the start
points ``find -delete`` acts on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from clawgate import programs
from clawgate.shell.model import Redirect, SimpleCommand, Word
from clawgate.validators.flags import parse_options
from clawgate.validators.shapes import ANY, OPTIONS, REDIRECT

_OUTPUT_OPTIONS = ("--output=", "--output-file=", "--outfile=", "--output-document=",
                   "--log-file=", "--target-directory=")
_DEVICE_DUP = frozenset({">&", "<&", ">&-", "<&-"})
_writers: list[frozenset[str]] = []  # programs that may write, worked out once


def redirect_targets(cmd: SimpleCommand) -> Iterator[Word]:
    """Files a command's redirections write (``2>&1`` duplicates a descriptor: not a file)."""
    for redirect in cmd.redirects:
        if redirect.writes and redirect.target is not None and not _is_dup(redirect):
            yield redirect.target


def may_write(cmd: SimpleCommand) -> bool:
    """A cheap first look: False means ``write_targets`` would find nothing."""
    return bool(cmd.redirects) or cmd.program in _writer_programs() or (
        "--" in cmd.text and "=" in cmd.text)


def write_shapes(program: str | None) -> int:
    """The shapes (``shapes.py``) of commands running ``program`` that ``may_write``: every
    one for a program that writes, else a redirection or a ``--opt=`` in the text."""
    return ANY if program in _writer_programs() else REDIRECT | OPTIONS


def writer_programs() -> frozenset[str]:
    """The programs that write files of their own (not by a redirection)."""
    return _writer_programs()


def _writer_programs() -> frozenset[str]:
    if not _writers:
        _writers.append(programs.writers() | frozenset(_HANDLERS))
    return _writers[0]


def write_targets(cmd: SimpleCommand) -> tuple[Word, ...]:
    """Every word a command writes to as a path, redirections included.

    Several validators and the risk tier ask this about the same command one after the other:
    the latest answer is kept by the command object (frozen, so it holds)."""
    last = _last[0]  # one read: another thread may replace it meanwhile
    if last[0] is cmd:
        return last[1]
    found = tuple(_write_targets(cmd))
    _last[0] = (cmd, found)  # holding cmd keeps its id from being reused meanwhile
    return found


_last: list[tuple[SimpleCommand | None, tuple[Word, ...]]] = [(None, ())]


def _write_targets(cmd: SimpleCommand) -> Iterator[Word]:
    if cmd.redirects:
        yield from redirect_targets(cmd)
    program = cmd.program
    if program is None or len(cmd.words) < 2:
        return
    args = cmd.words[1:]
    known = programs.writes(cmd)
    yield from known
    if "--" in cmd.text:
        seen = {w.shown for w in known}
        for word in args:
            text = word.shown
            if text.startswith(_OUTPUT_OPTIONS) and text.split("=", 1)[1] not in seen:
                yield Word(text.split("=", 1)[1], _after_eq(word), word.quoted, word.expansions)
    handler = _HANDLERS.get(program)
    if handler is not None:
        yield from handler(args)


# The names programs commonly give the option that takes their output file.
_OUTPUT_NAMES = frozenset({"-o", "--output", "--out", "--out-file", "--outfile", "--output-file",
                           "--output-document", "--log-file", "--logfile"})


def unknown_program(program: str | None) -> bool:
    """Neither the catalog nor the data it learned from knows ``program``."""
    return program is not None and programs.entry(program) is None and (
        programs.learned_entry(program) is None)


def unknown_outputs(cmd: SimpleCommand) -> list[Word]:
    """The words a program the catalog does not know may write its output to: the word after
    an option named as output options are (``hl check --out-file ~/.bashrc``, ``tool -o F``).
    Without the program's arity this is only what the option may take; callers judge it for
    the paths that must never be written, not as a write outside the workspace."""
    if not unknown_program(cmd.program):
        return []
    words = cmd.words
    found = [words[i + 1] for i in range(1, len(words) - 1) if words[i].shown in _OUTPUT_NAMES]
    for word in words[1:]:  # --out-file=$HOME/.bashrc: the value after a literal name
        name, eq, _ = word.text.partition("=")
        if eq and name in _OUTPUT_NAMES and name.startswith("--"):
            value = None if word.value is None else word.value.partition("=")[2]
            found.append(Word(word.text[len(name) + 1:], value, word.quoted, word.expansions))
    return found


def _is_dup(redirect: Redirect) -> bool:
    target = redirect.target
    if redirect.op not in _DEVICE_DUP or target is None:
        return False
    return target.value is not None and (target.value.isdigit() or target.value == "-")


def _after_eq(word: Word) -> str | None:
    return None if word.value is None else word.value.split("=", 1)[1]


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


def _given(args: tuple[Word, ...], value: str) -> Word:
    """The word of ``args`` that gave an option's ``value`` (``-C ~``, ``--directory=$HOME``,
    ``-C"$HOME"``), with its expansions, so that it resolves as bash expands it; a plain word of
    the value when none did."""
    for word in args:
        if word.shown == value:
            return word
        for prefix in ("--directory=", "-C"):
            if word.shown == prefix + value and word.text.startswith(prefix):
                rest = None if word.value is None else word.value[len(prefix):]
                return Word(word.text[len(prefix):], rest, expansions=word.expansions)
    return Word(value, value)


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
        yield _given(args, directory)
    if creating and archive is not None:
        yield Word(archive, archive)


_GIT_STAGED = frozenset({"--staged", "-S"})
_GIT_WORKTREE = frozenset({"--worktree", "-W"})
_GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace",
                         "--config-env", "--exec-path"})  # git's own options with a value


def _git(args: tuple[Word, ...]) -> Iterator[Word]:
    """``git checkout [REV] -- PATH…`` and ``git restore [--source=REV] PATH…`` write the
    paths they name in the work tree with their content at that revision (a hook or a CI
    file from a fetched branch); ``git restore --staged`` alone writes only the index."""
    values = [w.shown for w in args]
    sub = next((i for i, v in enumerate(values) if not v.startswith("-") and not (
        i > 0 and values[i - 1] in _GIT_VALUED)), None)
    if sub is None or values[sub] not in ("checkout", "restore"):
        return
    rest, words = values[sub + 1:], args[sub + 1:]
    if values[sub] == "checkout":
        if "--" in rest:
            yield from words[rest.index("--") + 1:]
        return
    if _GIT_STAGED & set(rest) and not _GIT_WORKTREE & set(rest):
        return
    ended = False
    for index, (word, value) in enumerate(zip(words, rest, strict=True)):
        if not ended and value == "--":
            ended = True
        elif ended or not value.startswith("-"):
            if not ended and index > 0 and rest[index - 1] in ("-s", "--source"):
                continue  # the revision, not a path
            yield word


_PAX_VALUED = frozenset({"-s", "-f", "-o", "-x", "-b", "-B", "-G", "-T", "-U", "-p"})


def _pax(args: tuple[Word, ...]) -> Iterator[Word]:
    """``pax -r -s /OLD/NEW/`` writes each entry under the name the substitution gives it:
    a NEW that is a path of its own (``,^,/root/,``) is where the entries land; ``pax -rw
    SRC... DIR`` copies into its last operand."""
    values = [w.shown for w in args]
    for i, value in enumerate(values):
        given = value[2:] if value.startswith("-s") and len(value) > 2 else (
            values[i + 1] if value == "-s" and i + 1 < len(values) else "")
        fields = given[1:].split(given[0]) if len(given) > 1 else []
        if len(fields) > 1 and fields[1].startswith(("/", "~")):
            yield Word(fields[1], fields[1])
    cluster = "".join(v[1:] for v in values if v.startswith("-") and not v.startswith("--"))
    operands = [w for i, w in enumerate(args) if not w.shown.startswith("-") and not (
        i > 0 and values[i - 1] in _PAX_VALUED)]
    if "r" in cluster and "w" in cluster and len(operands) > 1:
        yield operands[-1]


_HANDLERS: dict[str, Callable[[tuple[Word, ...]], Iterator[Word]]] = {
    "dd": _dd, "tar": _tar, "bsdtar": _tar, "gtar": _tar, "find": _find, "git": _git,
    "pax": _pax,
}
