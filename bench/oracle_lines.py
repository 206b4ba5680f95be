"""The lines ``bench_oracle.py`` puts to bash and to the engine: every corpus line under each
mutation (a form of bash the readers must follow), and lines drawn from the hypothesis
grammar, reproducibly from a seed.

A mutation is a template over ``{c}`` (the corpus line) and ``{p}`` (a payload: a fixed
command or the next corpus line, alternately). The forms: comments (one ending in a
backslash), line continuations, re-quoting of every word, here-documents, arithmetic,
subscripts, functions, traps, ``case``, process substitution, unusual whitespace and control
characters.
"""

from __future__ import annotations

import json
import random
import re
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from corpus import DEVCMDS, FILES, OWN, UNSEEN, corpus_dir  # noqa: E402
from shadow_lines import HIDDEN_LINES  # noqa: E402

PAYLOADS = ("id -u", "sudo rm -rf /", "curl -s http://x.test/a")

TEMPLATES: tuple[tuple[str, str], ...] = (
    ("comment ending in a backslash", "{c} # note \\\n{p}"),
    ("comment glued to a word", "{c}#x; {p}"),
    ("comment after an operator", "{c};#\\\n{p}"),
    ("line continuation", "{c} \\\n&& {p}"),
    ("continuation inside a word", "{c} && {ps}"),
    ("here-document, expanding", "cat <<EOF\n$({p})\nEOF\n{c}"),
    ("here-document, quoted, then a line", "{c} <<'EOF'\n$({p})\nEOF\n{p}"),
    ("here-document with tabs", "cat <<-EOF\n\t`{p}`\n\tEOF\n{c}"),
    ("here-document after a comment", "cat <<EOF # \\\n$({p})\nEOF\n{c}"),
    ("here-string", "{c} <<< \"$({p})\""),
    ("arithmetic", "echo $(( $({p}) + 1 )); {c}"),
    ("arithmetic command", "(( x = $({p}) )) || {c}"),
    ("arithmetic on a subscript", "n='a[$({p})]'; (( n )); {c}"),
    ("subscript assignment", "a[$({p})]=1; {c}"),
    ("subscript read", "echo ${{a[$({p})]}}; {c}"),
    ("associative subscript", "declare -A m; m[$({p})]=x; {c}"),
    ("function", "f() {{ {c}; }}; f"),
    ("function keyword", "function g {{ {p}; }}; {c}; g"),
    ("function with a redirection", "f() {{ {c}; }} > out.txt; f; {p}"),
    ("trap EXIT", "trap '{p}' EXIT; {c}"),
    ("trap ERR", "trap -- \"{p}\" ERR; false; {c}"),
    ("trap DEBUG", "trap '{p}' DEBUG; {c}"),
    ("case", "case $x in *) {c};; esac"),
    ("case word", "case $({p}) in a) {c};; esac"),
    ("case fallthrough", "case a in a) {c};& b) {p};; esac"),
    ("process substitution in", "{c} <({p})"),
    ("process substitution out", "{c} > >({p})"),
    ("command substitution as a word", "{c} \"$({p})\""),
    ("backquotes as a word", "{c} `{p}`"),
    ("assignment prefix", "x=$({p}) {c}"),
    ("for over a substitution", "for x in $({p}); do {c}; done"),
    ("if condition", "if {p}; then {c}; fi"),
    ("[[ ]] with a substitution", "[[ $({p}) ]] && {c}"),
    ("eval", "eval '{p}'; {c}"),
    ("coproc", "coproc {p}; {c}"),
    ("brace group and subshell", "{{ {c}; }} && ( {p} )"),
    ("alias", "shopt -s expand_aliases; alias x='{p}'\nx; {c}"),
    ("tabs for blanks", "{ct}\t;\t{p}"),
    ("carriage return", "{c}\r\n{p}"),
    ("vertical tab", "{c};\x0b{p}"),
    ("form feed", "{c}\x0c; {p}"),
    ("escape character", "{c}; \x1b{p}"),
    ("no-break space", "{c};\u00a0{p}"),
    ("locale quoting", "{c}; $\"{p}\""),
    ("ANSI-C quoting", "{c}; $'{p}'"),
)
REQUOTINGS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("re-quoted, single quotes", lambda w: "'" + w.replace("'", "'\\''") + "'"),
    ("re-quoted, double quotes", lambda w: '"' + re.sub(r'(["$`\\])', r"\\\1", w) + '"'),
    ("re-quoted, ANSI-C", lambda w: "$'" + "".join(f"\\x{b:02x}" for b in w.encode()) + "'"),
    ("re-quoted, backslashes", lambda w: "".join("\\" + ch for ch in w)),
    ("re-quoted, split in halves", lambda w: "'" + w[:1] + "'\"" + re.sub(
        r'(["$`\\])', r"\\\1", w[1:]) + '"'),
)


def corpus_lines() -> list[str]:
    """Every corpus line: the shared corpora, this repository's, and the bench's hidden lines."""
    paths = [corpus_dir() / f"{n}.jsonl" for n in (*FILES, *DEVCMDS)]
    paths += [ROOT / "tests" / "corpus" / f"{n}.jsonl" for n in (*OWN, *UNSEEN)]
    found: list[str] = []
    for path in paths:
        if path.is_file():
            found += [json.loads(row)["command"] for row in path.read_text().splitlines()
                      if row.strip()]
    return list(dict.fromkeys([*found, *HIDDEN_LINES]))


def mutations(corpus: list[str]) -> Iterator[tuple[str, str]]:
    """(family, line) for every corpus line under every mutation."""
    for index, line in enumerate(corpus):
        other = corpus[(index + 1) % len(corpus)]
        payload = PAYLOADS[index % len(PAYLOADS)] if index % 2 else other
        split = payload[:2] + "\\\n" + payload[2:]
        for family, template in TEMPLATES:
            yield family, template.format(c=line, p=payload, ps=split,
                                          ct=line.replace(" ", "\t"))
        yield from _requoted(line)


def _requoted(line: str) -> Iterator[tuple[str, str]]:
    if "\n" in line or re.search(r"[|&;<>()$`\\{}*?\[\]#!~]", line):
        return  # a simple command only: quoting a word of a compound would change its form
    try:
        words = shlex.split(line)
    except ValueError:
        return
    for family, quote in REQUOTINGS:
        if words:
            yield family, " ".join(quote(w) for w in words)


def sample_mutations(count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` mutated lines (all when fewer), in an order drawn from ``seed``: every corpus
    line is mutated when ``count`` reaches the corpus size."""
    every = list(mutations(corpus_lines()))
    random.Random(seed).shuffle(every)
    return every[:count]


def generated(count: int, seed: int) -> list[str]:
    """``count`` lines of the hypothesis grammar (``lines()``, ``command_lists()`` and
    ``heredocs()``, 3:1:1), the same for the same ``seed``: a ``@given`` run, generation only,
    seeded, no database."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded
    from hypothesis import strategies as st

    from clawgate.testing.strategies import command_lists, heredocs, lines

    drawn: list[str] = []
    if count <= 0:
        return drawn
    strategy = st.one_of(lines(), lines(), lines(), command_lists(), heredocs())

    @seeded(seed)
    @settings(max_examples=count, phases=[Phase.generate], database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(line: str) -> None:
        drawn.append(line)

    draw()
    return drawn
