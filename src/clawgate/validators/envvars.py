"""Environment variables that make other programs load or run code: DENY or ASK.

Set as a prefix (``LD_PRELOAD=x.so ls``), alone (``BASH_ENV=x``), exported (``export PAGER=x``)
or through ``env``/``declare``. Harmless ones (``LANG=C``, ``TZ=UTC``) are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell import parse
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.validators import lineshapes as ls
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.envloads import known_module, module_load
from clawgate.validators.ifsloops import split_once
from clawgate.validators.paths import resolve, under
from clawgate.validators.programs import harmless_command

_LOADERS = frozenset({"LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "BASH_ENV", "ENV",
                      "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS4", "PERL5DB"})
_RUNNERS = frozenset({"GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS",
                      "SSH_ASKPASS", "SUDO_ASKPASS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
                      "GIT_PAGER", "GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "GIT_CONFIG",
                      "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT",
                      "GIT_TEMPLATE_DIR", "PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR",
                      "VISUAL", "BROWSER", "LESSOPEN", "LESSCLOSE", "IFS",
                      "PYTHONSTARTUP", "PYTHONHOME", "NODE_OPTIONS", "PERL5OPT", "RUBYOPT",
                      "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"})
# Search paths: fine when every new entry is inside the workspace (``PATH=./bin:$PATH``).
# The library paths likewise: the project's own build/lib is what its tests load.
_SEARCH_PATHS = frozenset({"PATH", "PYTHONPATH", "NODE_PATH", "PERL5LIB", "PERLLIB", "RUBYLIB",
                           "CLASSPATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"})
SEARCH_PATHS = _SEARCH_PATHS
# launchctl setenv NAME VALUE sets a variable for every program launchd starts from then on
# (macOS): the same as an export that outlives the shell.
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly", "env", "launchctl"})
# ``export NAME=VALUE``; ``NAME+=VALUE`` appends, judged here as if VALUE were the whole
_NAME_VALUE = lazy_pattern(r"^([A-Za-z_][A-Za-z0-9_]*)\+?=")
_ENV_NAME_VALUE = lazy_pattern(r"^([^=-][^=]*)=")
# Where installed programs live: putting these on PATH runs nothing new.
_SYSTEM_BIN = lazy_pattern(r"^(?:/(?:usr/)?(?:local/)?s?bin|/opt/[\w.-]+/bin|/snap/bin|"
                           r"(?:~|\$\{?HOME\}?)/(?:\.local|\.cargo|go|\.npm-global|"
                           r"Library/Python/[0-9.]+)/bin)/?$")
# Builtins for which a prefix ``IFS=`` only says how to split the text they read.
_SPLITTERS = frozenset({"read", "mapfile", "readarray"})
# Option variables whose options, one by one, load nothing (feature switches and limits):
# ``NODE_OPTIONS=--experimental-vm-modules``; ``--require``, ``--import``, ``--loader`` and
# ``--experimental-loader`` load code and are not among them. RUBYOPT ``-I`` is checked as a
# search path.
_SWITCHES = lazy_pattern(
    r"^(?:--(?:no-)?experimental-(?!loader)[\w-]+|--no-(?:warnings|deprecation)|"
    r"--(?:enable-source-maps|expose-gc|trace-warnings|trace-deprecation|trace-uncaught|"
    r"openssl-legacy-provider|use-openssl-ca|preserve-symlinks)|"
    r"--(?:max-old-space-size|max-semi-space-size|stack-size|unhandled-rejections|"
    r"dns-result-order|title)=[\w.-]+|"
    r"-W[0-2:]?\w*|-w|--(?:disable|enable)[=-][\w,-]+|--y?jit)$")
# JVM options that load and run nothing: heap and GC settings, properties, module access
# (``-javaagent:``, ``-agentpath:`` and ``-XX:OnError=`` are judged by CG-ENV-005).
JVM_OPTION_VARIABLES = frozenset({"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"})
_JVM_SWITCH = lazy_pattern(r"^-(?:X(?!X:On|bootclasspath)[\w:+=.,/-]*|D[\w.-]+(?:=[\w.,:/@-]*)?|"
                           r"ea|da|esa|dsa|server|client|verbose(?::\w+)?|"
                           r"-add-(?:opens|exports|modules|reads)=[\w./=,-]+|-enable-preview)$")
OPTION_VARIABLES = frozenset({"NODE_OPTIONS", "RUBYOPT", "PERL5OPT"}) | JVM_OPTION_VARIABLES
# Variables naming the ssh a program runs: a plain ``ssh`` with options is what they are for.
SSH_VARIABLES = frozenset({"GIT_SSH_COMMAND", "RSYNC_RSH", "BORG_RSH", "CVS_RSH"})
_SUBSTITUTED = lazy_pattern(r"^\$\((.*)\)$", re.S)
_LINE_FILTERS = frozenset({"-v", "-F", "-E", "-x", "-w", "-i", "--invert-match"})


def assignments(cmd: SimpleCommand) -> Iterator[tuple[str, Word]]:
    """(name, value word) of every variable a command sets for itself or its children."""
    for assignment in cmd.assignments:
        yield assignment.name, assignment.value
    if cmd.program not in _DECLARERS:
        return
    if cmd.program == "launchctl":
        if cmd.words[1:2] and cmd.words[1].value == "setenv":  # setenv NAME VALUE [NAME VALUE…]
            for key, setting in zip(cmd.words[2::2], cmd.words[3::2], strict=False):
                if key.value is not None:
                    yield key.value, setting
        return
    for word in cmd.words[1:]:
        found = _NAME_VALUE.match(word.text)
        if found is None and cmd.program == "env" and word.value is not None:
            # env takes any word with a ``=`` for a variable, whatever its name
            # (``env 'BASH_FUNC_ls%%=() { …; }' bash``: an exported function)
            named = _ENV_NAME_VALUE.match(word.value)
            if named is not None:
                rest = word.value[named.end() :]
                yield named.group(1), Word(rest, rest, word.quoted, word.expansions)
                continue
        if found is None and cmd.program == "env" and not word.text.startswith("-"):
            return  # the command env runs: what follows are its arguments
        if found is not None:
            rest = word.text[found.end() :]
            value = None if word.value is None else word.value[found.end() :]
            yield found.group(1), Word(rest, value, word.quoted, word.expansions)


@register
class CodeLoadingVariable(Validator):
    """Variables that inject code into every process started after them: ``LD_PRELOAD``,
    ``LD_AUDIT``, ``BASH_ENV``, ``ENV``, ``PROMPT_COMMAND``, ``PS4``, ``SHELLOPTS``.

    Bad: ``LD_PRELOAD=/tmp/hook.so ls``. Harmless: ``LANG=C ls``.
    """

    id = "CG-ENV-001"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if program in _DECLARERS else sh.ASSIGN

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not cmd.assignments and cmd.program not in _DECLARERS:
            return NO_OPINION
        for name, value in assignments(cmd):
            if name in _PROMPTS and value.value is not None and _inert_prompt(value.value):
                continue  # PS4='+ ${BASH_SOURCE}:${LINENO}: ': text and variables only
            if name in _PRELOADS and installed_libraries(value):
                return Verdict.ask(self.id, f"{name} loads a library of the system into every "
                                   "program started after it", hint=f"do not set {name}")
            if name in _LOADERS or name.startswith("BASH_FUNC_"):
                return Verdict.deny(self.id, f"{name} makes programs load or run other code",
                                    hint=f"do not set {name}")
        return NO_OPINION


# Variables whose value is a list of libraries loaded into every program.
_PRELOADS = frozenset({"LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES"})
# Where only the system's package manager (root) installs libraries.
_SYSTEM_LIBRARY = lazy_pattern(
    r"^/(?:usr/)?lib(?:32|64|x32)?/[\w./+-]+\.(?:so|dylib)(?:\.[\d.]+)?$")
# A toolchain asked where its own library is (``$(g++ --print-file-name=libstdc++.so)``,
# ``$(clang -print-file-name=libclang_rt.asan-x86_64.so)``): a file it installed.
_TOOLCHAIN_LIBRARY = lazy_pattern(
    r"^\$\((?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+)(?:-[\d.]+)? +-?-print-file-name="
    r"[\w.+-]+\.(?:so|dylib)(?:\.[\d.]+)?\)$")


def installed_libraries(value: Word) -> bool:
    """Every entry of a preload list is a library the system installed: a literal path under
    ``/usr/lib`` or ``/lib`` (where only root installs), or the path a compiler prints for its
    own library. Such a preload adds no code of the line's choosing (sanitizer runtimes,
    ``libstdc++``); a library from anywhere else, or a value known only at run time, may."""
    text = value.text.strip('"')
    entries = [e for e in re.split(r"[: ]", text) if e] if "$(" not in text else [text]
    return bool(entries) and all(
        (_SYSTEM_LIBRARY.match(e) and ".." not in e) or _TOOLCHAIN_LIBRARY.match(e)
        for e in entries)


@register
class CommandVariable(Validator):
    """Variables that name a program to run or where programs are found: ``GIT_SSH_COMMAND``,
    ``GIT_EXTERNAL_DIFF``, ``PAGER``, ``EDITOR``, ``NODE_OPTIONS``, and search paths
    (``PATH``, ``PYTHONPATH``) with entries outside the workspace. For ``PATH``, entries
    after its old value only add programs, never replace one: ``PATH="$PATH:DIR"`` and
    ``PATH+=":DIR"`` pass. (``export NAME+=VALUE`` is judged as ``NAME=VALUE``, the value it
    adds, by every rule on variables.)

    Bad: ``GIT_SSH_COMMAND='sh -c id' git fetch``. Harmless: ``PYTHONPATH=src pytest``.
    """

    id = "CG-ENV-002"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if program in _DECLARERS else sh.ASSIGN

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not cmd.assignments and cmd.program not in _DECLARERS:
            return NO_OPINION
        as_git_c = _as_git_c(cmd)
        for name, value in assignments(cmd):
            if as_git_c and name.startswith(_GIT_CONFIG_PAIRS):
                continue  # every pair known: judged below as the git -c settings they are
            if name in _RUNNERS and not name.startswith("GIT_CONFIG_COUNT") and (
                    value.value is not None) and (
                    harmless_command(value.value) or value.value == ""):
                continue  # PAGER=cat, GIT_EDITOR=vim, an empty PAGER= (see CG-ESC-007)
            if name == "IFS" and cmd.program in _SPLITTERS and _prefix(cmd, name):
                continue  # IFS=. read -r a b: how read splits its input, nothing more
            if name == "IFS" and not cmd.words:
                continue  # IFS=$'\n' alone: CG-ENV-003 reads the commands after it
            if name in OPTION_VARIABLES and switches_only(value, ctx, name):
                continue
            if name in SSH_VARIABLES and value.value is not None and plain_ssh(value.value):
                continue  # GIT_SSH_COMMAND='ssh -i ~/.ssh/deploy_key'
            if name.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "GIT_CONFIG_COUNT")):
                return Verdict.unwrap(*_as_git_c(cmd), outcome=Outcome.ASK, rule_id=self.id,
                                      message=f"{name}={value.text} sets git configuration")
            if name in _RUNNERS:
                return Verdict.ask(self.id, f"{name}={value.text} changes which program runs",
                                   hint="run the program directly instead")
            if name in _SEARCH_PATHS and not _inside(
                    value, ctx, name, _appends(cmd, name, value)) and (
                    not _filtered_self(value.shown.strip("\"'"), name)):
                return Verdict.ask(self.id, f"{name} finds programs or modules outside the "
                                   "workspace", hint="keep search paths inside the project")
        if as_git_c:
            return Verdict.unwrap(*as_git_c)
        return NO_OPINION


@register
class SplittingChange(LineValidator):
    """``IFS=…`` set on its own changes how every later unquoted expansion of the line splits:
    a program name built from one (``IFS=,; $cmd``), or an unquoted variable the line set
    (``IFS=,; f=a,~; rm -rf $f`` removes ``~``), is no longer what it reads as. ASK. Later
    commands that quote their expansions (the loop idiom) are unchanged by it, and so is an
    unquoted loop variable whose list IFS itself split (``validators/ifsloops.py``).

    Bad: ``IFS=,; cmd=rm,-rf,build; $cmd``. Harmless:
    ``IFS=$'\n'; for f in $(git ls-files); do shellcheck "$f"; done``.
    """

    id = "CG-ENV-003"

    def line_shapes(self) -> int:
        return ls.EQUALS

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if "IFS=" not in parsed.source:
            return NO_OPINION
        commands = parsed.commands
        starts = [c.offset for c in commands if not c.words and _prefix(c, "IFS")]
        if not starts:
            return NO_OPINION
        assigned = {a.name for c in commands for a in c.assignments}
        for found in _LOOP_NAMES.finditer(parsed.source):  # for x in a,~: x is set here too
            assigned.update((found.group(1) or found.group(2) or "").split())
        assigned -= split_once(parsed, starts[0])  # for f in $(git ls-files): f holds no IFS
        for cmd in commands:
            if cmd.offset <= starts[0] or not cmd.words:
                continue
            name = cmd.words[0]
            if name.value is None or name.expansions:
                return Verdict.ask(self.id, f"IFS set on the line splits the program name "
                                   f"{name.text!r} anew", hint="leave IFS alone")
            split = next((w.text for w in cmd.words[1:] if '"' not in w.text and
                          set(_VARIABLE.findall(w.text)) & assigned), None)
            if split is not None:
                return Verdict.ask(self.id, f"IFS set on the line splits {split!r} anew",
                                   hint="quote the expansion or leave IFS alone")
        return NO_OPINION


_VARIABLE = lazy_pattern(r"\$\{?([A-Za-z_]\w*)")
_LOOP_NAMES = lazy_pattern(r"\b(?:for|select)\s+([A-Za-z_]\w*)\s+in\b|\bread\s+(?:-\w+\s+)*"
                           r"((?:[A-Za-z_]\w*\s*)+)")


def _as_git_c(cmd: SimpleCommand) -> list[str]:
    """``GIT_CONFIG_KEY_0=k GIT_CONFIG_VALUE_0=v git log`` is ``git -c k=v log``: handed on so
    the rules on ``git -c`` settings judge the pairs (a pager, an fsmonitor ...). Exported
    (``export GIT_CONFIG_COUNT=1 …``), the pairs are judged as the settings of a git log."""
    import shlex

    pairs: dict[str, dict[str, str]] = {}
    count = None
    for name, value in assignments(cmd):
        if name == "GIT_CONFIG_COUNT":
            count = value.value
        kind, _, index = name.removeprefix("GIT_CONFIG_").partition("_")
        if kind in ("KEY", "VALUE"):
            if value.value is None:
                return []  # a pair known only at run time: CG-ENV-002 asks
            pairs.setdefault(index, {})[kind] = value.value
    if count is None or not count.isdigit() or any(len(p) != 2 for p in pairs.values()) or (
            set(pairs) != {str(i) for i in range(int(count))}):
        return []  # not the pairs git reads: CG-ENV-002 asks
    settings = [f"-c {shlex.quote(p['KEY'] + '=' + p['VALUE'])}" for p in pairs.values()]
    if settings and cmd.program in _DECLARERS:
        # exported for the git commands after it, whichever they are: judged as the settings
        # of a git log, which reads every one of them (a pager included)
        return [f"git {' '.join(settings)} log"]
    if not settings or cmd.program != "git":
        return []
    rest = " ".join(w.text for w in cmd.words[1:])
    return [f"git {' '.join(settings)} {rest}".strip()]


# Prompts the shell expands each time it shows them (PS4 before every traced line under
# ``bash -x``): parameter expansion, command substitution and arithmetic, whose array
# subscripts run command substitutions in the values they read.
_PROMPTS = frozenset({"PS4"})
_PLAIN_REFERENCE = lazy_pattern(r"\$(?:[A-Za-z_]\w*|\{[A-Za-z_]\w*(?:\[\d+\])?\}|[#?$!0-9])")


def _inert_prompt(value: str) -> bool:
    """A prompt whose expansion runs nothing: text, prompt escapes and plain references to
    variables (``$LINENO``, ``${BASH_SOURCE}``, ``${FUNCNAME[0]}``); no ``$(``, backquote,
    ``$((``, or ``${…}`` with an operator (a substring offset is arithmetic)."""
    return "`" not in value and "$" not in _PLAIN_REFERENCE.sub("", value)


_GIT_CONFIG_PAIRS = ("GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")


def _prefix(cmd: SimpleCommand, name: str) -> bool:
    return any(a.name == name for a in cmd.assignments)


def switches_only(value: Word, ctx: Context, name: str = "") -> bool:
    """Every option of ``NODE_OPTIONS``/``RUBYOPT``/``PERL5OPT`` is a switch that loads nothing
    (``-w``), a ``-IDIR`` inside the workspace, or loads the project's own module or an
    installed package named plainly (``--require ./tests/setup.js``, ``-MCarp=verbose``:
    ``envloads.py``; never a module outside the workspace or code in the value); every JVM
    option of ``JAVA_TOOL_OPTIONS`` and the like a heap, GC, property or module-access
    setting."""
    if value.value is None:
        return False
    if name in JVM_OPTION_VARIABLES:
        words = value.value.split()
        return bool(words) and all(_JVM_SWITCH.match(w) for w in words)
    options = [_v8_spelling(o) for o in value.value.split()]
    index = 0
    while index < len(options):
        option = options[index]
        following = options[index + 1] if index + 1 < len(options) else None
        loaded = module_load(name, option, following)
        index += loaded[1] if loaded is not None else 1
        if loaded is not None:  # the project's own module or an installed package
            if not known_module(name, loaded[0], lambda p: _inside(Word(p, p), ctx)):
                return False
        elif option.startswith("-I") and len(option) > 2:
            if not _inside(Word(option[2:], option[2:]), ctx):
                return False
        elif not _SWITCHES.match(option):
            return False
    return bool(options)


def _filtered_self(text: str, name: str) -> bool:
    """``PATH="$(echo "$PATH" | tr ':' '\\n' | grep -v '\\.nvm' | tr '\\n' ':')"``: the old
    value with entries left out and nothing added (``grep`` drops lines, ``tr`` only swaps
    ``:`` and newlines)."""
    found = _SUBSTITUTED.match(text)
    if found is None:
        return False
    try:
        commands = parse(found.group(1)).commands
    except ValueError:
        return False
    if not commands or any(c.assignments or c.redirects or c.nesting or c.stage != i
                           for i, c in enumerate(commands)):
        return False
    head = commands[0]
    if head.program != "echo" or [w.text.strip('"') for w in head.words[1:]] not in (
            [f"${name}"], [f"${{{name}}}"]):
        return False
    return all(_drops_entries(c) for c in commands[1:])


def _drops_entries(cmd: SimpleCommand) -> bool:
    values = [w.value for w in cmd.words[1:]]
    if any(v is None for v in values):
        return False
    words = [v for v in values if v is not None]
    if cmd.program == "tr":
        return len(words) == 2 and all(w in (":", "\\n") for w in words)
    if cmd.program == "grep":
        options = [w for w in words if w.startswith("-")]
        return len(words) - len(options) == 1 and all(o in _LINE_FILTERS for o in options)
    return False


def _v8_spelling(option: str) -> str:
    """Node reads ``--max_old_space_size`` as ``--max-old-space-size``: judge one spelling."""
    name, eq, rest = option.partition("=")
    return name.replace("_", "-") + eq + rest if name.startswith("--") else option


def _appends(cmd: SimpleCommand, name: str, value: Word) -> bool:
    """``PATH+=":DIR"``: the entries go after the old value's, whole (a value not starting
    with ``:`` glues its first entry onto the old last one, another directory in its place)."""
    return value.shown.strip("\"'").startswith(":") and f"{name}+={value.text}" in cmd.text


def _inside(value: Word, ctx: Context, name: str = "", appended: bool = False) -> bool:
    """Every entry of a ``:`` list is inside the workspace or the variable ``name``'s old
    value (``$PATH`` in ``PATH=…``; another variable, ``PATH="$TOOLS:$PATH"``, is an entry known
    only at run time). For PATH, entries after the old value count too: a program is taken from
    the first directory that has it, so they only add programs, never replace one
    (``PATH="$PATH:$(go env GOROOT)/lib/wasm"``). PYTHONPATH, RUBYLIB and the like are read
    before the installed libraries wherever their entries stand, so not for them.
    ``appended``: the value is added after the old one (``PATH+=":DIR"``)."""
    text = value.shown.strip("\"'").replace("$(pwd)", "$PWD").replace("`pwd`", "$PWD")
    entries = text.split(":")
    own = {f"${name}", f"${{{name}}}"} if name else set()
    for index, entry in enumerate(entries):
        if not entry or entry in own or _SYSTEM_BIN.match(entry):
            continue
        if name == "PATH" and (appended or any(e in own for e in entries[:index])):
            continue
        path = resolve(Word(entry, None if "$" in entry else entry), ctx).path
        if path is None or not under(path, ctx.workspace):
            return False
    return True


def system_bin(entry: str) -> bool:
    """A PATH entry is one of the system's or the user's installed-program directories."""
    return _SYSTEM_BIN.match(entry) is not None


def inside_workspace(value: Word, ctx: Context) -> bool:
    """Every entry of the ``:`` list ``value`` is inside the workspace."""
    return _inside(value, ctx)


_SSH_UNSAFE = lazy_pattern(r"(?i)command|\bexec\b|include|(?:^|\s)-F|(?:^|\s)-[a-zA-Z]*[FEo]?\S*"
                           r"(?:PKCS11|SecurityKeyProvider)")


def plain_ssh(value: str) -> bool:
    """``ssh -p 2222``, ``ssh -i ~/.ssh/deploy -o StrictHostKeyChecking=no``: the remote shell
    such variables exist to name, with no option that runs a command or reads another
    configuration (``ProxyCommand``, ``LocalCommand``, ``-F FILE``, a PKCS#11 library)."""
    words = value.split()
    return bool(words) and words[0] in ("ssh", "/usr/bin/ssh") and not any(
        ch in value for ch in ";&|`$()<>\n") and not _SSH_UNSAFE.search(value)
