"""Programs the user's environment names: the line read with a stand-in in their place.

``$CC --version``, ``"$PYTHON" -m pytest``: the program is whatever the variable holds when
the line runs. When the line never sets the variable, by any means, its value is the user's
environment, not text the line chose; it may still be any program. ``stand_in_readings``
writes the line again with the name replaced by each of ``STAND_INS``, a fixed set of
programs that between them do every kind of harm the engine judges; the engine checks each
reading as it checks the line, and lets the ask that only says "the program is known at run
time" give way when every reading is ALLOW (``engine.py``). None is run; a reading that is
not ALLOW keeps the line's ask (never more: the name alone is not a DENY). A name the line
sets only to literal program words (in branches, a ``case``) is read with each of them, and
with the stand-ins too where the environment's value may still be there
(``standinvalues.py``).

Only a name word that is one plain reference (``$X``, ``${X}``, ``"$X"``, ``"${X}"``) is
read this way. Not ``$(…)`` or backquotes (the line chooses their output), ``${!x}``,
``"$@"``, ``$1``, ``${a[0]}``, ``${X:-rm}`` (the line writes the default), nor a path whose
directory a variable names (``"$D/tool"``): that file's identity is the directory's, which
the environment may place anywhere, a scratch or home directory where anyone may have
written it (the engine asks about programs run from there, CG-IDENT-001). A line with two
different such variables keeps its ask (their combinations are not enumerated), as does one
that may set names in ways not read here (``source``, ``eval``, ``trap``, ``alias``...),
defines a function (a reading would call it in place of the stand-in of that name) or sets
``IFS``.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.shell import clobbers
from clawgate.shell import model as m
from clawgate.shell.standinvalues import line_values
from clawgate.shell.xargsfeed import encode

# A program the catalog does not know: the closed-world default judges its words by what
# they are (code, a command, a credential path, a path to write).
UNKNOWN_PROGRAM = "clawgate-stand-in"
# One program for each way a program's words can do harm, those most lines fail on first
# (a failed reading ends the search):
STAND_INS: tuple[str, ...] = (
    # the network: the first operand is a host or URL (ssh also runs the rest there)
    "ssh", "curl", "wget", "nc", "scp", "rsync",
    # wrappers: the words are a command (env also takes VAR=value assignments); sudo is one
    # too, its verdict an ask for any use: the command it runs is judged through env
    "env", "xargs",
    # shells and interpreters: -c, -e, -m, -r, a script file, a program text (awk)
    "bash", "python3", "node", "perl", "ruby", "php", "awk",
    # deleters, writers and movers of their operands
    "rm", "shred", "find", "cp", "mv", "tee", "dd", "install", "ln",
    # readers and printers: the operands printed, the words into a pipe
    "cat", "echo",
    # modes and owners; repositories; containers and clusters; packages installed;
    "chmod", "chown", "git", "docker", "kubectl", "npm", "pip",
    # a data store's client (its wiping verbs: flushall) and a compose project (down -v)
    "redis-cli", "docker-compose",
    # package runners that fetch and run or install what their words name (dlx, global add,
    # tool run)
    "pnpm", "yarn", "uv",
    UNKNOWN_PROGRAM,
)
# And for an unquoted name, nothing: unset or empty, the name vanishes and the next word is
# the program (``$X rm -rf ~`` runs rm).

_PLAIN_REFERENCE = lazy_pattern(r'(")?\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\})(?(1)")')
# What may set any name, or change what the words mean: not read here.
_SETS_ANY = frozenset({"source", ".", "eval", "trap", "alias", "builtin", "command", "enable",
                       "coproc", "exec", "wait", "hash"})
_FD_NAME = lazy_pattern(r"\{[A-Za-z_]\w*\}[<>]")  # exec {fd}>file sets $fd
# A function defined on the line (a reading would call it in place of the stand-in it is
# named after: ``curl() { :; }``), or IFS set (the line decides how the value splits).
_SHAPES_READING = lazy_pattern(r"\bfunction\s|[^\s|&;<>()$`\\\"']\s*\(\s*\)|\bIFS\b")


def environment_name(word: m.Word) -> str | None:
    """The variable a program name word is, when it is one plain reference, else None."""
    if word.value is not None or word.expansions != frozenset({m.VARIABLE}):
        return None
    found = _PLAIN_REFERENCE.fullmatch(word.text)
    return None if found is None else found.group(2) or found.group(3)


# The commands read; the line read with each program; each alone so read; the programs.
Readings = tuple[frozenset[int], tuple[str, ...], tuple[str, ...], tuple[str, ...]]
NO_READINGS: Readings = (frozenset(), (), (), ())


def stand_in_readings(parsed: m.ParsedLine) -> Readings:
    """The indexes (in ``parsed.commands``) of the commands whose program is a variable the
    line never sets; the line read with each of ``STAND_INS`` in its place; and, for each,
    those commands alone (one a line) so read, a cheaper first look (what a command's words
    do with a stand-in rarely depends on the rest of the line; where it does, the look alone
    can only keep an ask the whole reading would lift). Nothing when there is no such
    command, or a command's program is known only at run time otherwise."""
    chosen: dict[int, str] = {}
    for index, cmd in enumerate(parsed.commands):
        word = cmd.name_word
        if word is None or (word.value is not None and "`" not in word.text
                            and "$(" not in word.text):
            continue
        name = environment_name(word)
        if name is None:
            return NO_READINGS  # its program is the line's choice, or a path: it asks
        chosen[index] = name
    if len(set(chosen.values())) != 1:
        return NO_READINGS
    programs: tuple[str, ...] = STAND_INS
    empty = True  # the environment's value may be empty, or the name unset
    if _set_on_line(parsed, chosen):
        found = None if _sets_any(parsed) else \
            line_values(parsed, next(iter(chosen.values())), frozenset(chosen))
        if found is None:
            return NO_READINGS
        literal, environment, empty = found
        programs = (*literal, *(STAND_INS if environment else ()))
        empty = empty or environment
    spans = _name_spans(parsed, chosen)
    if spans is None:
        return NO_READINGS
    src = parsed.source.encode("utf-8", "surrogateescape")
    if empty and any(not parsed.commands[i].words[0].text.startswith('"') for i in chosen):
        programs = (*programs, "")  # unset: $X rm -rf ~ runs rm
    alone = [(src[a:b], [(start - a, end - a)]) for (a, b), (start, end) in spans]
    return (frozenset(chosen), tuple(_put_in(src, [s for _, s in spans], p) for p in programs),
            tuple("\n".join(_put_in(text, at, p) for text, at in alone) for p in programs),
            programs)


def _sets_any(parsed: m.ParsedLine) -> bool:
    """The line may set names, or shape the reading, in ways the values cannot show."""
    return _FD_NAME.search(parsed.source) is not None or \
        _SHAPES_READING.search(parsed.source) is not None or \
        any(cmd.program in _SETS_ANY for cmd in parsed.commands)


def _set_on_line(parsed: m.ParsedLine, chosen: dict[int, str]) -> bool:
    """The variable may get a value from the line: assigned anywhere (but in the prefix of
    the very command it names, whose words bash expands before it assigns), declared, read,
    a loop's, set by the shell itself (``shell/clobbers.py``), or anything may be set."""
    name = next(iter(chosen.values()))
    if _FD_NAME.search(parsed.source) or _SHAPES_READING.search(parsed.source):
        return True
    named = clobbers.clobbered(parsed)
    if name in named or clobbers.EVERY in named:
        return True
    for index, cmd in enumerate(parsed.commands):
        if cmd.program in _SETS_ANY:
            return True
        assigned = {a.name.partition("[")[0] for a in cmd.assignments}
        if cmd.program in clobbers.SETTERS and (declared := clobbers.declared(cmd)):
            assigned |= {a.name for a in declared}
        if name in assigned and index not in chosen:
            return True
    return False


Span = tuple[int, int]


def _name_spans(parsed: m.ParsedLine, chosen: dict[int, str]) -> list[tuple[Span, Span]] | None:
    """Where each chosen command's text and its name word stand in the line (bytes), or None
    when one cannot be found where the command's text says it is."""
    src = parsed.source.encode("utf-8", "surrogateescape")
    spans = []
    for index in chosen:
        cmd = parsed.commands[index]
        text = encode(cmd.text)
        word = encode(cmd.words[0].text)
        if text is None or word is None or src[cmd.offset : cmd.offset + len(text)] != text:
            return None
        cursor = 0
        for assignment in cmd.assignments:  # NODE_OPTIONS=… $NODE_OPTIONS jest
            head = encode(f"{assignment.name}={assignment.value.text}")
            found = -1 if head is None else text.find(head, cursor)
            if found < 0:
                return None
            cursor = found + len(head or b"")
        found = text.find(word, cursor)
        if found < 0:
            return None
        spans.append(((cmd.offset, cmd.offset + len(text)),
                      (cmd.offset + found, cmd.offset + found + len(word))))
    return sorted(spans, key=lambda span: span[1])


def _put_in(src: bytes, spans: list[Span], program: str) -> str:
    out: list[bytes] = []
    position = 0
    for start, end in spans:
        out += [src[position:start], program.encode()]
        position = end
    out.append(src[position:])
    return b"".join(out).decode("utf-8", "surrogateescape")
