"""Calls of functions defined on the line: ``g() { rm "$@"; }; g -rf ~`` runs ``rm -rf ~``. The
body's commands are checked as written wherever they stand; a call also runs them with its
arguments as the positional parameters, which only the call says. A body that runs an
argument as the program (``retry() { "$@" || "$@"; }``) is judged through its calls: each is
checked with its words put in, and a call whose words are only known at run time asks (a call
on a later line hands its words to a name the catalog does not know, judged by what they are).
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.shells import moves_positionals, with_arguments

# name() {…}, name () (…), function name {…}, function name() {…}
_DEFINITION = lazy_pattern(
    r"(?:^|[;&|\s({])(?:function\s+([^\s(){}<>;&|'\"$`]+)\s*(?:\(\s*\))?|"
    r"([^\s(){}<>;&|'\"$`=]+)\s*\(\s*\))\s*[{(]")
_MAX_CALLS = 16  # calls followed on one line
# A program name that is one of the function's arguments: "$@", $1, "${2}", $*
POSITIONAL_NAME = lazy_pattern(r'"?\$(?:[@*1-9]|\{[@*1-9]\})"?')


@register
class FunctionCalledWithArguments(LineValidator):
    """A function defined on the line and called on it with arguments runs its body with
    them as ``$1``, ``$2``, ``"$@"``…: the body is checked again with the call's literal
    arguments put in (``g() { rm "$@"; }; g -rf ~`` is ``rm -rf ~``), as ``sh -c CODE ARG…``
    is (CG-WRAP-003).

    A body that gives its arguments other values before running them (``set -- …``,
    ``shift``) asks: the call's words are not what ``"$@"`` then holds.

    Bad: ``g() { rm "$@"; }; g -rf ~``, ``r() { "$@"; }; r "$CMD"``. Harmless: ``t() { python3
    -m pytest "$@"; }; t -q``, ``retry() { "$@" || "$@"; }; retry npm ci``.
    """

    id = "CG-IDENT-006"

    def line_shapes(self) -> int:
        return ls.DOLLAR

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        source = parsed.source
        if "(" not in source and "function" not in source:
            return NO_OPINION
        bodies = _bodies(parsed)
        if not bodies:
            return NO_OPINION
        texts: list[str] = []
        runners = {name for name, body in bodies.items() if runs_positional(body)}
        uncalled = runners - {c.words[0].value for c in parsed.commands if len(c.words) > 1}
        if uncalled:
            return Verdict.ask(self.id, f"defines {min(uncalled)}, which runs its arguments "
                               "as a command, and calls it nowhere on the line with them",
                               hint="define and call it in one command")
        for cmd in parsed.commands:
            name = cmd.words[0].value or "" if cmd.words else ""
            body = bodies.get(name)
            if body is None:
                continue
            given = with_arguments(body, (Word("sh", "sh"), *cmd.words[1:]))
            followed = given is not None and readable(given) and len(texts) < _MAX_CALLS
            if followed and given is not None:
                texts.append(given)
            elif name in runners and moves_positionals(body):
                return Verdict.ask(self.id, f"{name} gives its arguments other values (set --, "
                                   "shift) before it runs them as a command: what runs is not "
                                   "what the call says", hint="run the command itself")
            elif name in runners and len(cmd.words) > 1:
                return Verdict.ask(self.id, f"the call of {name} runs its arguments as a "
                                   "command, and they are only known at run time",
                                   hint="call it with the program and its arguments written out")
        return Verdict.unwrap(*texts) if texts else NO_OPINION


def runs_positional(body: str) -> bool:
    """Whether a function body runs one of its arguments as a program (``"$@"``, ``$1``)."""
    from clawgate.shell import parse

    return any(cmd.name_word is not None and POSITIONAL_NAME.fullmatch(cmd.name_word.text)
               for cmd in parse(body).commands)


def _bodies(parsed: ParsedLine) -> dict[str, str]:
    """Each function the line defines, by name: the source text of its body's commands (from
    the first to the end of the last, operators between them kept). A later definition of a
    name replaces an earlier one."""
    src = parsed.source.encode("utf-8", "surrogateescape")
    found: dict[str, str] = {}
    for match in _DEFINITION.finditer(parsed.source):
        name = match.group(1) or match.group(2)
        start = len(parsed.source[: match.end()].encode("utf-8", "surrogateescape"))
        inside = _inside(parsed.commands, start)
        if not name or not inside:
            continue
        last = max(c.offset + len(c.text.encode("utf-8", "surrogateescape")) for c in inside)
        close = src.find(b"}" if match.group(0).rstrip().endswith("{") else b")", last)
        if close < 0:
            continue
        body = src[start:close].decode("utf-8", "surrogateescape").rstrip().rstrip(";")
        if readable(body):  # if/for/case and all: from the brace to its closing brace
            found[name] = body
    return found


def readable(text: str) -> bool:
    """Whether a line this family writes parses: one that does not adds no reading (the
    commands it came from are judged as written)."""
    from clawgate.shell import parse

    return bool(text.strip()) and not parse(text).has_error


def _inside(commands: tuple[SimpleCommand, ...], start: int) -> list[SimpleCommand]:
    """The commands of the function body that starts at byte ``start``: those in a function
    from there on, up to the first command outside one."""
    body: list[SimpleCommand] = []
    for cmd in commands:
        if cmd.offset < start:
            continue
        if "function" not in cmd.nesting:
            break
        body.append(cmd)
    return body
