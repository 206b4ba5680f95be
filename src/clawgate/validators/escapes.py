"""Shell escapes: argument patterns by which ordinary programs run other commands.

Generalised from GTFOBins rather than listed: an argument that names a shell, an option whose
value is a command (``--exec=``, ``--pre-hook``, ``-z CMD``), a value piped into a command
(``-o'|cmd'``), a shared library handed to a program, and flags that turn shell escapes on.
"""

from __future__ import annotations

import re

from clawgate import programs
from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.djangoshell import shell_code
from clawgate.validators.envprinters import sources_shell_setup
from clawgate.validators.payloads import SYSTEM_DIRS, command_text, payload_verdict
from clawgate.validators.programs import (
    HARMLESS_HELPERS,
    INSPECTORS,
    NET_TOOLS,
    SHELL_REFERENCE,
    SHELLS,
    harmless_command,
    words_of,
)
from clawgate.validators.wrappers import wrapped_program
from clawgate.validators.wraptable import PLAIN, PRIVILEGED

# Programs whose purpose is running a command, unwrapped (and judged) by the wrapper family.
FRONTENDS = (frozenset(PLAIN) | frozenset(PRIVILEGED) | SHELLS | words_of(
    "find fd fdfind xargs parallel watch ssh docker podman nerdctl kubectl lxc incus eval "
    "command npm npx yarn pnpm uv uvx poetry pipenv bundle cabal stack conda git"))
# Option names that say "the value is a command" (checked on long options of any program).
_STRONG = lazy_pattern(r"^--?(?:[\w-]+-)?(?:exec|execute|command|cmd|program|hook|rsh|"
                       r"launcher|wrapper|script|interpreter|action|helper)$|^--?(?:pre|post|up|"
                       r"down|to-command|route-up|ipchange|client-connect|learn-address|"
                       r"tls-verify|entrypoint|on-[\w-]+)$")
_WEAK = lazy_pattern(r"^--?(?:[\w-]+-)?(?:filter|editor|pager|shell|browser|ssh|viewer|opener)$")
# A value that is itself an exec directive (``exec=CMD``, ``unixexec:path=``, ``EXEC:cmd``,
# ``execute(cmd)``), whatever the option is called.
_EXEC_VALUE = lazy_pattern(r"(?i)(?:^|[=:,'\"])(?:unix|system)?exec(?:ute)?(?:-silent)?[:=(]"
                           r"(?!\s)")  # "Execute: make" is prose: a directive names its command
# Programs that only print their arguments: an exec directive among them is text.
_PRINTERS = frozenset({"echo", "printf"})
# Programs that only match or print the text they are given: an operand spelled like an exec
# directive is a search pattern or a message to them (``grep -n "EXECUTE:" tests.py``). Their
# options that do run something are the catalog's (``rg --pre``) and are read before this.
_TEXT_ONLY = words_of("grep egrep fgrep rg ag ack echo printf")
# Climbing out of a directory into the system's program directories (``../../bin/sh``).
_CLIMB = lazy_pattern(r"(?<![./])\.\./(?:\.\./)*+(?:usr/)?(?:local/)?s?bin/\w")
# A value that reads as a command: a shell escape or pipe, a path (``/bin/x``, ``~/x``,
# ``./x``, ``../x``, ``.../x``, ``.hidden/x``; not pnpm's ``...[origin/main]`` selector), or
# words.
_COMMANDISH = lazy_pattern(r"^\s*(?:[!|]|[~/]|\.+/|\.\w|\S+\s+\S)")
_PIPE_VALUE = lazy_pattern(r"^(?:-\w|--?[\w.-]+=|[\w.-]+=)?\s*\|\s*([/~.\w$].*)$", re.S)
_LIBRARY = lazy_pattern(r"\.(?:so(?:\.\d+)*|dylib)$|^lib[\w.-]*$")
_BUILDERS = words_of("gcc g++ cc c++ clang clang++ ld ld.lld ld.gold make cmake ninja meson "
                      "strip nm objdump readelf ldd file ar patchelf install cp mv ln rsync "
                      "tar zip unzip ls stat find chmod chown rm cargo go rustc")
_LIBRARY_OPTIONS: dict[str, frozenset[str]] = {
    "openssl": frozenset({"-engine"}), "mysql": frozenset({"--default-auth", "--plugin-dir"}),
    "mariadb": frozenset({"--default-auth", "--plugin-dir"}), "ssh-keygen": frozenset({"-D"}),
    "ssh-add": frozenset({"-s", "-e"}), "ssh": frozenset({"-I"}), "enable": frozenset({"-f"}),
}
_UNSAFE = {
    "dvips": frozenset({"-R0"}), "pic": frozenset({"-U"}), "groff": frozenset({"-U"}),
    "troff": frozenset({"-U"}), "nroff": frozenset({"-U"}), "bpftrace": frozenset({"--unsafe"}),
    "openvpn": frozenset(),
}
_TEX = words_of("tex latex pdflatex xelatex lualatex latexmk pdftex luatex xetex etex context "
                "mpost lilypond")
_PRIVILEGED_TAIL = lazy_pattern(r"\s+-[a-oq-z]*p")
_RECIPE_RUNNERS = frozenset({"make", "gmake", "bmake", "remake"})
STANDARD_SHELL = lazy_pattern(r"^(?:/(?:usr/)?(?:local/)?bin/)?(?:sh|bash|dash|ksh|zsh)$")
_TEX_ESCAPE = frozenset({"--shell-escape", "-shell-escape", "--enable-write18",
                         "-enable-write18", "-shell-restricted"})


@register
class ShellArgument(Validator):
    """An argument or option value that names a shell (``/bin/sh``, ``--rsh=bash -c``,
    ``-l/bin/sh``, ``exec=/bin/sh``) makes the program a launcher: ASK; with a network tool
    (``nc -e /bin/sh``) or privileged mode (``... /bin/sh -p``), DENY.

    A shell that starts the command after a ``--`` separator (``python3 ci/retry.py -- bash
    -lc 'make'``, the convention of programs that run the rest of their argv) is judged as
    that command, payload and all.

    Bad: ``aa-exec /bin/sh``, ``agetty -l /bin/sh tty``. Harmless: ``ls -l /bin/sh``,
    ``grep -r /bin/sh scripts/``.
    """

    id = "CG-ESC-001"

    def shapes(self, program: str | None) -> int:
        if program is None or program in INSPECTORS or program in FRONTENDS:
            return 0
        return sh.SHELLISH

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program is None or program in INSPECTORS or program in FRONTENDS or (
                program == "emulate"):  # zsh's emulate sh names a mode (-c code: CG-ZSH-001)
            return NO_OPINION
        text = cmd.text
        if "sh" not in text and "bin/" not in text and "../" not in text:
            return NO_OPINION
        words = cmd.words
        options = (programs.entry(program) or programs.learned_entry(program) or {}).get(
            "options", {})
        for i, word in enumerate(words[1:], start=1):
            found = SHELL_REFERENCE.search(word.shown)
            if found is None or _names_only(program, words, i, options) or (
                    program in (".", "source") and sources_shell_setup(word)):
                continue
            if program in NET_TOOLS:
                return Verdict.deny(self.id, f"{program} connects a shell to the network",
                                    hint="this is a remote or bind shell")
            if _PRIVILEGED_TAIL.match(word.shown[found.end():]):
                return Verdict.deny(self.id, f"{program} starts a shell in privileged mode")
            if words[i - 1].shown == "--" and STANDARD_SHELL.match(word.value or ""):
                # retry.py -- bash -lc 'make': the command after the separator, as itself
                return Verdict.unwrap(" ".join(w.text for w in words[i:]))
            if word is wrapped_program(cmd):
                # nix develop -c sh -c CODE: the shell is the command the wrapper runs, and
                # CG-WRAP-001 judges it, code and all, in the wrapper's place
                return NO_OPINION
            return Verdict.ask(self.id, f"{program} is given a shell to run ({word.shown!r})",
                               hint="run the command you need directly")
        climbing = next((w.shown for w in words[1:] if "../" in w.shown and _CLIMB.search(
            w.shown)), None)
        if climbing is not None:
            return Verdict.ask(self.id, f"{program} is pointed at a system program through "
                               f"{climbing!r}")
        return NO_OPINION


# Subcommands and options that print shell code for the shell they name (completion scripts,
# init/hook snippets): ``golangci-lint completion bash``, ``rustup completions zsh``,
# ``just --completions fish``, ``starship init bash``, ``direnv hook zsh``.
_CODE_FOR_SHELL = frozenset({
    "completion", "completions", "--completion", "--completions", "-completion",
    "gen-completion", "gen-completions", "generate-completion", "generate-completions",
    "generate-shell-completion", "shell-completion", "shell-completions", "completion-script",
    "--generate-completion", "--generate-completions", "--gen-completions",
})
_SNIPPET_VERBS = frozenset({"init", "hook", "activate"})
_SHELL_OPTION = frozenset({"-s", "--shell"})
_SUBCOMMAND = lazy_pattern(r"^[a-z][a-z0-9-]*$")


def _code_for_shell(words: tuple[Word, ...], i: int) -> bool:
    """The shell is the one a completion script or an init snippet is printed for: the word
    after a completion subcommand or option (or its ``-s``/``--shell``), or after ``init``,
    ``hook`` or ``activate`` reached by subcommand words alone, ``-`` between them (``rbenv
    init - bash``; ``screen -S init bash`` is not: ``init`` is an option's value there)."""
    name, eq, _ = words[i].shown.partition("=")
    if eq:
        return name in _CODE_FOR_SHELL or (
            name in _SHELL_OPTION and any(w.shown in _CODE_FOR_SHELL for w in words[1:i]))
    before = words[i - 1].shown
    if before in _CODE_FOR_SHELL:
        return True
    if before in _SHELL_OPTION:
        return any(w.shown in _CODE_FOR_SHELL for w in words[1:i - 1])
    if before == "-" and i >= 3:  # ``rbenv init - bash``: ``-`` asks for the snippet on stdout
        i, before = i - 1, words[i - 2].shown
    return before in _SNIPPET_VERBS and i <= 3 and all(
        _SUBCOMMAND.match(w.shown) for w in words[1:i])


def _names_only(program: str, words: tuple[Word, ...], i: int, options: dict[str, str]
                ) -> bool:
    """The shell is named, not run: the value of an option the catalog says has no effect
    (``shellcheck -s bash``: a dialect), the shell a completion script or init snippet is
    printed for (``kubectl completion zsh``), or make's recipe shell set to a standard one
    (``make SHELL=bash``: the recipes run in a shell whichever it is)."""
    text = words[i].shown
    name, eq, value = text.partition("=")
    if eq and options.get(name) == "value":
        return True
    if options.get(words[i - 1].shown) == "value" and "=" not in words[i - 1].shown:
        return True
    if _code_for_shell(words, i):
        return True
    return program in _RECIPE_RUNNERS and name == "SHELL" and bool(STANDARD_SHELL.match(value))


def _command_options(cmd: SimpleCommand, program: str) -> list[tuple[str, str | None, bool]]:
    """(option, value, declared by the catalog) for every option of ``cmd`` whose value is a
    command to run: those the program catalog declares (every spelling and abbreviation),
    and long options of any program whose name says so (``--pre-hook``,
    ``--password-command``)."""
    ran = programs.runs(cmd)
    spec = programs.entry(program) or programs.learned_entry(program) or {}
    # a command an awk program gives literally is the line sh -c runs: CG-INTERP-003's
    owned = spec.get("language") == "awk"
    found = [(e.option or "", e.word.value if e.word is not None else _NO_VALUE, True)
             for e in ran if e.kind == "run" and not (
                 owned and e.option == "(script)" and e.word is not None
                 and e.word.value is not None)]
    # options the catalog knows (a subcommand's too: `cargo watch --shell` is a wrapper's)
    declared = set(spec.get("options", {})) | {e.option for e in ran}
    words = cmd.words
    for i, word in enumerate(words[1:], start=1):
        text = word.shown
        if not text.startswith("--") or text == "--":
            continue
        name, eq, value = text.partition("=")
        if name in declared or name.startswith("--no-") or not (
                _STRONG.match(name) or _WEAK.match(name)):
            continue  # ``--no-pager``, ``--no-action``: a switch turning the thing off
        following = words[i + 1].value if i + 1 < len(words) else None
        given = value if eq else following
        if given is not None and (_STRONG.match(name) or _COMMANDISH.match(given)) and (
                eq or _COMMANDISH.match(given) or SHELL_REFERENCE.search(given)):
            found.append((name, given, False))
    return found


@register
class CommandOption(Validator):
    """An option whose value is a command to run as a side effect (``--pre-hook CMD``,
    ``--checkpoint-action=exec=CMD``, ``-z CMD`` of tcpdump, ``-e CMD`` of rsync, ``-TT`` of
    zip, ``--password-command``, ``--gpu-launcher``): ASK, and check the command. Which
    options of which programs run a command is the program catalog's ``run`` kind.

    Bad: ``tar cf x.tar x --checkpoint=1 --checkpoint-action=exec=sh``. Harmless:
    ``docker ps --filter status=running`` (a value that is not a command).
    """

    id = "CG-ESC-002"

    def shapes(self, program: str | None) -> int:
        if program is None or program in FRONTENDS:
            return 0
        return sh.ANY if program in _runners() else sh.OPTIONS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program is None or program in FRONTENDS or program in _PRINTERS or len(
                cmd.words) < 2:
            return NO_OPINION
        text = cmd.text
        if program not in _runners() and "--" not in text and (
                "xec" not in text and "XEC" not in text):
            return NO_OPINION
        if shell_code(cmd) is not None:
            return NO_OPINION  # Django's shell -c/--command: CG-ESC-010 reads its code
        found = _command_options(cmd, program)
        if not found and program in _TEXT_ONLY:
            return NO_OPINION
        if not found:
            directive = next((w.shown for w in cmd.words[1:] if _EXEC_VALUE.search(w.shown)),
                             None)
            if directive is None:
                return NO_OPINION
            return Verdict.ask(self.id, f"{program} is given an exec directive {directive!r}")
        found = [(o, v, d) for o, v, d in found if v is None or not harmless_helper(v)]
        if not found:
            return NO_OPINION
        message = f"{program} {found[0][0]} runs a command"
        if any(declared for _, _, declared in found):  # the catalog's: judged strictly
            return payload_verdict([v for _, v, declared in found if declared and
                                    v != _NO_VALUE], self.id, message)
        nested = tuple(command_text(v) for _, v, _ in found if v)
        return Verdict.unwrap(*nested, outcome=Outcome.ASK, rule_id=self.id, message=message)


def _runners() -> frozenset[str]:
    """Programs the catalog gives an option that runs a command, by hand or from data
    (worked out once)."""
    if not _RUNNERS:
        _RUNNERS.append(frozenset(
            name for name in programs.runners()
            if "run" in (programs.entry(name) or {}).get("options", {}).values())
            | programs.learned_runners())
    return _RUNNERS[0]


_RUNNERS: list[frozenset[str]] = []
_NO_VALUE = ""  # a run option given without a value (the catalog's switch)


def harmless_helper(value: str) -> bool:
    """``zstd -T0``, ``ssh -p 2222``, ``code --wait``: a helper program and its flags."""
    words = value.split()
    if not words or any(ch in value for ch in ";&|`$()<>#!"):
        return False
    first = words[0]
    if "/" in first and not first.startswith(SYSTEM_DIRS):
        return False  # a file of that name elsewhere is not the helper
    return first.rsplit("/", 1)[-1] in HARMLESS_HELPERS and all(
        w.startswith("-") or w.isdigit() for w in words[1:])


@register
class PipeValue(Validator):
    """A value that pipes into a command (``psql -o'|id'``, ``core_pattern=|/tmp/x``): the
    program will start that command. ASK, and check it.

    An everyday program of the system (``LESSOPEN='| /usr/bin/lesspipe %s'``) is no escape.

    Bad: ``sysctl 'kernel.core_pattern=|/tmp/x'``. Harmless: ``cut -d'|' -f1``.
    """

    id = "CG-ESC-003"

    def shapes(self, program: str | None) -> int:
        if program is None or program in INSPECTORS:
            return 0
        return sh.BAR | sh.UNUSUAL  # a word's value holding "|": in the text, or an escape

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program is None or program in INSPECTORS:
            return NO_OPINION
        for word in cmd.words[1:]:
            text = word.shown
            if "|" in text:
                found = _PIPE_VALUE.match(text)
                if found is not None and harmless_command(found.group(1).strip()):
                    continue  # LESSOPEN='| /usr/bin/lesspipe %s': the system's preprocessor
                if found is not None and len(found.group(1).strip()) > 1:
                    return payload_verdict([found.group(1)], self.id,
                                           f"{program} pipes into a command")
        return NO_OPINION


@register
class LibraryLoad(Validator):
    """A shared library handed to a program that loads it (``openssl -engine ./x.so``,
    ``ssh-keygen -D x.so``, ``enable -f x.so``, ``ladspa=file=x.so``): native code runs in the
    program. ASK. Building, copying and inspecting libraries is not loading them, and a
    command handed to a wrapper or shell is judged as the command it is.

    Bad: ``openssl req -engine ./lib.so``. Harmless: ``gcc -shared -o libx.so x.c``.
    """

    id = "CG-ESC-004"

    def shapes(self, program: str | None) -> int:
        if program is None or program in INSPECTORS or program in _BUILDERS:
            return 0
        if program in _LIBRARY_OPTIONS:
            return sh.ANY
        return sh.LIBRARY | sh.QUOTES | sh.UNUSUAL  # a word's value holding ".so" or ".dylib"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program is None or program in INSPECTORS or program in _BUILDERS:
            return NO_OPINION
        words = cmd.words
        runs_commands = program in FRONTENDS  # `sh -c "rm lib/*.so"`: the inner rm is judged
        for i, word in enumerate(words[1:], start=1):
            text = word.shown
            if not runs_commands and (".so" in text or ".dylib" in text) and (
                    _LIBRARY.search(text)):
                return Verdict.ask(self.id, f"{program} loads the library {text!r}")
            if text in _LIBRARY_OPTIONS.get(program, ()) and i + 1 < len(words):
                return Verdict.ask(self.id, f"{program} {text} loads native code")
        return NO_OPINION


@register
class UnsafeMode(Validator):
    """Flags that switch on command execution in document and tracing tools (``--shell-escape``
    of TeX, ``\\write18``, ``dvips -R0``, ``pic -U``, ``bpftrace --unsafe``, ``openvpn
    --script-security 2``): ASK.

    Bad: ``pdflatex --shell-escape doc.tex``. Harmless: ``pdflatex doc.tex``.
    """

    id = "CG-ESC-005"
    programs = frozenset(_UNSAFE) | _TEX

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if (program not in _UNSAFE and program not in _TEX) or len(cmd.words) < 2:
            return NO_OPINION
        args = cmd.args
        unsafe = _UNSAFE.get(program, _TEX_ESCAPE)
        flagged = next((a for a in args if a in unsafe or a in _TEX_ESCAPE or (
            "write18" in a and "\\write18" in a)), None)
        if flagged is None and program == "openvpn" and "--script-security" in args:
            level = args[args.index("--script-security") + 1:][:1]
            flagged = "--script-security" if level and level[0] in ("2", "3") else None
        if flagged is None:
            return NO_OPINION
        return Verdict.ask(self.id, f"{program} {flagged} lets the document run commands")
