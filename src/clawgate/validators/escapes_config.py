"""Shell escapes through configuration: settings and environment variables that name a command.

``git -c core.pager=CMD``, ``hg --config alias.x=!CMD``, ``ssh -oProxyCommand=CMD``,
``apt-get -o APT::Update::Pre-Invoke::=CMD``, ``PAGER=CMD git -p``, ``LD_PRELOAD=x.so``.
"""

from __future__ import annotations

from clawgate import programs
from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import TILDE, SimpleCommand, Word
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.envsettings import (
    NPM_LIKE,
    NPM_RUNNING_KEYS,
    environment_settings,
    npm_environment,
    npm_variables,
    plain_choice,
)
from clawgate.validators.envvars import (
    OPTION_VARIABLES,
    SSH_VARIABLES,
    plain_ssh,
    switches_only,
)
from clawgate.validators.escapes import STANDARD_SHELL, harmless_helper
from clawgate.validators.paths import resolve, under
from clawgate.validators.payloads import payload_verdict
from clawgate.validators.programs import (
    COMMAND_VARIABLE,
    LOADER_VARIABLES,
    harmless_command,
)
from clawgate.validators.scriptfiles import recipes

_COMMAND_KEY = lazy_pattern(
    r"(?i)pager|editor|command|cmd\b|proxycommand|localcommand|helper|hook|exec|program|"
    r"fsmonitor|external|invoke|askpass|launcher|wrapper|script|textconv|\.clean$|\.smudge$|"
    r"gitproxy|\.driver$|"
    r"\.process$|shell|interpreter|browser|viewer|difftool\.|mergetool\.|uploadpack|receivepack|"
    r"runner|linker|\.rustc$|\.rustdoc$|credential-provider|^git$|"
    r"^ui\.ssh$|"  # the ssh command Mercurial runs for ssh:// repositories
    r"^config:tunnels:")  # the program Subversion runs for svn+NAME:// repositories
# Programs that take KEY=VALUE settings on the command line: which options give them is the
# program catalog's ``setting`` kind (git -c, ssh -o, apt -o, hg --config, svn --config-option,
# cargo --config);
# this set is for dispatch only (a test holds it to the catalog).
SETTERS = frozenset({"git", "hg", "svn", "ssh", "scp", "sftp", "sshfs", "autossh", "apt",
                     "apt-get", "apt-cache", "cargo", "mount"})
_GIT_DIRECT = frozenset({"--exec-path", "--upload-pack", "--receive-pack"})
_TILDE = frozenset({TILDE})
# git settings that pull in another configuration file, whose settings may run anything.
_GIT_INCLUDE = lazy_pattern(r"(?i)^(?:include|includeif\..+)\.path$")
_GIT_U_IS_UPLOAD_PACK = frozenset({"clone", "ls-remote"})  # `git push -u` sets an upstream
# Loader variables whose value is a command line (``GIT_EXTERNAL_DIFF='…'`` is run by the shell
# with the files appended), unlike a library or a directory: ASK, and the command is checked.
_LOADED_COMMANDS = frozenset({"GIT_EXTERNAL_DIFF"})
# make's flags from the environment: ``--eval``/``-E`` code and ``-f`` makefiles among them.
_MAKE_FLAGS = frozenset({"MAKEFLAGS", "GNUMAKEFLAGS", "MFLAGS"})
_MAKE_CODE = lazy_pattern(r"(?:^|\s)-(?:-eval\b|-file\b|-makefile\b|E|f|[a-zA-Z]*[fE])")
_MAKE_EVAL = lazy_pattern(r"--eval[= ]'?([^']*)'?|(?:^|\s)-E[ ]?'?([^']*)'?")
_PERSIST = {("git", "config"), ("npm", "config"), ("yarn", "config"), ("pip", "config"),
            ("pnpm", "config"), ("hg", "config"), ("gh", "config")}
# npm and pnpm take any configuration key as an option of any command (``npm test
# --script-shell=X``, ``npx --shell X``): the keys whose value is a program they start.
_NPM_LIKE = frozenset({"npm", "pnpm", "npx"})
_NPM_OWN_OPERANDS = {"npx": 1, "pnpm": 2}  # the words after these are another program's


def _settings(cmd: SimpleCommand, program: str, ctx: Context) -> list[tuple[str, str]]:
    """(key, value) of every setting given on the command line. A cargo ``--config`` without
    ``=`` names a file to read settings from: one in the workspace is like the project's own
    ``.cargo/config.toml``; one from elsewhere (or only known at run time) may say anything."""
    found: list[tuple[str, str]] = []
    for effect in programs.effects(cmd) if program in SETTERS else ():
        if effect.kind == "setting" and effect.word is not None:
            if program == "cargo" and "=" not in effect.word.shown:
                if not _in_workspace(effect.word, ctx):
                    found.append(("config-file", ""))
                continue
            key, _, value = effect.word.shown.partition("=")
            value = _unquote(value.strip())
            given = {a.name: a.value.value for a in cmd.assignments}
            if effect.option == "--config-env" and given.get(value) is not None:
                value = str(given[value])  # EVIL='sh -c …' git --config-env=core.pager=EVIL
            elif effect.option == "--config-env" and _GIT_INCLUDE.match(key.strip()):
                value = "${" + value + "}"  # the path is in this environment variable
            found.append((key.strip(), value))
    found += environment_settings(cmd)
    words = cmd.words
    if program in _NPM_LIKE:
        found += _npm_options(program, words)
        found += npm_environment(cmd)
    sub = words[1].value if len(words) > 1 else None
    if program == "gh" and sub == "alias":
        found += _gh_alias(words)
    if (program, sub or "") in _PERSIST:
        rest = [w.shown for w in words[2:] if not w.shown.startswith("-")]
        if rest and rest[0] in ("set", "edit"):
            rest = rest[1:]
        if len(rest) >= 2:
            found.append((rest[0], rest[1]))
        elif rest and "=" in rest[0]:
            key, _, value = rest[0].partition("=")
            found.append((key, value))
        option_editor = next((w for w in words if w.shown.startswith("--editor")), None)
        if option_editor is not None:
            found.append(("editor", _value_after(words, option_editor)))
    return found


def _npm_options(program: str, words: tuple[Word, ...]) -> list[tuple[str, str]]:
    """(key, value) of the program-starting configuration keys given as options, ``--key=V``
    or ``--key V``: npm reads them up to a ``--``; npx before the package it runs, pnpm before
    the script or command after its own subcommand (later words are theirs). A plain shell
    (``--script-shell=bash``) is only a choice of shell, ``--browser=false`` none."""
    found: list[tuple[str, str]] = []
    operands, last = 0, _NPM_OWN_OPERANDS.get(program)
    for i, word in enumerate(words[1:], start=1):
        text = word.shown
        if text == "--":
            break
        if not text.startswith("-"):
            operands += 1
            if last is not None and operands >= last:
                break
            continue
        name, eq, value = text[2:].partition("=") if text.startswith("--") else ("", "", "")
        if name not in NPM_RUNNING_KEYS:
            continue
        if not eq:
            value = words[i + 1].shown if i + 1 < len(words) else ""
        value = _unquote(value)
        if plain_choice(value):
            continue
        found.append((name, value))
    return found


def _gh_alias(words: tuple[Word, ...]) -> list[tuple[str, str]]:
    """``gh alias set NAME EXPANSION --shell`` (or an expansion starting with ``!``): a shell
    command gh runs as ``gh NAME``, as git's ``alias.NAME=!CMD``."""
    texts = [w.shown for w in words[2:]]
    operands = [_unquote(t) for t in texts if not t.startswith("-")]
    if operands[:1] != ["set"] or len(operands) < 3:
        return []
    shell = "--shell" in texts or "-s" in texts or operands[2].startswith("!")
    return [(f"alias.{operands[1]}", "!" + operands[2].lstrip("!"))] if shell else []


def _unquote(value: str) -> str:
    """A setting's value as the program reads it: ``"!touch x"`` (quotes kept by the shell's
    single quotes) is ``!touch x``."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _git_direct(cmd: SimpleCommand, flags: frozenset[str]) -> tuple[str, str | None] | None:
    """(flag, program it names) for git's options that run a program they are given
    (``--upload-pack=P``, ``-u P``, ``-uP``, ``--exec-path=DIR``) and ``ext::`` URLs."""
    words = cmd.words
    for i, word in enumerate(words[1:], start=1):
        text = word.shown
        name, eq, value = text.partition("=")
        if text.startswith("ext::") or "=ext::" in text:  # a URL, or an option's (--remote=)
            known = word.value
            return "ext::", (known[known.index("ext::") + 5:]
                             if known is not None and "ext::" in known else None)
        if name in flags:
            if eq:
                return name, value if word.value is not None else None
            following = words[i + 1] if i + 1 < len(words) else None
            return name, following.value if following is not None else ""
        if "-u" in flags and text.startswith("-u") and len(text) > 2 and text[2] != "-":
            return "-u", text[2:] if word.value is not None else None
    return None


def _in_workspace(word: Word, ctx: Context) -> bool:
    path = resolve(word, ctx).path if word.value is not None else None
    return path is not None and under(path, ctx.workspace)


def _value_after(words: tuple[Word, ...], word: Word) -> str:
    if "=" in word.shown:
        return word.shown.partition("=")[2]
    index = words.index(word)
    return words[index + 1].shown if index + 1 < len(words) else ""

_ENVIRONMENT_SETTERS = frozenset({"env", "export", "declare", "typeset", "readonly", "local"})

@register
class ConfigCommand(Validator):
    """A setting given on the command line (or saved with ``git config``) that names a command:
    ``git -c core.pager=CMD``, ``-c alias.x=!CMD``, ``-c core.sshCommand``, ``hg --config``,
    ``svn --config-option config:helpers:editor-cmd=CMD``, ``ssh -oProxyCommand=CMD``,
    ``apt-get -o …Pre-Invoke=CMD``, ``git --exec-path=DIR``, ``git clone ext::CMD``. ASK, and
    check the command. A Mercurial extension loaded from a path
    (``hg --config extensions.x=/tmp/x.py``) is code run in hg: ASK.

    Bad: ``git -c core.pager='sh -c id' log``. Harmless: ``git -c color.ui=always log``.
    """

    id = "CG-ESC-006"
    programs = SETTERS | {"yarn", "pip", "pnpm", "npm", "npx", "rclone", "gh"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program is None or program not in self.programs:
            return NO_OPINION
        if program == "git":
            if "-c" not in cmd.text and "config" not in cmd.text and "-u" not in cmd.text and (
                    "GIT_CONFIG_" not in cmd.text) and (
                    "exec-path" not in cmd.text and "-pack" not in cmd.text and (
                        "ext::" not in cmd.text)):
                return NO_OPINION
            direct_flags = _GIT_DIRECT | ({"-u"} if _GIT_U_IS_UPLOAD_PACK & set(cmd.args)
                                          else frozenset())
            direct = _git_direct(cmd, direct_flags)
            if direct is not None:
                flag, value = direct
                return payload_verdict([value], self.id, f"git {flag} runs another program")
        commands: list[str | None] = []  # every one, not the first (PermitLocalCommand=yes)
        first = ""
        for key, value in _settings(cmd, program, ctx):
            if key == "config-parameters":
                return Verdict.ask(self.id, "GIT_CONFIG_PARAMETERS gives git settings only "
                                   "known when the line runs, which may make it run anything")
            if key == "config-file":
                return Verdict.ask(self.id, f"{program} reads its settings from a file outside "
                                   "the workspace, which may make it run anything")
            if program == "git" and _GIT_INCLUDE.match(key) and (
                    value.startswith("${") or not _in_workspace(Word(
                        value, value, False, _TILDE if value.startswith("~") else frozenset()),
                        ctx)):  # git expands a leading ~ in include paths
                return Verdict.ask(self.id, f"git reads more settings from {value!r} ({key}), "
                                   "outside the workspace, which may make it run anything")
            if key.lower().startswith("permit"):
                continue  # ssh's PermitLocalCommand=yes switches LocalCommand on: no command
            if program == "hg" and key.lower().startswith("extensions.") and (
                    value.strip() not in ("", "!") and not value.startswith("!")):
                return Verdict.ask(self.id, f"hg {key} loads Python code from {value!r} into "
                                   "Mercurial", hint="enable bundled extensions by name only")
            # an alias, or a submodule's update mode, whose value runs when it starts with !
            alias = key.lower().startswith("alias.") or (
                key.lower().startswith("submodule.") and key.lower().endswith(".update"))
            if not alias and harmless_helper(value):
                continue
            if (alias and value.startswith("!")) or (not alias and _COMMAND_KEY.search(key)):
                commands.append(_unquote(value))
                first = first or key
        if commands:
            return payload_verdict(commands, self.id, f"{program} setting {first} runs a command")
        return NO_OPINION


def _assignments(cmd: SimpleCommand) -> list[tuple[str, Word]]:
    """NAME=value pairs: prefixes, and the words of ``env`` and ``export``."""
    pairs = [(a.name, a.value) for a in cmd.assignments]
    pairs += [(n, w) for n, w in npm_variables(cmd) if n == "NODE_OPTIONS"]
    if cmd.program in _ENVIRONMENT_SETTERS:
        for word in cmd.words[1:]:
            name, eq, value = word.shown.partition("=")
            if eq and name.isidentifier():
                pairs.append((name, Word(value, value if word.value is not None else None)))
    return pairs


@register
class CommandEnvironment(Validator):
    """Environment variables that name a program others will run (``PAGER``, ``EDITOR``,
    ``VISUAL``, ``LESSOPEN``, ``*_COMMAND``, ``*_EDITOR`` ...) set to anything but an everyday
    pager or editor, and variables that load code into programs (``LD_PRELOAD``, ``BASH_ENV``,
    ``PERL5OPT``, ``GIT_EXEC_PATH``, an unusual ``PATH``): ASK, and check the command.

    Bad: ``PAGER='sh -c "exec sh 0<&1"' git -p help``. Harmless: ``PAGER=cat git log``.
    """

    id = "CG-ESC-007"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if program in _ENVIRONMENT_SETTERS | NPM_LIKE else sh.ASSIGN

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not cmd.assignments and cmd.program not in _ENVIRONMENT_SETTERS | NPM_LIKE:
            return NO_OPINION
        for name, word in _assignments(cmd):
            value = word.value
            if name == "PATH":
                continue  # search paths are CG-ENV-002's: inside the workspace is fine
            if name in OPTION_VARIABLES and switches_only(word, ctx, name):
                continue  # NODE_OPTIONS=--experimental-vm-modules, RUBYOPT=-Ilib: load nothing
            if name in _MAKE_FLAGS and value and _MAKE_CODE.search(value):
                evals = [found.group(1) or found.group(2) or ""
                         for found in _MAKE_EVAL.finditer(value)]
                return Verdict.unwrap(*(r for e in evals for r in recipes(e)),
                                      outcome=Outcome.ASK, rule_id=self.id,
                                      message=f"{name} gives make code or a makefile")
            if name == "TAR_OPTIONS":  # options every tar run takes: --to-command=…
                if value is None:
                    return Verdict.ask(self.id, "TAR_OPTIONS known only at run time")
                return Verdict.unwrap(f"tar {value} -tf archive.tar") if value else (
                    NO_OPINION)
            if name in _LOADED_COMMANDS and value:
                # a command line git runs through the shell: what it runs is checked too
                return Verdict.unwrap(value, outcome=Outcome.ASK, rule_id=self.id,
                                      message=f"{name} makes git run {value!r}")
            if name in LOADER_VARIABLES and not (name in SSH_VARIABLES and value is not None
                                                 and plain_ssh(value)):
                return Verdict.ask(self.id, f"{name} loads code into the programs that run")
            if value == "" and name not in LOADER_VARIABLES:
                continue  # PAGER= git log: no pager at all
            if name == "SHELL" and value is not None and STANDARD_SHELL.match(value):
                continue  # SHELL=/bin/bash: programs that start a shell would start one anyway
            if COMMAND_VARIABLE.search(name):
                if value is None:
                    return Verdict.ask(self.id, f"{name} names a program only known at run time")
                if not harmless_command(value) and not (
                        name.endswith(("_RSH", "_SSH")) and _plain_ssh(value)) and not (
                        name in SSH_VARIABLES and plain_ssh(value)):
                    return Verdict.unwrap(value.lstrip("|"), outcome=Outcome.ASK,
                                          rule_id=self.id,
                                          message=f"{name} makes programs run {value!r}")
        return NO_OPINION


def _plain_ssh(value: str) -> bool:
    """``RSYNC_RSH='ssh -p 2222'``: the remote shell such variables exist to name."""
    words = value.split()
    return bool(words) and words[0] in ("ssh", "/usr/bin/ssh") and not any(
        ch in value for ch in ";&|`$()<>\n") and "command" not in value.lower()
