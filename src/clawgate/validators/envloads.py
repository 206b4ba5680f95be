"""The modules an interpreter's option variable makes every run load, judged by which module.

``NODE_OPTIONS=--require ./tests/setup.js`` and ``PERL5OPT=-MCarp=verbose`` load a module
before the program's own code. The project's own file (a path inside the workspace), a package
node finds by name (the project's ``node_modules`` first) and a module of perl's standard
library load what running the project would load. A path outside the workspace
(``--require /tmp/.cache/hook.js``), a URL or ``data:`` module (code in the value), a perl
module outside the standard library or one followed by code (``-M5;system(…)``), and a ruby
library by name (``-rsocket``: found wherever gems are) are none of these.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from clawgate.lazyre import lazy_pattern

# The options that load a module, per variable: glued (``-MCarp``, ``--require=x``) or given
# the next word (``--require x``, ``-r x``).
_NODE_LOADS = ("--require", "-r", "--import", "--loader", "--experimental-loader")
_NODE_PACKAGE = lazy_pattern(r"^(?:@[\w.-]+/)?[\w-][\w.-]*(?:/[\w@-][\w.@-]*)*$")
# ``-MNAME`` or ``-MNAME=IMPORTS`` (perl quotes the imports: data, whatever they hold)
_PERL_MODULE = lazy_pattern(r"^-?(?P<name>[A-Za-z_]\w*(?:::\w+)*)(?:=[\w,:.-]*)?$")
# Modules of perl's standard library that load nothing but themselves (not ``lib``, which adds
# a directory modules are then loaded from).
_PERL_CORE = frozenset({
    "strict", "warnings", "diagnostics", "utf8", "feature", "integer", "bigint", "bignum",
    "constant", "vars", "open", "locale", "autodie", "Carp", "Data::Dumper", "English",
    "Exporter", "FindBin", "Getopt::Long", "List::Util", "Scalar::Util", "POSIX",
    "Time::HiRes", "Storable", "Encode", "Benchmark", "Devel::Peek", "Cwd", "File::Spec",
    "File::Basename", "IO::Handle", "Test::More"})
_PATHLIKE = ("./", "../", "/")


def module_load(name: str, option: str, following: str | None) -> tuple[str, int] | None:
    """(the module, how many words the option takes) when ``option`` of the variable ``name``
    loads a module; None for any other option."""
    if name == "NODE_OPTIONS":
        for spelling in _NODE_LOADS:
            if option == spelling:
                return (following or "", 2)
            if option.startswith(spelling + "=") and spelling.startswith("--"):
                return (option[len(spelling) + 1:], 1)
        return None
    if name == "PERL5OPT" and option[:2] in ("-M", "-m") and len(option) > 2:
        return (option[2:], 1)
    if name == "RUBYOPT" and option.startswith("-r"):
        return (option[2:], 1) if len(option) > 2 else (following or "", 2)
    return None


def known_module(name: str, module: str, inside: Callable[[str], bool]) -> bool:
    """The module is the project's own file (``inside`` says whether a path is in the
    workspace) or an installed package named plainly: nothing the value itself holds."""
    if not module or "\\" in module or module.startswith("~"):
        return False  # no shell expands ~ in the value: a name nobody can vouch for
    if module.startswith(_PATHLIKE):
        return name != "PERL5OPT" and inside(module)
    if ".." in module.split("/"):
        return False
    if name == "NODE_OPTIONS":
        return _NODE_PACKAGE.match(module) is not None
    if name == "PERL5OPT":
        found = _PERL_MODULE.match(module)
        return found is not None and found.group("name") in _PERL_CORE
    return False  # a ruby library by name: from any gem installed


def loaded_by_name(env: dict[str, str], path: str) -> str | None:
    """The interpreter that loads the file ``path`` (relative to where the line runs, as
    normalised) because a module the variables of ``env`` name is found there: ``-r x`` in
    ``NODE_OPTIONS`` loads the package ``node_modules/x`` (any file of it), ``-MCarp`` in
    ``PERL5OPT`` loads ``Carp.pm`` from a ``-I`` directory of it or an entry of ``PERL5LIB``
    first (``-I. -MCarp``: ``./Carp.pm``). None when no such module is found at ``path``."""
    words = env.get("NODE_OPTIONS", "").split()
    for index, word in enumerate(words):
        loaded = module_load("NODE_OPTIONS", word, words[index + 1] if index + 1 < len(words)
                             else None)
        if loaded is None or not loaded[0] or loaded[0].startswith(_PATHLIKE):
            continue
        parts = loaded[0].split("/")
        package = "/".join(parts[:2] if parts[0].startswith("@") else parts[:1])
        if f"/node_modules/{package}/" in f"/{path}/":
            return "node"
    words = env.get("PERL5OPT", "").split()
    dirs = [e for e in env.get("PERL5LIB", "").split(":") if e]
    dirs += [w[2:] if len(w) > 2 else (words[i + 1] if i + 1 < len(words) else "")
             for i, w in enumerate(words) if w.startswith("-I")]
    for word in words:
        if word[:2] in ("-M", "-m") and len(word) > 2:
            module = word[2:].lstrip("-").partition("=")[0].replace("::", "/") + ".pm"
            if any(posixpath.normpath(posixpath.join(d, module)) == path for d in dirs if d):
                return "perl"
    return None
