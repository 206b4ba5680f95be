"""The files a CI runner reads between steps: what a step appends to ``$GITHUB_ENV`` is set in
the environment of every later step, and each line appended to ``$GITHUB_PATH`` is put at the
front of their PATH (GitHub Security Lab calls the attack "environment file injection"). A
write there is an ``export`` that outlives the command, so it is judged as that ``export``:
``echo "LD_PRELOAD=$PWD/x.so" >> "$GITHUB_ENV"`` is ``export LD_PRELOAD="$PWD/x.so"``
(CG-ENV-001, DENY); ``echo "$TOOLS" >> $GITHUB_PATH`` is ``export PATH="$TOOLS:$PATH"``
(CG-ENV-002 asks: an entry known only at run time). Text whose variable names cannot be read
before the line runs (``cat vars >> $GITHUB_ENV``, ``echo "$LINE" >> $GITHUB_ENV``) is ASK, as
is the file written by any program but a printer (``dd of=``, ``sed -i``, ``cp``, ``sponge``,
``curl -o``: each file a command writes, ``writes.py``). The file is named ``$GITHUB_ENV``,
``${GITHUB_ENV}`` or by an operator that yields its value when set, as it is on a runner
(``${GITHUB_ENV:-/dev/null}``, ``${GITHUB_ENV?}``).

Each written line is carried as the inside of a double-quoted shell word, so a value known only
at run time (``"VERSION=$(git describe)"``) stays an expansion in the ``export`` judged.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import Redirect, SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.writes import write_shapes, write_targets
from clawgate.validators.written import printf_output

# The file's name: ``$GITHUB_ENV``, ``${GITHUB_ENV}``, or an operator that yields the value
# when it is set, as it is on a runner (``${GITHUB_ENV:-/dev/null}``, ``${GITHUB_ENV?}``;
# ``:+`` yields its own word instead).
_RUNNER_FILE = lazy_pattern(r"^\$(?:(GITHUB_ENV|GITHUB_PATH)|\{(GITHUB_ENV|GITHUB_PATH)"
                            r"(?::?[-=?][^}]*)?\})$")
_NAME = lazy_pattern(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ECHO_OPTIONS = frozenset({"-n", "-e", "-E", "-ne", "-en"})
_WRITERS = frozenset({"echo", "printf", "cat", "tee"})


@register
class RunnerEnvironmentFile(Validator):
    """A write to ``$GITHUB_ENV`` or ``$GITHUB_PATH``, judged as the ``export`` every later
    step of the job then runs under; text whose names cannot be read before it runs is ASK.

    Bad: ``echo "NODE_OPTIONS=--require /tmp/x.js" >> $GITHUB_ENV``. Harmless: ``echo
    "VERSION=1.2" >> "$GITHUB_ENV"``, ``echo "$HOME/.local/bin" >> $GITHUB_PATH``.
    """

    id = "CG-ENV-004"

    def shapes(self, program: str | None) -> int:
        return write_shapes(program)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        files = runner_files(cmd)
        if not files or (cmd.program == "tee" and cmd.stage > 0 and not any(
                r.feeds_input for r in cmd.redirects)):
            return NO_OPINION  # tee fed by a pipe: CG-ENV-016 reads what the pipe feeds it
        lines = lines_of(cmd)
        exports: list[str] = []
        for name in files:
            found = None if lines is None else exports_of(name, lines)
            if found is None:
                return Verdict.ask(self.id, f"writes text known only at run time to ${name}, "
                                   "which sets up every later step of the job",
                                   hint="write literal NAME=value lines")
            exports += found
        return Verdict.unwrap(*exports) if exports else NO_OPINION


def runner_files(cmd: SimpleCommand) -> list[str]:
    """The runner files ``cmd`` writes: by a redirection, or as a file its program writes
    (``tee``'s operands, ``dd of=``, ``sed -i``'s files, ``cp``'s target, ``sponge``: any
    but a printer's are text known only at run time)."""
    found = []
    for word in write_targets(cmd):
        match = "GITHUB_" in word.text and _RUNNER_FILE.match(word.text.strip('"'))
        if match:
            found.append(match.group(1) or match.group(2))
    return found


def lines_of(cmd: SimpleCommand) -> list[str] | None:
    """The lines ``cmd`` writes, each as the inside of a double-quoted shell word, or None
    when they cannot be read from the line."""
    if cmd.program not in _WRITERS:
        return None
    words = list(cmd.words[1:])
    if cmd.program in ("cat", "tee"):
        fed = next((r for r in cmd.redirects if r.op in ("<<", "<<-", "<<<")), None)
        if fed is None or (cmd.program == "cat" and words):
            return None
        return _fed_lines(fed)
    if cmd.program == "echo":
        while words and words[0].value in _ECHO_OPTIONS:
            if "e" in (words[0].value or ""):
                return None  # escapes processed: read no further
            words = words[1:]
        inside = [_inside(w) for w in words]
        if None in inside:
            return None
        return " ".join(i for i in inside if i is not None).split("\n")  # each line its own
    values = [w.value for w in words]
    if not values or None in values:
        return None  # printf with a format or an argument known only at run time
    return [_escape(line) for line in printf_output([v for v in values if v is not None])
            .splitlines()]


def _fed_lines(fed: Redirect) -> list[str] | None:
    if fed.op == "<<<":
        inside = None if fed.target is None else _inside(fed.target)
        return None if inside is None else inside.split("\n")
    body = fed.heredoc or ""
    if fed.heredoc_expands:  # expanded as inside double quotes, where `"` is a plain character
        return [line.replace('"', '\\"') for line in body.splitlines()]
    return [_escape(line) for line in body.splitlines()]


def _inside(word: Word) -> str | None:
    """``word`` as the inside of a double-quoted word: its value escaped when literal, else
    its pieces joined (``NAME="$(which chrome)"`` is ``NAME=$(which chrome)`` inside double
    quotes), or None when a piece cannot be carried there (see ``_pieces``)."""
    if word.value is not None:
        return _escape(word.value)
    return _pieces(word.text)


def _pieces(text: str) -> str | None:
    """``text`` written again as the inside of one double-quoted word: a double-quoted piece
    as it stands, a single-quoted or backslashed one escaped, unquoted literal characters and
    plain ``$NAME`` references as they are. An unquoted substitution (its inner quotes would
    change meaning) and ``$'…'`` are not carried: None."""
    found: list[str] = []
    at = 0
    while at < len(text):
        char = text[at]
        if char == '"':
            end = _closing_quote(text, at + 1)
            if end is None:
                return None
            found.append(text[at + 1:end])
            at = end + 1
        elif char == "'":
            end = text.find("'", at + 1)
            if end < 0 or text[at - 1:at] == "$":
                return None
            found.append(_escape(text[at + 1:end]))
            at = end + 1
        elif char == "\\":
            found.append(_escape(text[at + 1:at + 2]))
            at += 2
        elif char in "`(" or text.startswith("$(", at):
            return None
        else:
            found.append(char)
            at += 1
    return "".join(found)


def _closing_quote(text: str, at: int) -> int | None:
    """Where the double-quoted piece opened before ``at`` ends, or None when it does not."""
    while at < len(text):
        if text[at] == "\\":
            at += 2
        elif text[at] == '"':
            return at
        else:
            at += 1
    return None


def _escape(text: str) -> str:
    for char in ("\\", '"', "$", "`"):
        text = text.replace(char, "\\" + char)
    return text


def exports_of(name: str, lines: list[str]) -> list[str] | None:
    """The ``export`` commands ``lines`` amount to in ``$name``, or None when a variable
    name cannot be read (a name known only at run time, a line that is no assignment)."""
    if name == "GITHUB_PATH":
        return [f'export PATH="{line}:$PATH"' for line in lines if line.strip()]
    found: list[str] = []
    pending: tuple[str, str, list[str]] | None = None  # NAME<<DELIMITER: its value's lines
    for line in lines:
        if pending is not None:
            variable, delimiter, value = pending
            if line == delimiter:
                found.append(f'export {variable}="{chr(10).join(value)}"')
                pending = None
            else:
                value.append(line)
            continue
        if not line.strip():
            continue
        head, equals, value_text = line.partition("=")
        variable, arrows, delimiter = line.partition("<<")
        if equals and _NAME.match(head) and (not arrows or len(head) < len(variable)):
            found.append(f'export {head}="{value_text}"')
        elif arrows and _NAME.match(variable) and delimiter and "$" not in delimiter:
            pending = (variable, delimiter, [])
        else:
            return None
    if pending is not None:
        found.append(f'export {pending[0]}="{chr(10).join(pending[2])}"')
    return found
