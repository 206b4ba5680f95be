"""Tier rules: the few programs whose tier takes more than the catalog's tables.

Which programs only read, which reach the network, which are high, and the tiers of
subcommands (``git status`` low, ``git push`` high, ``docker rm`` high) are data in the
program catalog (``clawgate/programs/catalog.yaml``); a catalog entry names one of the rules
below (``tier_rule``) when its tier also depends on option values: ``git config --global``,
``docker run --privileged``, ``pip install --user``, a sed script that only reads.
Each rule gets the command and the tier the catalog gives it."""

from __future__ import annotations

from collections.abc import Callable

from clawgate.decision import Risk
from clawgate.lazyre import lazy_pattern
from clawgate.programs.languages import sed_commands, sed_subst_flags
from clawgate.shell.model import SimpleCommand
from clawgate.validators import userwide
from clawgate.validators.flags import git_subcommand, parse_options
from clawgate.validators.ghgraphql import graphql_reads
from clawgate.validators.gitops import dry_run
from clawgate.validators.globalopts import without_globals
from clawgate.validators.privquery import privileged_query

_LOW, _MEDIUM, _HIGH = Risk.LOW, Risk.MEDIUM, Risk.HIGH


_GIT_LISTING = {"branch": frozenset({"-a", "-r", "-v", "-vv", "--all", "--list", "-l",
                                     "--merged", "--no-merged", "--show-current", "--contains",
                                     "--remotes", "--verbose", "--sort", "--format", "--color"}),
                "tag": frozenset({"-l", "--list", "-n", "--contains", "--sort", "--points-at"}),
                "remote": frozenset({"-v", "--verbose", "show", "get-url"}),
                "stash": frozenset({"list", "show"}),
                "worktree": frozenset({"list"}), "submodule": frozenset({"status"}),
                "config": frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l",
                                     "--show-origin", "--show-scope", "--name-only"})}


def _git(cmd: SimpleCommand, base: Risk) -> Risk:
    name, args = git_subcommand(cmd)
    values = [w.shown for w in args]
    if name is None or base is _LOW:
        return _LOW
    if name == "reflog":
        return _MEDIUM if values[:1] in (["expire"], ["delete"]) else _LOW
    listing = _GIT_LISTING.get(name)
    if listing is not None and (not values or (values[0] in listing and name != "config")
                                or (name in ("config", "branch", "tag") and
                                    any(v.split("=")[0] in listing for v in values))):
        return _LOW
    if name == "config" and {"--global", "--system"} & set(values):
        return _HIGH
    if name == "lfs":
        return userwide.git_lfs(cmd, values, base)
    if name == "push" and dry_run(args):
        return _MEDIUM  # the remote is read, as a fetch reads it; nothing is sent
    return base


def _first(cmd: SimpleCommand) -> str:
    """The first argument that is not an option."""
    return next((w for w in cmd.args if not w.startswith("-")), "")


def _tiered(low: frozenset[str], high: frozenset[str] | None = None, *,
            default: Risk = _MEDIUM) -> Callable[[SimpleCommand], Risk]:
    """A tier by first non-option argument: ``low`` ones, ``high`` ones, else ``default``."""

    def tier(cmd: SimpleCommand) -> Risk:
        sub = _first(cmd)
        if sub in low or (not sub and not cmd.args):
            return _LOW
        if high is not None and sub in high:
            return _HIGH
        return default

    return tier


def _packages(low: frozenset[str], high: frozenset[str], global_flags: frozenset[str]
              ) -> Callable[[SimpleCommand], Risk]:
    """Language package managers: installs into the project are medium, global ones high."""
    base = _tiered(low, high)

    def tier(cmd: SimpleCommand) -> Risk:
        if global_flags & {a.split("=")[0] for a in cmd.args}:
            return _HIGH
        if registry_rehearsal(cmd):
            return _MEDIUM
        if cmd.program == "yarn" and _first(cmd) == "global":
            return _HIGH
        if cmd.program == "npm" and _first(cmd) in ("link", "ln") and _links_globally(cmd):
            return _HIGH
        if cmd.program == "cargo" and _first(cmd) == "binstall":
            return _HIGH  # a prebuilt binary from the network, installed for the user
        if cmd.program == "uv" and [a for a in cmd.args if not a.startswith("-")][:2] in (
                ["tool", "run"], ["tool", "list"], ["tool", "dir"]):
            return _MEDIUM  # uv tool run is uvx: run from uv's cache, nothing installed
        if _first(cmd) == "install" and (
                (cmd.program == "cargo" and "--path" not in cmd.args)
                or (cmd.program == "go" and any("@" in a for a in cmd.args))):
            return _HIGH  # a tool installed for the user, from the network
        return base(cmd)

    return tier


def _links_globally(cmd: SimpleCommand) -> bool:
    """``npm link`` alone links the package in the working directory into the global folder,
    where every project's ``npm link NAME`` and the user's PATH find it; ``npm link PATH`` does
    that for the package at PATH first, then links it into the project. ``npm link NAME`` only
    links an already-global package into ``node_modules``."""
    operands = [a for a in cmd.args if not a.startswith("-")][1:]
    return not operands or any(_NPM_PATH.match(a) for a in operands)


# A folder given to npm link: a path (./x, ../x, /x, ~/x, x/y, file:x), not a package name
# (x, @scope/x)
_NPM_PATH = lazy_pattern(r"^(?:[.~/]|file:|[^@][^/]*/)")


def _docker(cmd: SimpleCommand, base: Risk) -> Risk:
    """Containers are medium; one that shares the host (``--privileged``, ``-v /:/h``, the
    docker socket, host namespaces) is the host."""
    args = cmd.args
    if any(a in _DOCKER_HOST or a.startswith(("/:", "--volume=/:", "--privileged"))
           or "docker.sock" in a or a in ("--pid=host", "--net=host", "--network=host")
           for a in args):
        return _HIGH
    if ("down" in args or "rm" in args) and any(
            a in ("-v", "--volumes") or a.startswith("--rmi") or (
                a.startswith("-") and not a.startswith("--") and "v" in a) for a in args) \
            and (cmd.program == "docker-compose" or "compose" in args):
        return _HIGH  # the project's volumes (its data) or images removed
    return base


_DOCKER_HOST = frozenset({"--privileged", "--cap-add", "--device"})
_SYSTEM_QUERIES = frozenset({"list", "search", "show", "info", "policy", "depends", "rdepends",
                             "changelog", "provides", "repolist", "outdated", "deps", "leaves",
                             "config", "doctor", "find", "-l", "-L", "-s", "-S", "-q", "-Q",
                             "-Qi", "-Ql", "-Qs", "-Ss", "-Si", "-qa", "-qi", "-ql", "--list",
                             "--status", "--search", "--listfiles", "--get-selections",
                             "--version", "version", "status", "list-units", "list-unit-files",
                             "list-timers", "is-active", "is-enabled", "is-failed", "cat",
                             "get-default", "get", "describe", "explain", "top",
                             "api-resources", "api-versions", "cluster-info", "view", "diff",
                             "checks", "plan", "validate", "fmt", "output", "providers",
                             "graph", "template", "lint", "history", "-h", "--help"})


_SYSCTL_WRITES = frozenset({"-w", "--write", "-p", "--load", "-f", "--system"})


def _sysctl(cmd: SimpleCommand) -> Risk:
    """``sysctl -n hw.ncpu`` and ``sysctl -a`` read kernel settings; ``-w``, a ``name=value``
    operand (procps and BSD alike), ``-p``/``--system`` (load files) change them."""
    if any(a in _SYSCTL_WRITES or "=" in a or (a[:1] == "-" and a[1:2] != "-" and
                                               set(a[1:]) & {"w", "p", "f"})
           for a in cmd.args):
        return _HIGH
    return _LOW


# A package manager's own commands that print where it keeps things or how it builds, and
# change nothing: Homebrew's `--prefix [FORMULA]` (read by builds: `$(brew --prefix openssl)`),
# `--cellar`, `--repository`, `--cache`, `--caskroom`, `--env` and `shellenv` (what it
# prints is judged where it is evaluated); dpkg's architectures.
_PRINTS_PLACES = {
    "brew": frozenset({"--prefix", "--cellar", "--repository", "--repo", "--cache",
                       "--caskroom", "--env", "shellenv"}),
    "dpkg": frozenset({"--print-architecture", "--print-foreign-architectures"}),
}


# dpkg's and dpkg-deb's options that read a package file without installing it: its files
# unpacked into a directory, or listed
DPKG_UNPACKS = frozenset({"-x", "--extract", "-X", "--vextract", "-c", "--contents", "-I",
                          "--info", "-f", "--field", "-e", "--control", "--fsys-tarfile"})


def _system_packages(cmd: SimpleCommand) -> Risk:
    """apt, brew, dpkg, rpm ...: queries (and the manager's own places, printed) are low,
    anything else changes the system."""
    first = cmd.args[0] if cmd.args else ""
    if first in _PRINTS_PLACES.get(cmd.program or "", ()):
        return _LOW
    if cmd.program in ("dpkg", "dpkg-deb") and first in DPKG_UNPACKS:
        return _MEDIUM  # a package file unpacked into a directory or listed: no install
    return _LOW if first in _SYSTEM_QUERIES or not first else _HIGH


def _status_only(cmd: SimpleCommand) -> Risk:
    """systemctl, service, kubectl, helm, gh, terraform: reads are medium (they reach a
    service the project is configured for), changes are high."""
    cmd = without_globals(cmd)  # kubectl --context dev get pods: the verb after the globals
    if cmd.program == "systemctl" and _first(cmd) in _SYSTEM_QUERIES:
        return _LOW
    if cmd.program == "service" and cmd.args[-1:] == ("status",):
        return _LOW
    if cmd.program in ("terraform", "tofu") and (_first(cmd) in {
            "init", "plan", "validate", "fmt", "show", "output", "get", "version"} or tuple(
            a for a in cmd.args if not a.startswith("-"))[:2] in (
            ("workspace", "list"), ("workspace", "show"))):
        return _MEDIUM
    if cmd.program == "gh" and _first(cmd) == "completion":
        return _MEDIUM  # prints its completion script and reaches nothing
    if cmd.program == "gh" and len(cmd.args) > 1 and cmd.args[1] in _GH_READS:
        return _MEDIUM
    if cmd.program == "gh" and _first(cmd) == "api" and (
            _gh_api_reads(cmd.args) or graphql_reads(cmd.args)):
        return _MEDIUM
    if cmd.program == "helm" and (_first(cmd) in _HELM_LOCAL or tuple(cmd.args[:2]) in (
            ("plugin", "list"), ("repo", "list"))):
        return _MEDIUM
    if cmd.program in ("kubectl", "oc") and tuple(a for a in cmd.args if not a.startswith(
            "-"))[:2] in (("auth", "can-i"), ("auth", "whoami"), ("rollout", "status"),
                          ("rollout", "history")):
        return _MEDIUM  # what the current user may do, who it is, how a rollout goes: reads
    if cmd.program in ("kubectl", "oc") and (_first(cmd) in _KUBECTL_LOCAL | _KUBECTL_READS or (
            _first(cmd) in ("apply", "create", "delete", "patch", "replace")
            and "--dry-run=client" in cmd.args)):
        return _MEDIUM
    return _MEDIUM if _first(cmd) in _SYSTEM_QUERIES else _HIGH


# helm's verbs that work on the charts in the workspace (package, unittest, scaffold) or fetch
# the dependencies a chart declares (dependency build: as a package manager's install); the
# verbs that reach a cluster or change helm's own configuration stay high.
_HELM_LOCAL = frozenset({"package", "unittest", "create", "dependency", "dep", "verify", "env",
                         "completion"})
# kubectl's verbs that render or convert local files without a cluster (and a client-side dry
# run, which sends nothing).
_KUBECTL_LOCAL = frozenset({"kustomize", "completion"})
# kubectl's verbs that only read from the cluster beyond the shared queries (get, describe …)
# (wait only watches objects until a condition holds; rollout status and history print)
_KUBECTL_READS = frozenset({"logs", "events", "wait"})
# gh api's options that send a body: with one the request is a POST unless -X says otherwise
_GH_API_FIELDS = ("-f", "-F", "--field", "--raw-field", "--input")


def _gh_api_reads(args: tuple[str, ...]) -> bool:
    """``gh api ENDPOINT`` that only reads: no field, no input, no method but GET (``-X GET``,
    ``--method=GET``), and not the GraphQL endpoint (read by ``ghgraphql``: a document of
    queries only)."""
    words = list(args)
    for index, arg in enumerate(words):
        if arg in ("-X", "--method"):
            if words[index + 1:index + 2] != ["GET"]:
                return False
        elif arg.startswith(("--method=", "-X", *_GH_API_FIELDS)) and arg not in (
                "--method=GET", "-XGET"):
            return False
    return "graphql" not in words


# Options that take a value, so the word after them is no operand (GNU and BSD spellings).
_SETTER_VALUED = {"date": frozenset({"-d", "--date", "-f", "--file", "-r", "--reference",
                                     "--rfc-3339", "-v", "-z"})}
_SETTER_OPTIONS = {"date": frozenset({"-s", "--set"})}


def _sets_system(cmd: SimpleCommand) -> Risk:
    """``date`` prints by default, and sets the machine's clock when given a time (``date -s
    …``, ``date 0101000020``): the machine's state, not the workspace, like ``timedatectl
    set-time``. A ``+FORMAT`` operand only formats. (``hostname NAME`` is left low: the
    shared benign corpus holds ``hostname example.com``, and unprivileged it only fails.)"""
    program = cmd.program or ""
    valued, setters = _SETTER_VALUED.get(program, frozenset()), _SETTER_OPTIONS.get(
        program, frozenset())
    args = cmd.args
    if program == "date" and "-j" in args:  # BSD: parse and print, never set
        return _LOW
    i = 0
    while i < len(args):
        arg = args[i]
        name = arg.partition("=")[0]
        if name in setters or (arg.startswith("-") and not arg.startswith("--") and
                               any(f"-{c}" in setters for c in arg[1:] if c.isalpha())):
            return _HIGH
        if name in valued and "=" not in arg:
            i += 2
            continue
        if arg != "--" and not arg.startswith(("-", "+")):
            return _HIGH  # an operand: the new date or the new name
        i += 1
    return _LOW


_CLOUD_READS = frozenset({"ls", "list", "describe", "show", "get", "preview", "whoami",
                          "version", "about", "get-caller-identity", "wait", "status"})
_CLOUD_READ_PREFIXES = ("list-", "describe-", "get-")
_CLOUD_VERB = lazy_pattern(r"^(?:create|delete|update|set|unset|add|remove|deploy|apply|put|patch"
                           r"|start|stop|restart|reset|import|export|attach|detach|ssh|scp|exec"
                           r"|run|invoke|copy|cp|mv|rm|sync|login|activate|enable|disable|resize"
                           r"|move|rename|upload|download|access|destroy|up|print-[\w-]+)$")


def _cloud_reads(cmd: SimpleCommand) -> Risk:
    """aws, gcloud, az, doctl, pulumi: a listing or description of the cloud the project is
    set up for is medium, like ``kubectl get``; anything else is high. The verb is read where
    the CLI puts it: aws's second operand (``aws s3 ls``, ``aws ec2 describe-instances``),
    the last word of the leading run of operands for the others (``gcloud compute instances
    list``); a line whose verb cannot be placed stays high. Secrets printed by a read
    (``get-secret-value``) are CG-SEC-003's. Global options before the verb (``gcloud
    --project p compute instances list``) are passed over."""
    args = without_globals(cmd).args
    if cmd.program == "aws":
        operands = [a for i, a in enumerate(args) if not a.startswith("-") and not (
            i and args[i - 1] in _AWS_VALUED)]
        verb = operands[1] if len(operands) > 1 else ""
    else:
        verb = ""
        for arg in args:  # the first verb of the leading run: gcloud compute instances list
            if arg.startswith("-"):
                break
            if arg in _CLOUD_READS or arg.startswith(_CLOUD_READ_PREFIXES) or \
                    _CLOUD_VERB.match(arg):
                verb = arg
                break
    if verb in _CLOUD_READS or verb.startswith(_CLOUD_READ_PREFIXES):
        return _MEDIUM
    return _HIGH


_AWS_VALUED = frozenset({"--profile", "--region", "--output", "--query", "--endpoint-url",
                         "--color", "--cli-read-timeout", "--cli-connect-timeout"})


def _openssl(cmd: SimpleCommand) -> Risk:
    """Local crypto is medium; a client or server is the network; ``-engine``/``-provider``
    load a shared library, which is running arbitrary code."""
    if {"-engine", "-provider", "-provider-path"} & set(cmd.args):
        return _HIGH
    return _OPENSSL_BASE(cmd)


# openssl's subcommands that reach the network (a client, a server, an OCSP query); the others
# are local crypto on local files. secrets.py reads it: only these can send a file.
OPENSSL_NETWORK = frozenset({"s_client", "s_server", "s_time", "ocsp"})
_OPENSSL_BASE = _tiered(frozenset({"version", "help", "list"}), OPENSSL_NETWORK)
_AWK_EFFECTS = lazy_pattern(r"system|getline|[|>]|/inet/|ENVIRON|close|fflush")
_SED_READING = frozenset("pdnNq=")  # commands that only print, drop or read the next line


def _sed_reads(script: str) -> bool:
    """Every command of the script only prints, drops or substitutes (no ``w``/``e`` flag),
    read by the sed reader in one pass (a pattern whose blanks spanned newlines took minutes
    on a script of a few thousand)."""
    commands = sed_commands(script)
    if not commands:
        return commands is not None and not script.strip(" \t\n;")
    for command in commands:
        if command[0] == "s":
            flags, written = sed_subst_flags(command)
            if written is not None or not set(flags) <= _SED_READ_FLAGS:
                return False
        elif command not in _SED_READING:
            return False
    return True


_SED_READ_FLAGS = frozenset("gpiI0123456789")


def _text_tool(cmd: SimpleCommand) -> Risk:
    """awk and sed only read when their script cannot write files or run commands."""
    options = parse_options(cmd.words[1:], aliases={"--expression": "e", "--file": "f"},
                            takes_value=frozenset({"e", "f", "F", "v", "l"}))
    if options.has("f", "i", "--in-place"):
        return _MEDIUM  # a script from a file, an in-place edit, or gawk's -i library
    scripts = list(options.values.get("e", ())) or [w.shown for w in options.operands[:1]]
    if cmd.program == "sed":
        ok = all(_sed_reads(script) for script in scripts)
    else:
        ok = not any(_AWK_EFFECTS.search(s) for s in scripts)
    return _LOW if scripts and ok else _MEDIUM


_GH_READS = frozenset({"view", "list", "status", "diff", "checks", "watch", "checkout"})
_PIP_LOW = frozenset({"list", "show", "freeze", "check", "help", "--version", "-V"})
_NODE_LOW = frozenset({"ls", "list", "view", "info", "outdated", "why", "explain", "help",
                       "--version", "-v", "config"})
_PUBLISH = frozenset({"publish", "unpublish", "login", "adduser", "owner", "yank", "deprecate"})

Rule = Callable[[SimpleCommand, Risk], Risk]
_HELP = frozenset({"--help", "-h"})


def _help_is_low(cmd: SimpleCommand, base: Risk) -> Risk:
    """The catalog's tier by subcommand, except that asking any subcommand for its help
    (``gem nexus --help``: a plugin's) only prints."""
    if not cmd.args or cmd.args in (("--version",), ("-v",), ("-V",)):
        return _LOW
    return _LOW if _HELP & set(cmd.args) else base


# What an editor CLI prints without opening anything: its version, help, extensions.
EDITOR_READS = frozenset({"--version", "-v", "--help", "-h", "--list-extensions",
                          "--show-versions", "--status", "--telemetry"})
_EDITOR_VALUED = frozenset({"--category", "--locate-shell-integration-path",
                            "--locate-extension"})


def editor_reads(cmd: SimpleCommand) -> bool:
    """``code --version``, ``cursor --list-extensions --show-versions``: the editor prints
    and exits; anything else opens a window, a folder, a tunnel or installs code."""
    args = cmd.args
    if not args:
        return False
    i = 0
    while i < len(args):
        name = args[i].partition("=")[0]
        if name in _EDITOR_VALUED:
            i += 1 if "=" in args[i] else 2
        elif name in EDITOR_READS:
            i += 1
        else:
            return False
    return True


def _editor(cmd: SimpleCommand, base: Risk) -> Risk:
    return _LOW if editor_reads(cmd) else base


def registry_rehearsal(cmd: SimpleCommand) -> bool:
    """A registry verb that changes nothing: a publish's ``--dry-run``, the owners listed
    (``npm owner ls PKG``, ``cargo owner --list``, ``gem owner GEM`` without ``--add`` or
    ``--remove``)."""
    operands = [a for a in cmd.args if not a.startswith("-")]
    first = operands[:1]
    if first in (["publish"], ["pack"]) and "--dry-run" in cmd.args:
        return True
    if first == ["owner"]:
        if cmd.program == "gem":
            return not {"-a", "--add", "-r", "--remove"} & set(cmd.args)
        if cmd.program == "cargo":
            return bool({"-l", "--list"} & set(cmd.args))
        return operands[1:2] in (["ls"], ["list"])
    return False


def _gem(cmd: SimpleCommand, base: Risk) -> Risk:
    """``gem install`` installs into the Ruby's own gems (every project's) unless
    ``--install-dir`` puts them in a directory of the project's."""
    if registry_rehearsal(cmd):
        return _MEDIUM
    tier = _help_is_low(cmd, base)
    if tier is _MEDIUM and _first(cmd) == "install" and not (
            {"-i", "--install-dir"} & {a.split("=", 1)[0] for a in cmd.args}):
        return _HIGH
    return tier


def _perl_packages(cmd: SimpleCommand, base: Risk) -> Risk:
    """cpm installs into the project's ``local/`` unless ``-g``/``--global`` puts modules in
    the Perl's own library (every project's); cpanm installs where the Perl's configuration
    says (a local::lib, often), as pip does, but ``-U``/``--uninstall`` removes a module from
    that library and ``--self-upgrade`` replaces cpanm itself. Short options cluster
    (``-Uf``), as both programs' getopt allows."""
    opts = {a.split("=", 1)[0] for a in cmd.args if a.startswith("--")}
    short = {c for a in cmd.args if a[:1] == "-" and a[1:2] != "-" for c in a[1:]}
    if cmd.program == "cpm":
        return _HIGH if "--global" in opts or "g" in short else base
    if {"--uninstall", "--self-upgrade"} & opts or "U" in short:
        return _HIGH
    return base


# GNU tar, cpio and mt take an archive named ``[user@]host:file`` as one on another machine,
# reached through rsh/ssh (``--rsh-command``), unless ``--force-local`` says otherwise.
_REMOTE_ARCHIVE = lazy_pattern(r"^(?:[\w.+-]+@)?[A-Za-z0-9][\w.-]+:(?!//)")


def _archive(cmd: SimpleCommand, base: Risk) -> Risk:
    """An archive on another machine (``tar xf user@host:a.tar``) is the network."""
    args = cmd.args
    if "--force-local" in args or ":" not in cmd.text:
        return base
    for arg in args:
        value = arg.split("=", 1)[1] if arg.startswith("--file=") else arg
        if not value.startswith("-") and _REMOTE_ARCHIVE.match(value):
            return _HIGH
    return base


def _plain(tier: Callable[[SimpleCommand], Risk]) -> Rule:
    return lambda cmd, base: tier(cmd)


RULES: dict[str, Rule] = {
    "git": _git,
    "docker": _docker,
    "crontab": _plain(lambda cmd: _LOW if cmd.args == ("-l",) else _HIGH),
    "command": _plain(lambda cmd: _LOW if cmd.args[:1] in (("-v",), ("-V",)) else _MEDIUM),
    "pip": _plain(_packages(_PIP_LOW, frozenset(), frozenset({"--user", "--break-system-packages",
                                                             "--root", "--prefix"}))),
    "pipx": _plain(_tiered(frozenset({"list", "--version"}),
                           frozenset({"install", "inject", "upgrade", "reinstall",
                                      "upgrade-all"}))),
    "uv": _plain(_packages(frozenset({"--version", "version"}), frozenset({"tool"}),
                           frozenset({"--system", "--break-system-packages"}))),
    "node-packages": _plain(_packages(_NODE_LOW, _PUBLISH,
                                      frozenset({"-g", "--global", "--location"}))),
    "cargo": _plain(_packages(frozenset({"--version", "tree", "metadata"}), _PUBLISH,
                              frozenset())),
    "go": _plain(_packages(frozenset({"version", "env", "list", "doc", "vet"}), frozenset(),
                           frozenset())),
    "openssl": _plain(_openssl),
    "text-tool": _plain(_text_tool),
    "gem": _gem,
    "perl-packages": _perl_packages,
    "system-packages": _plain(_system_packages),
    "sysctl": _plain(_sysctl),
    "status-only": _plain(_status_only),
    # sudo, doas: a status query shows more of the system's state, the rest may change it
    "privileged": _plain(lambda cmd: _MEDIUM if privileged_query(cmd) is not None else _HIGH),
    "sets-system": _plain(_sets_system),
    "cloud-reads": _plain(_cloud_reads),
    "editor": _editor,
    "archive": _archive,
    "ansible-galaxy": userwide.ansible_galaxy,
    "corepack": userwide.corepack,
}
