"""TeX code given to a TeX engine on its command line (CG-INTERP-008): the files it reads and
writes judged as the shell commands doing the same, \\write18 escapes asked about.

These lines are data: they are decided by the engine, never run."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_allowed, decide

from clawgate.decision import Outcome


@pytest.mark.parametrize(("line", "expected"), [
    ("pdflatex '\\documentclass{article}\\usepackage{verbatim}\\begin{document}"
     "\\verbatiminput{/etc/shadow}\\end{document}'", DENY),
    ("latex '\\input{/srv/app/.ssh/id_rsa}'", ASK),
    ("xelatex '\\lstinputlisting{.env}'", ASK),
    ("lualatex '\\newwrite\\f\\immediate\\openout\\f=/etc/profile\\write\\f{x}'", DENY),
    ("tex '\\openin5=/etc/shadow \\read5 to\\x \\message{\\x}'", DENY),
    ("pdflatex --shell-escape '\\immediate\\write18{id}'", ASK),
])
def test_tex_code_is_read_for_what_it_does(line: str, expected: Outcome) -> None:
    outcome, rules = decide(line)
    assert outcome is expected, rules


@pytest.mark.parametrize("line", [
    "echo '\\input{/etc/shadow}' > t.tex; pdflatex t.tex",
    "printf '%s' '\\verbatiminput{/etc/shadow}' > t.tex && latexmk -pdf t.tex",
])
def test_tex_written_then_compiled_is_read_as_code(line: str) -> None:
    outcome, rules = decide(line)
    assert outcome is DENY, rules


@pytest.mark.parametrize("line", [
    "echo '\\section{Intro}' > intro.tex; pdflatex intro.tex",
    "pdflatex paper.tex",
    "pdflatex -interaction=nonstopmode -output-directory=build paper.tex",
    "latex '\\input{chapters/intro}'",
    "pdflatex '\\def\\draft{1}\\input{paper}'",
])
def test_ordinary_tex_runs_are_allowed(line: str) -> None:
    assert_allowed(line)

