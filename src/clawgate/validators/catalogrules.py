"""What the program catalog says a command does, turned into verdicts: options whose value is
a command, code or a configuration the program obeys, and writes whose target is only known
when the line runs."""

from __future__ import annotations

import re
import shlex

from clawgate import programs as catalog
from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.inline.lisp import pure_lisp
from clawgate.lazyre import lazy_pattern
from clawgate.shell.envsplit import env_split
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.cwdnames import harmless_here, name_patterns
from clawgate.validators.escapes import FRONTENDS
from clawgate.validators.knownnames import SCRATCH, known_names
from clawgate.validators.paths import resolve
from clawgate.validators.payloads import payload_verdict
from clawgate.validators.programs import SHELLS, family_name
from clawgate.validators.runtimetail import inert_tail
from clawgate.validators.writes import redirect_targets

_ASKING = frozenset({"run", "code", "config", "runs"})
_HANDLED_ELSEWHERE = frozenset({"find"})  # find -exec: unwrapped by the wrapper family
# The catalog's programs with an option that runs something, for dispatch (tests/programs
# holds the two equal).
RUNNERS = frozenset("""
agetty apt apt-cache apt-get aria2c autossh awk bpftrace bsdcpio cargo cc cdist concurrently cpio
cqlsh curl
dhclient emacs enscript env g++ gawk gcc gdb gem genie git go gsed javac just ksu latexmk make man
less mawk msgfilter mutt nawk nix-shell nmap nodemon nvim openssl pandoc perl perlbug pidstat psql
hyperfine rg rlogin rpm rpmbuild rpmdb
rpmquery rpmverify rsync scp scrot sed sendmail sftp socket sort split sqlite3 ssh sshfs tar tcpdump
gtar bsdtar
quilt svn tmate tmux vi vim wget yarn zic zip
brave brave-browser chrome chrome-headless-shell chromium chromium-browser electron google-chrome
google-chrome-beta google-chrome-stable google-chrome-unstable microsoft-edge microsoft-edge-stable
msedge opera vivaldi
dosbox exiftool logrotate nginx screen
""".split())
_VAR = lazy_pattern(r"\$\{?([A-Za-z_]\w*)")


@register
class ProgramRunsValue(Validator):
    """An option the program catalog marks as running code in the tool's own language
    (``make --eval``, ``wget -e``, ``emacs --eval``), a configuration it obeys (``curl -K``),
    or a switch that runs a helper configured elsewhere (``git diff --ext-diff``): ASK. Long
    options count in every abbreviation the program accepts. A command handed to a program
    whose purpose is running commands (``env -S``, ``git rebase -x``) is checked as the
    command it is; one handed to any other program is CG-ESC-002's.

    Lisp given to ``emacs --eval`` whose every call only computes or prints is pure
    (``inline/lisp.py``) and asks nothing.

    Bad: ``git log --ext-diff -p``. Harmless: ``git log -p``,
    ``emacs --batch --eval '(princ emacs-version)'``.
    """

    id = "CG-PROG-001"
    programs = RUNNERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        """Commands given to run outside a wrapper are CG-ESC-002's (``escapes.py``); here
        the rest: code, configurations, helpers, and what wrappers are told to run."""
        if cmd.program not in RUNNERS or len(cmd.words) < 2:
            return NO_OPINION
        spec = catalog.entry(cmd.program) or {}
        console = spec.get("language") == "console"
        found = [e for e in catalog.runs(cmd) if e.kind in _ASKING
                 and not (console and e.kind == "code") and not _pure(cmd, e)]
        literal = tuple(e.word.value for e in found if e.kind == "run" and e.word is not None
                        and e.word.value)
        asking = [e for e in found if e.kind != "run"]
        if cmd.program not in FRONTENDS:
            literal = ()  # CG-ESC-002 checks them
        elif literal and not (_purpose(cmd) or _env_reads(cmd, literal)):
            # git grep -O CMD: an escape, not git's purpose
            return payload_verdict(list(literal), self.id,
                                   f"{cmd.program} {found[0].option or ''} runs a command")
        wrapped = [e for e in catalog.runs(cmd) if e.kind == "wrap"]  # cargo watch -s CMD
        wrapped, arguments = passthrough(cmd, wrapped)
        literal += tuple(put_in(shortcut(cmd.program, e.word.value), arguments) for e in wrapped
                         if e.word is not None and e.word.value)
        asking += [e for e in wrapped if e.word is None or not e.word.value]
        if not asking:  # only commands a wrapper runs: judged as the commands they are
            return Verdict.unwrap(*literal) if literal else NO_OPINION
        first = asking[0]
        return Verdict.unwrap(*literal, outcome=Outcome.ASK, rule_id=self.id,
                              message=f"{cmd.program} {first.option or ''} runs "
                              f"{_what(first.kind)}".replace("  ", " "))


# Programs whose code options take Lisp, by option: code that only computes and prints is
# judged pure (``inline/lisp.py``); the inline-code check reads what else it calls.
_LISP_CODE = {"emacs": frozenset({"--eval", "-eval"})}


def _pure(cmd: SimpleCommand, effect: catalog.Effect) -> bool:
    """``emacs --batch --eval '(princ emacs-version)'``: code that computes and prints."""
    options = _LISP_CODE.get(family_name(cmd.program) or "")
    return (effect.kind == "code" and options is not None and effect.option in options
            and effect.word is not None and effect.word.value is not None
            and pure_lisp(effect.word.value))


# Operands a wrapper reads as a script of the project's package manager (concurrently's
# ``npm:watch``, ``yarn:lint:*``, ``node:build``, ``deno:dev``), by its documentation.
_SHORTCUTS = {"concurrently": {"npm": "npm run", "yarn": "yarn run", "pnpm": "pnpm run",
                               "bun": "bun run", "node": "node --run", "deno": "deno task"}}
# A script name, with the wildcard and exclusions (``lint:*(!fix)``) the wrapper matches
# against the manifest's scripts itself: nothing a shell would expand or run.
_SCRIPT_NAME = lazy_pattern(r"^[\w.:@/+*!()-]+$")


_PASSTHROUGH = frozenset({"-P", "--passthrough-arguments", "--passthroughArguments"})
_PLACEHOLDER = lazy_pattern(r"\{(\d+|@|\*)\}")


def passthrough(cmd: SimpleCommand, wrapped: list[catalog.Effect]
                ) -> tuple[list[catalog.Effect], list[str]]:
    """concurrently ``-P``: the words after ``--`` are no commands but arguments the commands
    take in for ``{1}``, ``{@}`` and ``{*}`` (as the line's shell spelled them). (the commands,
    the arguments)"""
    shown = [w.shown for w in cmd.words]
    if cmd.program != "concurrently" or not _PASSTHROUGH & set(shown) or "--" not in shown:
        return wrapped, []
    cut = shown.index("--")
    after = {id(w) for w in cmd.words[cut + 1:]}
    return ([e for e in wrapped if e.word is None or id(e.word) not in after],
            [w.text for w in cmd.words[cut + 1:]])


def put_in(command: str, arguments: list[str]) -> str:
    """``command`` with concurrently's placeholders replaced by ``arguments`` (``{1}``: the
    first, ``{@}``: each, ``{*}``: all as one word); one beyond them is empty."""
    if not arguments:
        return command

    def value(found: re.Match[str]) -> str:
        key = found.group(1)
        if key == "@":
            return " ".join(arguments)
        if key == "*":
            return '"' + " ".join(arguments).replace('"', '\\"') + '"'
        index = int(key) - 1
        return arguments[index] if 0 <= index < len(arguments) else ""

    return _PLACEHOLDER.sub(value, command)


def shortcut(program: str | None, operand: str) -> str:
    """The command line an operand of ``program`` stands for: ``npm:lint:*`` given to
    concurrently runs ``npm run 'lint:*'`` (each matching script); any other operand is the
    command line it is."""
    manager, sep, script = operand.partition(":")
    runner = _SHORTCUTS.get(program or "", {}).get(manager)
    if runner is None or not sep or not script:
        return operand
    if _SCRIPT_NAME.match(script):
        return f"{runner} {shlex.quote(script)}"
    return f"{runner} {script}"  # what the shell that runs it would make of the rest


def _purpose(cmd: SimpleCommand) -> bool:
    """Whether running the commands an option gives is what ``cmd`` is for (``git rebase
    -x``, ``git bisect run``), rather than a side door of a front end (``git grep -O``,
    ``git clone -u``): those are judged by the payload rule (``env -S``: ``_env_reads``)."""
    sub = next((w.value for w in cmd.words[1:] if w.value and not w.value.startswith("-")),
               None)
    return sub in _PURPOSEFUL.get(cmd.program or "", ())


def _env_reads(cmd: SimpleCommand, values: tuple[str, ...]) -> bool:
    """Whether ``env -S`` is given strings its own splitting reads exactly (no variable, no
    escape it refuses) into a program that is no shell (``#!/usr/bin/env -S python3 -u``, its
    purpose): the wrapper family then judges the command they make, as env splits it and as a
    shell would (``wrapargv.py``). A shell handed over this way stays the payload rule's: the
    argument-injection vector env's option is known for."""
    if cmd.program != "env":
        return False
    for value in values:
        split = env_split(value)
        program = _env_program(split or [])
        if program is None or (family_name(program.rsplit("/", 1)[-1]) or "") in SHELLS:
            return False
    return True


def _env_program(words: list[str]) -> str | None:
    """The program env runs from ``words`` (its own options and ``NAME=VALUE`` skipped)."""
    at = 0
    while at < len(words):
        word = words[at]
        if word in ("-u", "-C", "--unset", "--chdir"):
            at += 2
        elif word.startswith("-") or ("=" in word and word.split("=", 1)[0].isidentifier()):
            at += 1
        else:
            return word
    return None


# Subcommands of front ends whose option runs a command as their work.
_PURPOSEFUL = {"git": frozenset({"rebase", "bisect", "submodule"})}


def _what(kind: str) -> str:
    return {"run": "a command it is given", "wrap": "a command only known at run time",
            "code": "code it is given",
            "config": "what a configuration it is given says",
            "runs": "a helper configured elsewhere"}[kind]


def content_targets(cmd: SimpleCommand) -> list[Word]:
    """Words ``cmd`` writes new content to: redirections, output options, ``tee``'s files,
    a copy's destination, sed and awk script targets."""
    found = list(redirect_targets(cmd)) if cmd.redirects else []
    if cmd.program == "dd":  # of=FILE, an operand of its own syntax
        found += [Word(w.text[3:], w.value[3:] if w.value is not None else None, w.quoted,
                       w.expansions) for w in cmd.words[1:] if w.text.startswith("of=")]
    if not cmd.redirects and not (catalog.entry(cmd.program) or {}).get("acts"):
        return found
    found += [e.word for e in catalog.effects(cmd)
              if e.kind == "write" and e.option is not None and e.word is not None]
    return found


# Programs with a switch after which the input (an archive, a patch) names the files
# written, anywhere (tests/programs holds this equal to the catalog's).
UNCONFINED = frozenset({"tar", "gtar", "bsdtar", "unzip", "git", "7z", "7za", "7zr", "7zz",
                        "cpio", "bsdcpio"})
_TARS = frozenset({"tar", "gtar", "bsdtar"})
_TAR_BUNDLE = lazy_pattern(r"^[A-Za-z]+$")


@register
class UnconfinedWrite(Validator):
    """A switch that lets the input name the files written, anywhere: ``tar -xP`` (absolute
    member names kept; ``gtar``, ``bsdtar`` too), ``unzip -:`` (``../`` kept), ``7z x -spf``
    (full paths used), ``cpio --absolute-filenames``, ``git apply --unsafe-paths``. Where
    the writes land is decided by the archive or patch, not the command line: ASK; DENY when
    the archive is piped in from a download: a stranger's archive then writes anywhere.

    Bad: ``tar -xPf a.tar``, ``curl -sL https://h/p.tar | tar -xP``. Harmless: ``tar -xf
    a.tar``, ``tar -cPf a.tar /srv/x``, ``cpio -idm < x.cpio`` (GNU cpio strips a leading
    ``/``).
    """

    id = "CG-PROG-003"
    programs = UNCONFINED

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in UNCONFINED:
            return NO_OPINION
        found = next((e.option for e in catalog.effects(cmd) if e.kind == "unconfined"), None)
        if cmd.program in ("7z", "7za", "7zr", "7zz") and cmd.argv[1:2] not in (("x",), ("e",)):
            return NO_OPINION  # -spf when adding stores full paths; only extraction writes them
        if cmd.program in _TARS:
            bundle = cmd.words[1].value if len(cmd.words) > 1 else None
            old_style = bundle is not None and _TAR_BUNDLE.match(bundle) is not None
            if found is None and old_style and "P" in (bundle or ""):
                found = "P"
            if found is None or not _tar_extracts(cmd, bundle if old_style else None):
                return NO_OPINION
        if found is None:
            return NO_OPINION
        if cmd.pipes_from(_DOWNLOADERS):
            return Verdict.deny(self.id, f"{cmd.program} {found} writes the files an archive "
                                "from another host names, wherever they are (a start-up file, "
                                "a key list)", hint="download it, list it, then extract it "
                                "into a directory of the workspace")
        return Verdict.ask(self.id, f"{cmd.program} {found} writes the files its input names, "
                           "wherever they are", hint="extract or apply without it, into a "
                           "directory of the workspace")


_DOWNLOADERS = frozenset({"curl", "wget", "aria2c", "http", "xh", "fetch", "ftp", "lftp"})



def _tar_extracts(cmd: SimpleCommand, bundle: str | None) -> bool:
    if bundle is not None and "x" in bundle:
        return True
    for word in cmd.words[1:]:
        text = word.shown
        if text in ("--extract", "--get") or (
                text.startswith("-") and not text.startswith("--") and "x" in text):
            return True
    return False


@register
class RuntimeTarget(LineValidator):
    """A write whose target is a variable or a substitution the engine cannot know
    (``> "$OUT"``, ``tee "$(pick)"``, ``cp x "$DEST"``): where it lands is decided when the
    line runs. ASK. A variable the line surely set before the write (literally, or to a
    ``mktemp`` result; not in a branch, nor after ``&&``/``||``: there the environment's
    value may remain, ``validators/knownnames.py``), a loop variable over workspace paths,
    the files a CI runner hands a step (``$GITHUB_OUTPUT``) and a name under a literal
    workspace directory (``build/$name``) are known enough; a ``read`` variable is what some
    input says, known only at run time. So is one name in the command's directory
    (``"$(basename "$f").sha256"`` in a loop over literal words and globs,
    ``validators/cwdnames.py``): never ``..`` nor a protected name.
    So is a file the literal tail names in a directory it names (``"$ARCHIVE/doc/rg.1"``,
    ``validators/runtimetail.py``): a directory no program loads every entry of, a name no
    loader obeys; a wholly unknown directory (``"$D/rg.1"``) is not.

    A process substitution (``tee >(cat >&2)``) is a pipe into a command the line judges.

    Bad: ``curl -s https://x.example/cfg > "$TARGET"``. Harmless:
    ``tmp=$(mktemp); echo hi > "$tmp"``.
    """

    id = "CG-PROG-002"

    def line_shapes(self) -> int:
        return ls.DOLLAR | ls.BACKQUOTE | ls.AWK  # a "$", a backquote or an awk program

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        source = parsed.source
        if "$" not in source and "`" not in source and ("awk" not in source or not any(
                (catalog.entry(c.program) or {}).get("language") == "awk"
                for c in parsed.commands)):
            return NO_OPINION
        known: dict[str, int] | None = None
        where: dict[int, tuple[str, ...]] | None = None
        for cmd in parsed.commands:
            for word in content_targets(cmd):
                if word.value is not None or _process_substitution(word):
                    continue
                shell = "$" in word.text or "`" in word.text  # else an awk expression
                if shell and resolve(word, ctx).path is not None:
                    continue
                if known is None:
                    known = known_names(parsed, ctx)
                if not shell or _unknowable(word, known, cmd.offset):
                    patterns = name_patterns(word, cmd, parsed) if shell else ()
                    if patterns:
                        where = _directories(parsed, ctx) if where is None else where
                        if harmless_here(patterns, where.get(id(cmd), ()), ctx):
                            continue  # "$(basename "$f").sha256": one name, here
                    if shell and inert_tail(word.text):
                        continue  # "$ARCHIVE/doc/rg.1": a page in a directory named doc
                    return Verdict.ask(self.id, f"writes to {word.text}, known only when the "
                                       "line runs", hint="write to a literal path")
        return NO_OPINION


def _directories(parsed: ParsedLine, ctx: Context) -> dict[int, tuple[str, ...]]:
    """Each command's directories (by id): every one it may run in, none where one is not
    known."""
    from clawgate.validators.degreeline import UNKNOWN, places

    found = {id(cmd): dirs for cmd, dirs in places(parsed, ctx, unknown=UNKNOWN)}
    return {key: () if UNKNOWN in dirs else dirs for key, dirs in found.items()}


def _process_substitution(word: Word) -> bool:
    """``tee >(grep x >&2)``: the "file" is a pipe into a command of the line, which is
    parsed and judged as one; nothing lands on disk by this word."""
    text = word.text
    if not text.startswith(">(") or not text.endswith(")"):
        return False
    depth = 0
    for index, ch in enumerate(text[1:], start=1):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return index == len(text) - 1  # the substitution is the whole word
    return False


def _unknowable(word: Word, known: dict[str, int], at: int) -> bool:
    """The target's value is not known at the command starting at byte ``at``."""
    text = word.text.strip('"')
    head = text.split("/", 1)[0]
    if "/" in text and head not in ("", "..", ".") and not head.startswith(("$", "~", "`")):
        return False  # build/$name: somewhere under a directory of the workspace
    if "/" in text and SCRATCH.match(head):
        return False  # "$(mktemp -d)/x": inside a fresh scratch directory
    if "$(" in text.replace("$((", "") or "`" in text:
        return True
    names = _VAR.findall(text)
    return not names or any(known.get(name, at) >= at for name in names)
