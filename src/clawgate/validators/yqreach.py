"""yq expressions that read beyond their input (CG-INTERP-010).

mikefarah's yq 4 reads the environment (``env(NAME)``, ``strenv(NAME)``, ``envsubst``) and
loads files (``load``, ``load_str``, ``load_xml``, ``load_props``, ``load_base64``) from its
expression, and prints what it read; the Python ``yq`` hands its expression to jq, which reads
the environment through ``$ENV`` and ``env``. The expression comes after yq 4's commands
(``yq eval-all EXPR FILE``).
"""

from __future__ import annotations

import shlex

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.argv import operands, opts
from clawgate.validators.base import Context, Validator, register

_YQ = opts("opIsd", "output-format input-format indent split-exp expression front-matter "
           "xml-attribute-prefix xml-content-name xml-directive-name xml-proc-inst-prefix "
           "xml-skip-directives lua-prefix lua-suffix properties-separator csv-separator "
           "from-file")
_COMMANDS = frozenset({"eval", "e", "eval-all", "ea"})
_ENVIRONMENT = lazy_pattern(r"(?<![\w$.])(?:str)?env\s*\(|\benvsubst\b|\$ENV\b|(?<![\w$.])env\b")
_LOAD = lazy_pattern(r"\bload(?:_str|_xml|_props|_base64)?\s*\(\s*(?P<arg>[^)]*)\)")
_LITERAL = lazy_pattern(r'^"(?P<path>[^"\\$]*)"$')


def expression(cmd: SimpleCommand) -> str:
    """yq's expression ("" where it has none: read from a file, or only a document printed),
    as written where a part is only known at run time (``".image = \"$DIGEST\""``)."""
    words = cmd.words
    start = 2 if len(words) > 1 and words[1].value in _COMMANDS else 1
    if any(w.shown.startswith("--from-file") for w in words[start:]):
        return ""
    found = operands(words, start, _YQ)
    given = [w for w in words[start:] if w.shown.startswith("--expression=")]
    word = given[0] if given else words[found[0]] if found else None
    if word is None:
        return ""
    text = word.value if word.value is not None else word.text
    return text.split("=", 1)[1] if given else text


@register
class YqReach(Validator):
    """A yq expression that reads the environment (``env(AWS_SECRET_ACCESS_KEY)``,
    ``strenv``, ``envsubst``, jq's ``$ENV``) asks, as jq's does; one that loads a file is
    judged as ``cat`` of that file, since yq prints what it loaded (a credential is denied);
    a file named only at run time asks. A part of the expression only known at run time is
    read as written.

    Bad: ``yq -n 'load_str("/home/u/.ssh/id_rsa")'`` (DENY), ``yq -n 'strenv(TOKEN)'`` (ASK).
    Harmless: ``yq '.a' config.yaml``, ``yq ea '. as $i ireduce ({}; . * $i)' a.yaml b.yaml``.
    """

    id = "CG-INTERP-010"
    programs = frozenset({"yq"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program != "yq":
            return NO_OPINION
        text = expression(cmd)
        loaded: list[str] = []
        for found in _LOAD.finditer(text):
            literal = _LITERAL.match(found.group("arg").strip())
            if literal is None:
                return Verdict.ask(self.id, "the yq expression loads a file named only at "
                                   "run time")
            loaded.append(f"cat -- {shlex.quote(literal.group('path'))}")
        if _ENVIRONMENT.search(text):
            return Verdict.unwrap(*loaded, outcome=Outcome.ASK, rule_id=self.id,
                                  message="the yq expression reads the environment")
        return Verdict.unwrap(*loaded) if loaded else NO_OPINION
