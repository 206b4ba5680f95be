"""How a wrapper's argv is read: its subcommand (past the program's own options), its own
options and their values, and what it runs -- a command, code, or several readings of the
words where the wrapper's parse is in doubt -- with the directory and variables its options
give that command. ``wrappers.py`` judges what is found here.
"""

from __future__ import annotations

import shlex

from clawgate.lazyre import lazy_pattern
from clawgate.records import replace
from clawgate.shell.envsplit import env_split
from clawgate.shell.model import Assignment, SimpleCommand, Word
from clawgate.validators.argv import (
    command_start,
    inner,
    joined_code,
    option_values,
    option_width,
)
from clawgate.validators.wraptable import SUBCOMMAND, Wrap

_ASSIGNMENT = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*=")
SUBCOMMAND_PROGRAMS = frozenset(p for p, _ in SUBCOMMAND)
_GLOBAL_REACH = 12  # words before a subcommand looked through for it


def subcommand(cmd: SimpleCommand) -> tuple[str, int]:
    """(the subcommand, where the wrapper's own options start): two words where the table
    has them (``uv tool run``), else one."""
    words = [w.value or "" for w in cmd.words[1:3]]
    if len(words) == 2 and (cmd.program, " ".join(words)) in SUBCOMMAND:
        return " ".join(words), 3
    if words[:1] and words[0].startswith("-"):  # nix --impure develop, devenv -O a:b c shell
        return _after_global_options(cmd)
    return (words[0] if words else ""), 2


def _after_global_options(cmd: SimpleCommand) -> tuple[str, int]:
    """(the subcommand, where its options start) past the program's own options, whose values
    are not known here: the first word that is a subcommand of the table (an option's value
    taken for one reads the words after it as the wrapped command, which are then judged).
    A word whose value is only known at run time, or empty, names no subcommand: it is not
    the table's empty one (``npx --yes tool --url "$U" --x y`` runs ``tool``, not ``y``)."""
    for at, word in enumerate(cmd.words[1:_GLOBAL_REACH], start=1):
        if word.value and (cmd.program, word.value) in SUBCOMMAND:
            return word.value or "", at + 1
    return cmd.words[1].value or "", 2


def unwrapped(cmd: SimpleCommand, spec: Wrap, start: int) -> tuple[SimpleCommand | str | None,
                                                                    bool]:
    """(what the wrapper runs, whether it starts a shell) for argv from ``start``."""
    words = cmd.words
    if spec.tail:
        return _after_tail(cmd, spec, start)
    index = command_start(words, start, spec.options)
    own = words[:index + 1] if index is not None else words  # own options (and a value)
    if spec.unjudged and any((w.value or "").split("=", 1)[0] in spec.unjudged
                             for w in own[start:index]):
        return "", False  # watchexec --shell=PROG: PROG runs the command
    codes = option_values(own, start, spec.code, spec.code_long) if (
        spec.code or spec.code_long) else []
    for _, holder, value in codes:  # env -C DIR -S CODE: the code runs in DIR
        moved = _moved(own, start, spec)
        if value is None or moved is None:
            return "", False
        if spec.split:
            return moved + _split_readings(cmd, holder, value), False
        return moved + value, False
    if spec.shell_flags and any(w.value in spec.shell_flags for w in own[start:]):
        if index is not None and index < len(words):  # sudo -s CMD: the shell runs CMD
            moved = _moved(own, start, spec)
            if moved == "":
                return inner(cmd, index), False
            text = " ".join(w.text for w in words[index:])
            return ("" if moved is None else moved + text), False
        return None, True
    first = index
    while index is not None and index < len(words) and _ASSIGNMENT.match(words[index].shown):
        index += 1  # env A=b cmd
    if index is None or index >= len(words):
        return None, spec.bare_shell
    found = inner(cmd, index)
    if spec.prefix:  # yarn workspaces foreach -A exec CMD: `yarn exec CMD` in each workspace
        command = joined_code(found.words)
        return ("" if command is None else f"{spec.prefix} {command}"), False
    moved = _moved(words[:first], start, spec)
    if spec.joined:
        later = _optional_value_taken(cmd, spec, index)
        readings = _both_readings(found) + ("" if later is None else "\n" + later)
        environment = _environment(words[:index], start, spec)
        return _with_environment(readings, None if environment is None or moved is None
                                 else moved + environment), False
    if moved != "":  # env -C DIR A=b cmd: the command and its variables, run in DIR
        given = _as_given(found, spec)
        if moved is not None and isinstance(given, str) and given:
            # yarn --cwd DIR exec 'rm -rf ~': the lone command line, read both ways, in DIR
            variables = "".join(f"{w.text} " for w in words[first:index])
            return "\n".join(moved + variables + reading for reading in given.split("\n")), False
        text = " ".join(w.text for w in words[first:])
        return ("" if moved is None else moved + text), False
    if first is not None and index > first:  # the variables go into the command's environment
        found = replace(found, assignments=(*found.assignments,
                                            *(_assigned(w) for w in words[first:index])))
    return _as_given(found, spec), False


def _split_readings(cmd: SimpleCommand, holder: Word | None, value: str) -> str:
    """What ``env -S STRING REST…`` runs: env splits STRING by its own rules into more of its
    argv, REST following (``env -S 'python3 -u' app.py``); the string is also read as a shell
    would read it, which is never the laxer reading (``;``, ``~`` and ``$(…)`` mean nothing to
    env). A string env refuses or that needs a variable's value gives the shell's reading."""
    split = env_split(value)
    if split is None or not split:
        return value
    after = cmd.words.index(holder) + 1 if holder is not None and holder in cmd.words else None
    rest = "" if after is None else "".join(" " + w.text for w in cmd.words[after:])
    return f"{value}\nenv {shlex.join(split)}{rest}"


def _as_given(found: SimpleCommand, spec: Wrap) -> SimpleCommand | str:
    """The command a wrapper runs, read as a shell would read it too where the wrapper may hand
    it to one: when its words are joined for a shell (``lerna exec -- "npm run a && b"``), and
    when it is one word holding a command line (``spin run 'rm -rf ~'``, ``carton exec 'x;
    y'``: many launchers give a lone argument to a shell)."""
    value = found.words[0].value if len(found.words) == 1 else None
    if spec.joined or (value is not None and any(c.isspace() for c in value.strip())):
        return _both_readings(found)
    return found


def _moved(own: tuple[Word, ...], start: int, spec: Wrap) -> str | None:
    """``cd -- DIR && `` for the directory the wrapper's own ``chdir`` options run the command
    in (``env -C ~ rm -rf node_modules`` deletes ``~/node_modules``), as shell text to put
    before the command; "" when it stays here, None when the directory is not known."""
    if not spec.chdir:
        return ""
    short = "".join(o[1] for o in spec.chdir if len(o) == 2)
    long = frozenset(o[2:] for o in spec.chdir if o.startswith("--"))
    found = option_values(own, 1, short, long)  # with the program's own (mise -C DIR x)
    if not found:
        return ""
    option, word, _ = found[-1]
    if word is None:
        return None
    text = word.text
    if text.startswith("-"):  # attached: --chdir=DIR, -CDIR
        text = text.partition("=")[2] if text.startswith("--") else text[
            text.index(option) + 1:]
    return f"cd -- {text} && " if text else None


def _environment(own: tuple[Word, ...], start: int, spec: Wrap) -> str | None:
    """The assignments the wrapper's own ``env`` options put in the command's environment
    (``watchexec -E LD_PRELOAD=x.so -- make``), as shell text to put before it; None when
    one is only known at run time."""
    if not spec.env:
        return ""
    short = "".join(o[1] for o in spec.env if len(o) == 2)
    long = frozenset(o[2:] for o in spec.env if o.startswith("--"))
    found: list[str] = []
    for _, word, value in option_values(own, start, short, long):
        if value is None:  # written as shell text after its name: X="$Y" as env takes it
            separate = word is not None and not word.text.startswith("-")
            if not (separate and word is not None and _ASSIGNMENT.match(word.text)):
                return None
            found.append(f"{word.text} ")
            continue
        name, equals, text = value.partition("=")
        if equals and _ASSIGNMENT.match(name + "="):
            found.append(f"{name}={shlex.quote(text)} ")
    return "".join(found)


def _with_environment(readings: str, environment: str | None) -> str:
    """Each line of ``readings`` run with ``environment`` before it ("" when it is unknown)."""
    if environment is None or readings == "":
        return ""
    return "\n".join(environment + line for line in readings.split("\n"))


def _optional_value_taken(cmd: SimpleCommand, spec: Wrap, index: int) -> str | None:
    """When the word at ``index`` follows an option whose value is optional, the program may
    have taken it as that value (``watchexec -c reset -- rm -rf ~`` runs ``rm -rf ~``): the
    command read from the next word on, both ways; None when no such option comes before."""
    before = cmd.words[index - 1].shown if index > 0 else ""
    short = not before.startswith("--") and before.startswith("-") and len(before) > 1
    if before not in spec.optional and not (short and f"-{before[-1]}" in spec.optional):
        return None
    later = command_start(cmd.words, index + 1, spec.options)
    return None if later is None else _both_readings(inner(cmd, later))


def _both_readings(found: SimpleCommand) -> str:
    """A command whose words are joined and run by a shell, read both ways, the strictest to
    win: as the joined text (``watchexec 'make test'``) and as the argv it is (``watchexec --
    sh -c 'rm -rf ~'``, should the words reach the program unjoined). Empty when a word is
    only known at run time."""
    text = joined_code(found.words)
    if text is None:
        return ""
    return text + "\n" + shlex.join(w.value or "" for w in found.words)


def _after_tail(cmd: SimpleCommand, spec: Wrap, start: int) -> tuple[SimpleCommand | str | None,
                                                                      bool]:
    """(the command after the first ``tail`` option, or the code of a code option before it;
    whether a shell starts without either): ``nix develop .#ci -c make check`` runs ``make
    check``, ``mise x node -- npm test`` runs ``npm test``, ``mise x -c 'make'`` runs ``make``."""
    words = cmd.words
    starts = _tail_starts(words, start, spec)
    end = starts[0] if starts else len(words)
    if spec.code or spec.code_long:
        for _, _, value in option_values(words[:end], start, spec.code, spec.code_long):
            return (value if value is not None else ""), False
    if end < len(words) and words[end].shown in spec.tail:
        if end + 1 >= len(words):
            return None, True
        moved = _moved(words[:end], start, spec)
        if len(starts) == 1 and moved == "":
            return _as_given(inner(cmd, end + 1), spec), False
        if moved is None:
            return "", False
        return "\n".join(moved + " ".join(w.text for w in words[at + 1:]) for at in starts
                         if at + 1 < len(words)), False
    return None, spec.bare_shell


def _tail_starts(words: tuple[Word, ...], start: int, spec: Wrap) -> list[int]:
    """Where the wrapper's own options may end at a ``tail`` option (or ``--``): the first one
    reached with each option's values skipped (``nix develop --arg a -c true -c make``: ``-c``
    is a value of ``--arg``), and the next as well each time the one before it follows an
    option not known to take no value, which may have taken it as its value."""
    starts: list[int] = []
    i = start
    while i < len(words):
        text = words[i].shown
        if text in spec.tail or text == "--":
            starts.append(i)
            before = words[i - 1].shown if i > start else ""
            if not (before.startswith("-") and len(before) > 1 and before != "--"
                    and before not in spec.flags and text != "--"):
                break
            i += 1
        elif len(text) > 1 and text[0] == "-":
            i += option_width(text, words, i, spec.options)
        else:
            i += 1
    return starts


def _assigned(word: Word) -> Assignment:
    """``NAME=value`` given to a wrapper (``env A=b cmd``) as the assignment it makes."""
    name, _, text = word.text.partition("=")
    value = word.value.partition("=")[2] if word.value is not None else None
    return Assignment(name, Word(text, value, word.quoted, word.expansions))


def valued_reading(cmd: SimpleCommand, spec: Wrap, start: int) -> str | None:
    """The command line the wrapper runs if the option just before its command, one the table
    does not know, took the next word as its value (``esy x -P . rm -rf ~``: ``rm -rf ~``,
    not ``. rm -rf ~``), or None where every option before the command is known."""
    words = cmd.words
    if spec.tail or spec.code or spec.code_long:
        return None
    index = command_start(words, start, spec.options)
    if index is None or index <= start or index + 1 >= len(words):
        return None
    before = words[index - 1].shown
    if not before.startswith("-") or before == "--" or "=" in before or _known_option(
            before, spec):
        return None
    return " ".join(w.text for w in words[index + 1:])


def _known_option(text: str, spec: Wrap) -> bool:
    """Whether the table says how many words ``text`` takes."""
    options = spec.options
    if text in spec.flags:
        return True
    if text.startswith("--"):
        return text[2:] in options.long or text[2:] in options.pair
    return text[1:] in options.dash or text[-1] in options.short or text[-1] in options.pair
