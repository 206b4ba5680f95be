"""Programs told to read their script from standard input or from a process substitution:
``awk -f - <<<'…'``, ``gawk -i /dev/stdin``, ``sed -f /dev/stdin``, ``make -f <(…)``,
``vim -S <(…)``, ``bash --rcfile <(…)``. A script that can be read (a here-string, a
here-document, a substitution that only prints literal text) is checked as if it had been given
inline; one that cannot be read asks; one fetched from the network is refused."""

from __future__ import annotations

import shlex

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.shell import model as m
from clawgate.shell.model import SimpleCommand, Word
from clawgate.shell.substitute import evaluate
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.shells import FETCHED

_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_MAKES = frozenset({"make", "gmake", "bmake", "remake"})
_VIMS = frozenset({"vi", "vim", "nvim", "view", "ex", "gvim"})
# The options that name each program's script file.
SCRIPT_OPTIONS: dict[str, frozenset[str]] = {
    **dict.fromkeys({"sed", "gsed"}, frozenset({"-f", "--file"})),
    # gawk's -i/--include and -E/--exec read a program file too
    **dict.fromkeys(_AWKS, frozenset({"-f", "--file", "-i", "--include", "-E", "--exec"})),
    **dict.fromkeys(_MAKES, frozenset({"-f", "--file", "--makefile"})),
    **dict.fromkeys(_VIMS, frozenset({"-S"})),
    "bash": frozenset({"--rcfile", "--init-file"}),
}
STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def script_word(cmd: SimpleCommand) -> tuple[int, int, Word] | None:
    """(first index, end index, file word) of the option naming ``cmd``'s script, when that
    file is standard input or a process substitution."""
    options = SCRIPT_OPTIONS.get(cmd.program or "")
    if options is None:
        return None
    words = cmd.words
    for i, word in enumerate(words[1:], start=1):
        text = word.shown
        name, eq, rest = text.partition("=")
        if eq and name in options and name.startswith("--"):
            value, end = Word(rest, rest if word.value is not None else None), i + 1
        elif text in options and i + 1 < len(words):
            value, end = words[i + 1], i + 2
        elif text[:2] in options and len(text) > 2 and text[1] != "-":
            value, end = Word(text[2:], text[2:] if word.value is not None else None), i + 1
        else:
            continue
        if value.value in STDIN_FILES or m.PROCESS in value.expansions:
            return i, end, value
    return None


def script_from_stdin(cmd: SimpleCommand) -> bool:
    """``awk -f -``, ``make -f /dev/stdin``: the script is standard input."""
    if cmd.program not in SCRIPT_OPTIONS:
        return False
    found = script_word(cmd)
    return found is not None and found[2].value in STDIN_FILES


def recipes(makefile: str) -> list[str]:
    """The shell command lines of a makefile's rules: tab-led recipe lines and the part of
    ``target: prerequisites ; command`` after the semicolon, without ``@``/``-``/``+``."""
    found: list[str] = []
    for line in makefile.split("\n"):
        if line.startswith("\t"):
            found.append(line[1:])
        elif ":" in line and ";" in line.partition(":")[2] and not line.lstrip().startswith("#"):
            found.append(line.partition(":")[2].partition(";")[2])
    return [c.lstrip().lstrip("@-+").strip() for c in found if c.strip()]


def _text(cmd: SimpleCommand, word: Word) -> str | None:
    """The script, where it can be read: a substitution that only prints literal text, or
    the one here-string or here-document standard input is."""
    if m.PROCESS in word.expansions:
        body = word.text[2:-1] if word.text.startswith("<(") and word.text.endswith(")") else None
        return evaluate(body) if body else None
    docs = [r for r in cmd.redirects if r.feeds_input]
    if len(docs) != 1 or cmd.upstream:
        return None
    doc = docs[0]
    if doc.op == "<<<":
        return doc.target.value if doc.target is not None else None
    if doc.heredoc is None or (doc.heredoc_expands and ("$" in doc.heredoc or "`" in doc.heredoc)):
        return None
    return doc.heredoc


@register
class ScriptFromInput(Validator):
    """A script file that is standard input or a process substitution (``awk -f -``,
    ``sed -f /dev/stdin``, ``make -f <(…)``, ``vim -S <(…)``, ``bash --rcfile <(…)``): a
    readable one is checked as if given inline (awk and sed as ``-e SCRIPT``, vim's lines as
    ``-c`` commands, an rc file as shell code; a makefile asks and its recipes are checked);
    one that cannot be read asks; one fetched from the network is refused.

    Bad: ``awk -f - <<< 'BEGIN{system("sh")}'``. Harmless: ``awk -f - <<< '{print $1}' x``.
    """

    id = "CG-INJ-017"
    programs = frozenset(SCRIPT_OPTIONS)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        found = script_word(cmd)
        if found is None:
            return NO_OPINION
        start, end, word = found
        program = cmd.program or ""
        text = _text(cmd, word)
        if text is None:
            fed = [(r.target.text if r.target is not None else "") + (r.heredoc or "")
                   for r in cmd.redirects if r.feeds_input or r.op == "<"]
            if (m.PROCESS in word.expansions and FETCHED.search(word.text)) or (
                    m.PROCESS not in word.expansions and any(map(FETCHED.search, fed))):
                return Verdict.deny(self.id, f"{program} runs a script fetched from the network",
                                    hint="download it, read it, then run it")
            return Verdict.ask(self.id, f"{program} reads its script from input that is not "
                               "read here", hint="give the script inline or as a file")
        if program in _MAKES:
            return Verdict.unwrap(*recipes(text), outcome=Outcome.ASK, rule_id=self.id,
                                  message=f"{program} runs the recipes of the makefile it "
                                  "is fed")
        if program in _VIMS:
            lines = [line.strip() for line in text.split("\n") if line.strip()]
            return Verdict.unwrap(*(f"{program} -c {shlex.quote(line)}" for line in lines[:64]))
        if program == "bash":
            return Verdict.unwrap(text)
        words = [w.text for w in cmd.words]
        return Verdict.unwrap(" ".join([*words[:start], "-e", shlex.quote(text), *words[end:]]))
