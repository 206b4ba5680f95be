"""TeX source given on the command line (``pdflatex '\\documentclass…'``): the files it reads
into the document (``\\input``, ``\\verbatiminput``, ``\\lstinputlisting``, ``\\openin``) and
writes (``\\openout``), and the commands ``\\write18`` hands to the shell."""

from __future__ import annotations

import re

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.inline.effects import action
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register

ENGINES = frozenset({"tex", "etex", "pdftex", "xetex", "luatex", "latex", "pdflatex",
                     "xelatex", "lualatex", "amstex", "context", "mpost", "lualatex-dev",
                     "pdflatex-dev", "uplatex", "platex", "euptex", "ptex", "uptex"})
_PATH = r"(?:\{([^{}]+)\}|\s*=?\s*([^\s{}\\]+))"
_READS = lazy_pattern(r"\\(?:input|include|verbatiminput|lstinputlisting|inputminted\{[^}]*\}|"
                      r"VerbatimInput|includegraphics(?:\[[^]]*\])?|openin\s*\\?\w+)" + _PATH)
_WRITES = lazy_pattern(r"\\openout\s*\\?\w+" + _PATH)
# \write18{cmd}, \immediate\write18{cmd}, \ShellEscape{cmd}, LuaTeX's os.execute / io.popen
_SHELL = lazy_pattern(r"\\(?:write18|ShellEscape)\s*\{((?:[^{}]|\{[^{}]*\})*)\}|"
                      r"\b(?:os\.execute|io\.popen)\s*\(\s*\"([^\"]*)\"", re.S)


@register
class TeXCode(Validator):
    """TeX code given as an argument to a TeX engine is a program: the files it reads or
    writes are judged as the shell commands doing the same (``cat F``, ``: > F``), so a
    credential read or a write outside the workspace is caught; a ``\\write18`` shell escape
    is ASK and its command is checked as a command.

    Bad: ``pdflatex '\\input{/etc/shadow}'``. Harmless: ``pdflatex paper.tex``.
    """

    id = "CG-INTERP-008"
    programs = ENGINES

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in ENGINES:
            return NO_OPINION
        code = [w.value for w in cmd.words[1:]
                if w.value is not None and "\\" in w.value and not w.value.startswith("-")]
        lines: list[str] = []
        shell: list[str] = []
        for text in code:
            lines += [action("read", _path(m)) for m in _READS.finditer(text)]
            lines += [action("write", _path(m)) for m in _WRITES.finditer(text)]
            shell += [m.group(1) or m.group(2) or "" for m in _SHELL.finditer(text)]
        if shell:
            return Verdict.unwrap(*lines, *[s for s in shell if s.strip()],
                                  outcome=Outcome.ASK, rule_id=self.id,
                                  message=f"{cmd.program} runs shell commands from TeX code")
        return Verdict.unwrap(*lines) if lines else NO_OPINION


def _path(match: re.Match[str]) -> str:
    return (match.group(1) or match.group(2) or "").strip()
