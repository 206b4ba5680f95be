"""Text a line writes into a file, and the commands of the same line that then run that file.

``printf 'rm -rf ~' > t.sh && sh t.sh`` runs ``rm -rf ~``; ``cat > r <<EOF … EOF; bash r`` runs
the here-document; ``tee x.sh <<<'…'; chmod +x x.sh; ./x.sh`` runs what the here-string holds;
``echo '…' > x.py; python x.py`` runs that Python. ``StagedPayload`` (``staged.py``) checks the
text as the command (or the inline code) that runs it.
"""

from __future__ import annotations

import posixpath
import shlex

from clawgate import programs
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.agentservers import recipe_commands, recipe_paths
from clawgate.validators.envloads import loaded_by_name
from clawgate.validators.pathsearch import searched
from clawgate.validators.programfiles import SCRIPT_FILES, script_files
from clawgate.validators.programs import SHELLS
from clawgate.validators.writes import redirect_targets

# How an interpreter takes code on its command line.
INLINE = {"python": "-c", "python3": "-c", "python2": "-c", "pypy3": "-c", "node": "-e",
          "nodejs": "-e", "bun": "-e", "deno": "eval", "perl": "-e", "ruby": "-e",
          "php": "-r", "lua": "-e", "Rscript": "-e",
          # TeX engines take their code as an operand; latexmk hands the file to latex
          **dict.fromkeys(("tex", "latex", "pdflatex", "xelatex", "lualatex", "latexmk"), "")}
_RUNS_AS = {"latexmk": "latex"}  # the program that reads the code
_SOURCERS = frozenset({"source", "."})
_PRINTF_DIRECTIVE = lazy_pattern(r"%(?:%|[-+ #0]*\d*(?:\.\d+)?[sbdiouxXcqfeEgG])")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "a": "", "r": "", "0": "", "e": "", "'": "'",
            '"': '"'}


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            out.append(_ESCAPES.get(text[i + 1], "\\" + text[i + 1]))
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def printf_output(values: list[str]) -> str:
    """printf's output: the format's escapes processed, directives filled from the arguments
    in turn (``%b`` arguments with escapes too), the format reused while arguments remain."""
    fmt, args = values[0], values[1:]
    pieces = _PRINTF_DIRECTIVE.split(fmt)
    directives = _PRINTF_DIRECTIVE.findall(fmt)
    wanted = sum(d != "%%" for d in directives)
    out: list[str] = []
    while True:
        taken, args = (args[:wanted], args[wanted:]) if wanted else ([], [])
        out.append(_fill(pieces, directives, taken))
        if not args:
            return "".join(out)


def _fill(pieces: list[str], directives: list[str], args: list[str]) -> str:
    out, given = [_unescape(pieces[0])], iter(args)
    for directive, piece in zip(directives, pieces[1:], strict=True):
        if directive == "%%":
            out.append("%")
        else:
            value = next(given, "")
            out.append(_unescape(value) if directive.endswith("b") else value)
        out.append(_unescape(piece))
    return "".join(out)


def _echo(values: list[str]) -> str:
    escapes, newline = False, "\n"
    while values and values[0] in ("-n", "-e", "-E", "-ne", "-en"):
        escapes = escapes or "e" in values[0]
        newline = "" if "n" in values[0] else newline
        values = values[1:]
    text = " ".join(values) + newline
    return _unescape(text) if escapes else text


def _fed(cmd: SimpleCommand) -> str | None:
    """Text fed on standard input by a here-document or a here-string."""
    for redirect in cmd.redirects:
        if redirect.op in ("<<", "<<-") and redirect.heredoc is not None:
            return redirect.heredoc
        if redirect.op == "<<<" and redirect.target is not None:
            return None if redirect.target.value is None else redirect.target.value + "\n"
    return None


def _content(cmd: SimpleCommand) -> str | None:
    """What ``cmd`` writes to standard output, when the line says it literally."""
    args = [w.value for w in cmd.words[1:]]
    if any(a is None for a in args):
        return None
    values = [a for a in args if a is not None]
    if cmd.program == "echo":
        return _echo(values)
    if cmd.program == "printf" and values:
        return printf_output(values)
    if cmd.program == "tee" or not [v for v in values if not v.startswith("-") or v == "-"]:
        return _fed(cmd)  # tee FILE <<<'…', cat <<EOF … EOF (no file operands)
    return None


def written(cmd: SimpleCommand, piped: SimpleCommand | None = None
            ) -> list[tuple[str, str | None]]:
    """(path, text or None when unknown) for the files ``cmd`` fills with a stream of text:
    its redirections, ``tee``'s files, a download's output file. ``piped`` is the command
    whose output ``cmd`` reads (``printf '…' | tee x.sh``)."""
    targets = list(redirect_targets(cmd)) if cmd.redirects else []
    if cmd.program == "tee":
        targets += programs.writes(cmd)
    copied = _copied_input(cmd)
    if copied is not None:  # cp /dev/stdin x.sh <<< '…', dd of=x.sh <<< '…'
        return [(_norm(copied), _fed(cmd))]
    spec = programs.entry(cmd.program)
    if spec is not None and spec["tier"] == "network":
        targets += programs.writes(cmd)
    if not targets:
        return []
    text = _content(cmd) if cmd.program in ("echo", "printf", "cat", "tee") else None
    if text is None and piped is not None and cmd.program in ("tee", "cat") and (
            piped.program in ("echo", "printf")) and not _fed(cmd):
        text = _content(piped)
    return [(_norm(w.value), text) for w in targets if w.value is not None]


_STDIN = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"})


def _copied_input(cmd: SimpleCommand) -> str | None:
    """The file that ``cp``/``install`` of standard input (``cp /dev/stdin x``) or ``dd`` with
    no ``if=`` (``dd of=x``) fills with the command's standard input."""
    values = [w.value for w in cmd.words[1:]]
    if None in values:
        return None
    operands = [v for v in values if v is not None and not v.startswith("-")]
    if cmd.program in ("cp", "install") and len(operands) == 2 and operands[0] in _STDIN:
        return operands[1] if operands[1] not in _STDIN else None
    if cmd.program == "dd" and not any(v.startswith("if=") for v in operands):
        return next((v[3:] for v in operands if v.startswith("of=")), None)
    return None


def appends(cmd: SimpleCommand, path: str) -> bool:
    """``cmd`` adds to the end of ``path`` (``>>``, ``tee -a``) rather than filling it: what the
    file then holds is its earlier text and this one."""
    if any(r.op.endswith(">>") and r.target is not None and r.target.value is not None and
           _norm(r.target.value) == path for r in cmd.redirects):
        return True
    if cmd.program != "tee":
        return False
    flags = [w.value or "" for w in cmd.words[1:] if (w.value or "").startswith("-")]
    return any(f == "--append" or (not f.startswith("--") and "a" in f) for f in flags)


def _norm(path: str) -> str:
    return posixpath.normpath(path)


def _first_operand(words: tuple[Word, ...]) -> str | None:
    for word in words[1:]:
        value = word.value
        if value is None:
            return None
        if not value.startswith("-") or value == "-":
            return value
    return None


def script_operand(cmd: SimpleCommand) -> Word | None:
    """The word naming the file a shell, ``source`` or an interpreter runs (its first operand,
    however it is spelled); None for another program or none given."""
    program = cmd.program or ""
    stem = program.rstrip("0123456789.")
    if program not in SHELLS and program not in _SOURCERS and program not in INLINE and (
            stem not in INLINE):
        return None
    return next((w for w in cmd.words[1:] if w.value is None or not w.value.startswith("-")
                 or w.value == "-"), None)


# Programs that compile and run source files named after a subcommand (``go run x.go``):
# program -> (subcommand, the token language of the source)
COMPILE_AND_RUN = {"go": ("run", "go")}


# Variables whose value names files the next program loads first, and which interpreter
# reads them: NODE_OPTIONS='--require ./x.js', PYTHONSTARTUP=x.py, RUBYOPT=-r./x.rb.
_PRELOAD_OPTIONS = {"NODE_OPTIONS": ("node", ("--require", "-r", "--import", "--loader",
                                              "--experimental-loader")),
                    "RUBYOPT": ("ruby", ("-r",)), "PYTHONSTARTUP": ("python3", ("",)),
                    "BASH_ENV": ("shell", ("",)), "ENV": ("shell", ("",))}


def preloaded(env: dict[str, str], path: str) -> str | None:
    """The interpreter that loads ``path`` before anything else because a variable of ``env``
    names it, or None. A ``PYTHONWARNINGS`` category ``x.Warn`` imports ``x.py``."""
    for entry in env.get("PYTHONWARNINGS", "").split(","):
        fields = entry.split(":")
        module = fields[2].strip().rpartition(".")[0] if len(fields) > 2 else ""
        if module and path in (module.replace(".", "/") + ".py",
                               module.replace(".", "/") + "/__init__.py"):
            return "python3"
    by_name = loaded_by_name(env, path)  # NODE_OPTIONS=-r x: node_modules/x; -I. -MCarp
    if by_name is not None:
        return by_name
    for name, (how, options) in _PRELOAD_OPTIONS.items():
        words = env.get(name, "").split()
        for i, word in enumerate(words):
            for option in options:
                given = word if not option else (
                    word[len(option) + 1:] if word.startswith(option + "=") else
                    word[len(option):] if word.startswith(option) and option == "-r"
                    and len(word) > 2 else
                    words[i + 1] if word == option and i + 1 < len(words) else None)
                if given and _norm(given) == path:
                    return how
    return None


def run_as(cmd: SimpleCommand, path: str, text: str | None,
           env: dict[str, str] | None = None) -> str | None:
    """How ``cmd`` runs the file ``path``: ``"shell"``, an interpreter's name, or None.
    ``env``: variables exported earlier on the line."""
    own = {**(env or {}), **{a.name: a.value.value or "" for a in cmd.assignments}}
    loaded = preloaded(own, path) if own else None
    if loaded is not None:
        return loaded
    program, head = cmd.program, cmd.words[0].value if cmd.words else None
    if program == "goose":  # goose run --recipe r.yaml: the recipe's extensions start
        return RECIPE if path in (_norm(r) for r in recipe_paths(cmd)) else None
    if program in COMPILE_AND_RUN:
        sub = _first_operand(cmd.words)
        operands = [w.value for w in cmd.words[2:] if w.value and not w.value.startswith("-")]
        if sub == COMPILE_AND_RUN[program][0] and any(_norm(o) == path for o in operands):
            return program
        return None
    if program in SCRIPT_FILES and path in script_files(cmd, SCRIPT_FILES[program][0]):
        return program  # awk -f prog.awk, sed -f edit.sed: the program's own language
    if head is not None and "/" in head and _norm(head) == path:
        return _by_shebang(text)
    if head is not None and "/" not in head and (
            searched(cmd, env or {}, head, path) or path in _found_by_name(cmd, head, own)):
        return _by_shebang(text)  # PATH=.:$PATH ls, npx tsc: a file the line wrote
    if program in SHELLS or program in _SOURCERS:
        operand = _first_operand(cmd.words)
        return "shell" if operand is not None and _norm(operand) == path else None
    stem = (program or "").rstrip("0123456789.") if program not in INLINE else program
    if program in INLINE or stem in INLINE:
        operand = _first_operand(cmd.words)
        if operand is not None and _norm(operand) == path:
            return program if program in INLINE else stem
    return None


# Launchers that run a package's program from the project's node_modules/.bin by its name.
_NODE_BIN_LAUNCHERS = {"npx": 1, "bunx": 1, "pnpx": 1, "pnpm": 2, "yarn": 1}


def _found_by_name(cmd: SimpleCommand, head: str, own: dict[str, str]) -> set[str]:
    """The files a program named without a path may be: ``NAME`` in each directory a ``PATH``
    given on the line puts before the old value (``PATH=bin:$PATH cat`` runs ``bin/cat`` when
    there is one), and a node launcher's program in ``node_modules/.bin`` (``npx tsc``,
    ``pnpm exec tsc``, ``yarn tsc``)."""
    found: set[str] = set()
    given = next((a.value.value if a.value.value is not None else a.value.text.strip("\"'")
                  for a in cmd.assignments if a.name == "PATH"), own.get("PATH", ""))
    for entry in given.split(":"):
        if not entry or entry.startswith("$"):
            break  # the old value: the directories before it come first
        found.add(_norm(posixpath.join(entry, head)))
    at = _NODE_BIN_LAUNCHERS.get(head)
    if at is not None:
        rest = [w.value for w in cmd.words[1:] if w.value is None or not w.value.startswith("-")]
        if head == "pnpm" and rest[:1] in (["exec"], ["dlx"]):
            rest = rest[1:]
        elif head == "pnpm":
            rest = []
        name = rest[0] if rest else None
        if name is not None and "/" not in name:
            found.add(_norm(posixpath.join("node_modules/.bin", name)))
    return found


def _by_shebang(text: str | None) -> str:
    if text is None or not text.startswith("#!"):
        return "shell"
    words = text[2:].split("\n", 1)[0].split()
    names = [posixpath.basename(w) for w in words if not w.startswith("-")]
    name = names[1] if names[:1] == ["env"] and len(names) > 1 else (names[0] if names else "")
    return name if name in INLINE else "shell"


# How a goose recipe is run (run_as): its text read for the commands it starts.
RECIPE = "goose-recipe"


def as_line(how: str, text: str) -> str:
    """The command line that runs ``text`` the way ``how`` says."""
    if how == "shell":
        return text
    if how == RECIPE:  # its commands, one a line; a text not read here runs what it says
        found = recipe_commands(text)
        return found if found is not None else "goose run"  # an agent started: asked
    if how in SCRIPT_FILES:
        return f"{how} {SCRIPT_FILES[how][1]} {shlex.quote(text)}"
    flag = f" {INLINE[how]}" if INLINE[how] else ""
    return f"{_RUNS_AS.get(how, how)}{flag} {shlex.quote(text)}"


def fed_line(cmd: SimpleCommand, path: str, text: str,
             before: SimpleCommand | None = None) -> str | None:
    """The command line ``cmd`` runs when it reads the text of ``path`` as its input, not a
    file it names: ``sh < t.sh`` runs the text, ``python3 < t.py`` its code, ``redis-cli <
    c.txt`` and ``cat c.txt | psql`` send it as the client's commands (checked as a
    here-string would be). ``before``: the command before ``cmd`` on the line (a pipe's
    writer when it is the stage before). None when ``cmd`` does not read ``path`` so."""
    if not _reads_from(cmd, path, before):
        return None
    program = cmd.program or ""
    if _first_operand(cmd.words) is None or program in STDIN_CLIENTS:
        if program in SHELLS:
            return text
        if (program in INLINE and INLINE[program] == "-c") or program in ("node", "perl", "ruby"):
            return as_line(program, text)
    if program in STDIN_CLIENTS or (_first_operand(cmd.words) is None and _reads_program(cmd)):
        prefix = " ".join(f"{a.name}={shlex.quote(a.value.shown)}" for a in cmd.assignments)
        return f"{prefix} {shlex.join(cmd.argv)} <<< {shlex.quote(text)}".strip()
    return None


def _reads_program(cmd: SimpleCommand) -> bool:
    """An interpreter of another language (``jshell``, ``tclsh``, ``lua``, ``julia``) that
    reads its program from standard input: the text sent there is its code, judged as the
    here-string it amounts to (``jshell <<< CODE``)."""
    from clawgate.validators.interpreters import INLINE as INTERPRETERS
    from clawgate.validators.programs import family_name

    return family_name(cmd.program) in INTERPRETERS


# Clients that read commands on their input: what a file sent to them holds is what they run.
STDIN_CLIENTS = frozenset({
    "psql", "mysql", "mariadb", "sqlite3", "duckdb", "clickhouse-client", "pgcli", "mycli",
    "litecli", "usql", "sqlcmd", "cqlsh", "cockroach", "mysqlsh", "influx", "redis-cli",
    "valkey-cli", "keydb-cli", "mongosh", "mongo", "kubectl", "oc"})


def _reads_from(cmd: SimpleCommand, path: str, before: SimpleCommand | None) -> bool:
    """``cmd`` takes ``path`` as its standard input: ``< path``, or ``cat path |`` before it."""
    if any(r.op == "<" and r.fd in (None, 0) and r.target is not None and
           r.target.value is not None and _norm(r.target.value) == path for r in cmd.redirects):
        return True
    if before is None or cmd.stage == 0 or before.pipeline != cmd.pipeline or (
            before.stage != cmd.stage - 1 or before.program != "cat"):
        return False
    operands = [w.value for w in before.words[1:]]
    return len(operands) == 1 and operands[0] is not None and _norm(operands[0]) == path

