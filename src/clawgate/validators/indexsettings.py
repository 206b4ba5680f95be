"""Package-index settings stored for later installs: ``npm config set registry URL`` (``npm
set``), ``pip config set global.index-url URL``, ``yarn config set npmRegistryServer URL``,
and the same settings written into ``.npmrc`` or ``pip.conf`` on the line. Every later install
reaches that index, so the setting is judged now as the install it amounts to (``npm install
--registry URL package``): CG-DEST-007 judges the index by where it is (plain HTTP at a public
address DENY, an unknown one ASK, the ecosystem's own public index nothing)."""

from __future__ import annotations

import configparser
import shlex

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register

_NODE = frozenset({"npm", "pnpm", "yarn"})
_PIP = frozenset({"pip", "pip3"})
_NODE_KEYS = frozenset({"registry", "npmregistryserver"})
_PIP_KEYS = frozenset({"index-url", "extra-index-url", "find-links"})


def _node_key(key: str) -> bool:
    """``registry``, ``@scope:registry``, yarn's ``npmRegistryServer``."""
    return key.lower().rpartition(":")[2] in _NODE_KEYS


def _pip_key(key: str) -> bool:
    """``global.index-url``, ``install.extra-index-url``, ``index-url``."""
    return key.lower().rpartition(".")[2] in _PIP_KEYS


def as_install(program: str, key: str, url: str) -> str:
    """The install a stored index setting amounts to."""
    if program in _PIP or _pip_key(key):
        option = "--" + key.lower().rpartition(".")[2]
        return shlex.join(["pip", "install", option, url, "package"])
    return shlex.join(["npm", "install", "--registry", url, "package"])


def npmrc_installs(text: str) -> list[str]:
    """The installs an ``.npmrc``'s registry lines amount to (``registry=URL``,
    ``@scope:registry=URL``)."""
    found: list[str] = []
    for line in text.splitlines():
        key, eq, value = line.strip().partition("=")
        if eq and _node_key(key.strip()) and value.strip():
            found.append(as_install("npm", key.strip(), value.strip().strip("\"'")))
    return found


def pipconf_installs(text: str) -> list[str] | None:
    """The installs a ``pip.conf``'s index settings amount to; None when it is no INI text."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return [as_install("pip", key, url.strip()) for section in parser.sections()
            for key, value in parser.items(section) if _pip_key(key)
            for url in value.split() if url.strip()]


@register
class IndexSetting(Validator):
    """A package-index setting stored for later installs (``npm config set registry URL``,
    ``pip config set global.index-url URL``, ``yarn config set npmRegistryServer URL``),
    checked now as the install it amounts to: an index over plain HTTP at a public address is
    DENY, as ``npm install --registry URL`` is.

    Bad: ``npm config set registry http://198.51.100.9/``. Harmless: ``npm config get
    registry``.
    """

    id = "CG-PKG-003"
    programs = _NODE | _PIP

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in self.programs:
            return NO_OPINION
        values = [w.value for w in cmd.words[1:]]
        operands = [v for v in values if v is None or not v.startswith("-")]
        if operands[:1] == ["set"] and cmd.program in ("npm", "pnpm"):
            operands = ["config", *operands]  # npm set: npm config set
        if operands[:2] != ["config", "set"] or len(operands) < 4:
            return NO_OPINION
        key, url = operands[2], operands[3]
        if key is None or url is None:
            return NO_OPINION  # a value known at run time: CG-PROT-004 asks
        if (cmd.program in _PIP and _pip_key(key)) or (cmd.program in _NODE and _node_key(key)):
            return Verdict.unwrap(as_install(cmd.program or "npm", key, url))
        return NO_OPINION
