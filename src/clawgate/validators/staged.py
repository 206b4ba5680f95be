"""Staged payloads: one command writes a script or copies a shell, a later command in the same
line runs or loads it (``echo 'exec sh' > f; chmod +x f; tool --hook f``)."""

from __future__ import annotations

import posixpath
import re

from clawgate.decision import NO_OPINION, MayRun, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.records import field, record
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.codescan import scan
from clawgate.validators.copiedfiles import copied, named_at_run_time, renamed_by_cd
from clawgate.validators.envvars import assignments
from clawgate.validators.inertmanifest import inert_manifest, inert_settings
from clawgate.validators.programs import INSPECTORS, SHELL_REFERENCE
from clawgate.validators.runfiles import (
    RunFile,
    literal_commands,
    project_files,
    reader_for,
    written_actions,
)
from clawgate.validators.writes import may_write, write_targets
from clawgate.validators.written import (
    COMPILE_AND_RUN,
    appends,
    as_line,
    fed_line,
    run_as,
    script_operand,
    written,
)

_WRITERS = frozenset({"echo", "printf", "cat"})
_COPIERS = frozenset({"cp", "ln", "install", "mv", "rsync"})
_PAYLOAD = lazy_pattern(r"(?i)\bexec(?:start\w*)?\s*[=\s(]|\bpost-?up\s*=|\bpre-?up\s*=|-invoke\b|"
                        r"load_module|\.so\b|\bcommand\s*[:=]|\^/|(?:^|\n)\s*!|"
                        r"\bsystem\s*\(|\bspawn\b|<script\b|\bscript\s*[:=]")
_EXECUTABLE_MODE = lazy_pattern(r"^(?:[ugoa]*\+[rwxs]*x|[0-7]*[1357][0-7]{0,2}|\d*[1357]\d\d|"
                                r"[0-7]?[0-7][1357][0-7]|[0-7]?[0-7]{2}[1357])$")
_AUTORUN = lazy_pattern(r"(?:^|/)(?:package\.json|Gemfile|composer\.json|CMakeLists\.txt|Makefile|"
                        r"setup\.py|conftest\.py|\.lessfilter|\.bashrc|\.bash_profile|\.profile|"
                        r"\.zshrc|\.zprofile|\.vimrc|\.exrc|\.npmrc|\.yarnrc|\.gitconfig|\.envrc|"
                        r"\.pythonrc|sitecustomize\.py|usercustomize\.py|\.git/hooks/[\w-]+|"
                        r"\.ssh/rc|[\w.-]+\.service|\.config/autostart/.*|"
                        r"Library/Launch(?:Agents|Daemons)/[^/]+\.plist)$")
# A .pth file of a site directory: Python runs its lines that start with ``import`` at every
# start (the other lines only add directories to the import path).
_PTH = lazy_pattern(r"(?:^|/)(?:site|dist)-packages/[^/]+\.pth$")
_PTH_CODE = lazy_pattern(r"(?m)^import[ \t]")
# Text that fetches something and hands it to a shell or runs a command: written into a file
# that runs by itself, it is ``curl | sh`` waiting for the next build, install or start.
_FETCHES = lazy_pattern(r"\b(?:curl|wget|nc|ncat|netcat|socat|telnet)\b|/dev/(?:tcp|udp)/|"
                        r"\burlopen\b|\bhttp\.client\b")
_HANDS_ON = lazy_pattern(r"\|\s*(?:sudo\s+)?(?:ba|da|z|k)?sh\b|\bsystem\s*\(|\bexec[lv]?p?\s*\(|"
                         r"\beval\b|\bsubprocess\b|\bpopen\b|\bspawn\b", re.IGNORECASE)


@record()
class _Stage:
    """Files the line has written so far, and whether each holds code (or was made executable)."""

    loaded: dict[str, bool] = field(default_factory=dict)  # path -> holds a payload

    def mentioned_in(self, cmd: SimpleCommand) -> str | None:
        texts = [w.shown for w in cmd.words] + [a.value.shown for a in cmd.assignments]
        values = {a.value.shown for a in cmd.assignments}
        for path in self.loaded:
            base = posixpath.basename(path.rstrip("/"))
            folder = posixpath.dirname(path) or "."
            for text in texts:
                if path in text or (len(base) > 2 and text.endswith(base)):
                    return path
            if folder in values or any(t.endswith("=" + folder) for t in texts):
                return path
        return None


def _runs_itself(path: str, text: str | None) -> bool:
    """``path`` is a file that runs by itself; a ``.pth`` one only with an ``import`` line in
    ``text`` (None: not known)."""
    if _PTH.search(path):
        return text is None or _PTH_CODE.search(text) is not None
    return _AUTORUN.search(path) is not None


def _written(cmd: SimpleCommand) -> list[tuple[str, bool, bool, str | None]]:
    """(path, holds a payload, fetches and runs, the text written when known) for what
    ``cmd`` writes or copies a program to."""
    found: list[tuple[str, bool, bool, str | None]] = []
    program = cmd.program
    if program in _WRITERS:
        targets = [r.target.value for r in cmd.redirects
                   if r.writes and r.target is not None and r.target.value]
        if not targets:  # writes no file: what it prints is not read (most echo and cat)
            return found
        body = " ".join(cmd.args) + "".join(r.heredoc or "" for r in cmd.redirects)
        payload = bool(_PAYLOAD.search(body) or SHELL_REFERENCE.search(body) or
                       scan(body).risky)
        fetches = bool(_FETCHES.search(body) and _HANDS_ON.search(body))
        text = _text(cmd, body)
        found.extend((target, payload, fetches, text) for target in targets)
    elif program in _COPIERS and len(cmd.words) > 2:
        operands = [w.shown for w in cmd.words[1:] if not w.shown.startswith("-")]
        if len(operands) >= 2:
            sources = " ".join(operands[:-1])
            found.append((operands[-1], bool(SHELL_REFERENCE.search(sources)) or any(
                s.startswith(("/bin/", "/usr/bin/", "/path/to/command")) for s in operands[:-1]),
                False, None))
    return found


def _text(cmd: SimpleCommand, body: str) -> str | None:
    """What a printing command writes, as far as it is known before it runs (None when a word
    is only known then); a ``\\n`` escape taken as the line break printf and ``echo -e``
    make of it."""
    if any(word.value is None for word in cmd.words[1:]):
        return None
    return body.replace("\\n", "\n")


def _made_executable(cmd: SimpleCommand) -> list[str]:
    """The files ``cmd`` makes executable (``chmod +x f``, ``chmod 755 f``)."""
    if cmd.program != "chmod" or len(cmd.args) < 2 or not _EXECUTABLE_MODE.match(cmd.args[0]):
        return []
    return [path for path in cmd.args[1:] if not path.startswith("-")]


@register
class StagedPayload(LineValidator):
    """A file written with shell code or an exec payload, a shell copied, or a file written
    on the line and made executable, then used by a later command of the same line (run, or
    handed over as a config, hook or directory); or code written into a file that runs by itself
    (``package.json``, ``Gemfile``, ``.git/hooks/*``, ``~/.bashrc``, a site directory's ``.pth``
    with an ``import`` line; not a JSON manifest whose literal text declares data only:
    inertmanifest.py). ASK; DENY when that code fetches something and runs it. Literal text
    written to a file and then run on the same line (``printf '…' > t.sh && sh t.sh``,
    ``echo '…' > x.py; python x.py``, ``echo '…' > conftest.py && pytest``, a file
    ``NODE_OPTIONS=--require`` names or ``-r NAME`` finds in ``node_modules``, a perl module
    ``PERL5OPT`` loads from a ``-I`` directory, a program ``awk -f`` or ``sed -f`` reads, a
    file sent to a program's input: ``bash < t.sh``, ``redis-cli < c.txt``, ``cat q.sql |
    psql``; under the name ``cp``, ``mv``, ``ln`` or a ``cd`` below gives it) is checked as
    the command, inline code or client input it is (a link to an absolute or home path, or a
    script named by a glob or a variable that may be the file: text unknown); a run
    of a file whose text cannot be known (``cmd > t.sh; sh t.sh``) is ASK. Command lines
    written to a file the project's tools run (Makefile recipes, ``package.json`` scripts, a
    kubeconfig's ``exec`` plugin: runfiles.py) are checked when written; a file that runs by
    itself, written with literal text that a later command of the line runs, is judged as that
    text (``printf 'test:\n\tpytest -q\n' > Makefile && make test``), not asked about. A
    file a filter rewrote (``jq '.scripts.pretest = "CMD"' package.json > p.json``) holds
    the string literals of the filter's program: when a file of unknown text runs, those
    that read as command lines are checked too (only their DENY counts).

    Bad: ``echo 'exec /bin/sh' > f; chmod +x f; tool -c f``. Harmless:
    ``echo hello > notes.txt && cat notes.txt``.
    """

    id = "CG-ESC-011"

    def line_shapes(self) -> int:
        return ls.MULTI | ls.WRITES

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if len(parsed.commands) < 2 and not any(
                r.writes for c in parsed.commands for r in c.redirects):
            return NO_OPINION
        checked: set[tuple[int, str]] = set()
        ran = _written_then_run(parsed, checked)
        nested = tuple(line for line in ran if line is not None)
        if None in ran:  # what is known of the text (a tail appended) is checked as well
            nested += _filtered_in(parsed)
            message = "runs a file written on this line with text that cannot be known before " \
                      "it runs"
            if nested:
                return Verdict.unwrap(*nested, outcome=Outcome.ASK, rule_id=self.id,
                                      message=message)
            return Verdict.ask(self.id, message, hint="run the steps separately")
        found = self._staged(parsed, checked)
        nested += _filtered_in(parsed, ran_unknown=False)
        if not nested:
            return found
        if found.outcome is Outcome.PASSTHROUGH:
            return Verdict.unwrap(*nested)
        return Verdict.unwrap(*nested, outcome=found.outcome, rule_id=self.id,
                              message=found.reasons[0].message if found.reasons else "")

    def _staged(self, parsed: ParsedLine, checked: set[tuple[int, str]]) -> Verdict:
        """``checked``: (command, file) pairs where the command runs the file's known text,
        which is checked as the command or code it is (the payload guess does not apply)."""
        stage = _Stage()
        made: set[str] = set()  # made executable or copied from a program: not mere text
        for index, cmd in enumerate(parsed.commands):
            reader = cmd.program in INSPECTORS  # reading a file back runs nothing
            used = stage.mentioned_in(cmd) if stage.loaded and not reader else None
            if used is not None and used not in made and (
                    index, posixpath.normpath(used)) in checked:
                used = None
            if used is not None and stage.loaded[used]:
                return Verdict.ask(self.id, f"{used!r} is prepared with a payload and then used "
                                   "by a later command", hint="run the steps separately")
            for path, payload, fetches, text in _written(cmd):
                runs_itself = _runs_itself(path, text)
                if runs_itself and fetches:
                    return Verdict.deny(self.id, f"code that fetches something and runs it is "
                                        f"written into {path!r}, which runs by itself",
                                        hint="review the file, then write it by hand")
                judged = any((later, posixpath.normpath(path)) in checked
                             for later in range(index + 1, len(parsed.commands)))
                if runs_itself and not judged and not inert_manifest(cmd, path) and (
                        not inert_settings(cmd, path)):
                    return Verdict.ask(self.id, f"code is written into {path!r}, which runs "
                                       "by itself", hint="review the file, then write it")
                stage.loaded[path] = stage.loaded.get(path, False) or payload
                if cmd.program not in _WRITERS:
                    made.add(path)
            for path in _made_executable(cmd):
                # A file this line wrote, made executable: whatever it holds is now a
                # program (``echo id > groff; chmod +x groff; GROFF_BIN_PATH=. nroff``). A
                # file the line did not write is the checkout's own: ``chmod +x
                # scripts/test.sh && scripts/test.sh`` runs it as ``scripts/test.sh`` alone
                # would, and program identity judges that run.
                written_as = {posixpath.normpath(p): p for p in stage.loaded}
                if posixpath.normpath(path) in written_as:
                    stage.loaded[written_as[posixpath.normpath(path)]] = True
                    made.add(written_as[posixpath.normpath(path)])
        return NO_OPINION


# filters whose program, a word of their own, writes its string literals into the text they
# print: ``jq '.scripts.pretest = "CMD"' package.json > p.json``
_FILTERS = frozenset({"jq", "gojq", "jaq", "yq", "sed", "gsed", "perl"})
_SOAKERS = frozenset({"sponge", "tee"})  # jq … f | sponge f: the filter's output into f


def _filtered_in(parsed: ParsedLine, ran_unknown: bool = True) -> tuple[MayRun, ...]:
    """The string literals of the programs of filters on the line that write a file and
    read as command lines: the part of that file's text the line itself gives, when a later
    command runs a file whose text is otherwise unknown (``ran_unknown``), or runs a file the
    filter rewrote in place or through ``sponge``/``tee`` (``yq -i '…' Taskfile.yml && task
    build``). Each may run or be data: only a DENY of it counts."""
    found: list[MayRun] = []
    commands = parsed.commands
    for index, cmd in enumerate(commands):
        if cmd.program not in _FILTERS:
            continue
        targets = {w.value for w in write_targets(cmd) if w.value} | {
            w.value for c in commands if c.pipeline == cmd.pipeline and c.pipeline and (
                c.stage == cmd.stage + 1 and c.program in _SOAKERS)
            for w in c.words[1:] if w.value and not w.value.startswith("-")}
        if not targets:
            continue
        if not ran_unknown and not any(
                run_as(later, path, None) is not None or reader_for(later, path) is not None
                for later in commands[index + 1:] for path in targets):
            continue
        words = " ".join(w.value for w in cmd.words[1:] if w.value is not None)
        found.extend(literal_commands(words))
    return tuple(found)


_EXPORTERS = frozenset({"export", "declare", "typeset"})
_METADATA = frozenset({"chmod", "chown", "chgrp", "touch", "chattr", "setfacl"})


def _changed(cmd: SimpleCommand, files: dict[str, str | None], filled: set[str]) -> None:
    """Files of the line whose text ``cmd`` changes by other means than filling them with a
    stream (``sed -i``, ``cp``/``mv`` over them, a target only known at run time): from then on
    their text is unknown."""
    for word in write_targets(cmd):
        if word.value is None:
            for path in files:
                files[path] = None
            return
        path = posixpath.normpath(word.value)
        if path in files and path not in filled:
            files[path] = None


def _source_actions(lang: str, text: str | None) -> list[str | None]:
    """The shell commands doing what source code compiled and run does (its file actions and
    literal processes); None (ask) when it reaches the network or its text is unknown."""
    if text is None:
        return [None]
    from clawgate.inline.tokens import analyse

    found = analyse(text, lang)
    if found.network or found.opaque:
        return [None, *found.commands]
    return list(found.commands)


def _written_then_run(parsed: ParsedLine, checked: set[tuple[int, str]]) -> list[str | None]:
    """The command lines that run text the line wrote into a file (None for a file whose text
    cannot be known), in the order they run; ``checked`` gets (command, file) for each run of
    known text."""
    files: dict[str, str | None] = {}
    found: list[str | None] = []
    before: SimpleCommand | None = None
    exported: dict[str, str] = {}  # export NODE_OPTIONS=…; npm test
    judged: set[tuple[str, str | None]] = set()  # table files whose written text was judged
    extra: tuple[RunFile, ...] = ()  # files a pyproject.toml the line wrote makes a build run
    for index, cmd in enumerate(parsed.commands):
        for path, text in files.items():
            how = run_as(cmd, path, text, exported)
            if how in COMPILE_AND_RUN:  # source read through its tokens: its actions
                found.extend(_source_actions(COMPILE_AND_RUN[how][1], text))
            elif how is not None:
                found.append(None if text is None else as_line(how, text))
                if text is not None:
                    checked.add((index, path))
            elif (reader := reader_for(cmd, path, extra)) is not None:  # run, not named
                lines = None if text is None else reader(text)
                found.extend([None, *literal_commands(text or "")] if lines is None else lines)
                if lines is not None:
                    checked.add((index, path))
            elif text is not None and (line := fed_line(cmd, path, text, before)) is not None:
                found.append(line)  # sh < t.sh, redis-cli < c.txt, cat c.txt | psql
                checked.add((index, path))
        if files and (word := script_operand(cmd)) is not None and named_at_run_time(word, files):
            found.append(None)  # sh ./w*.txt, sh "$PWD/w.txt": maybe a file the line wrote
        if cmd.program in _EXPORTERS:
            exported.update((name, value.value or "") for name, value in assignments(cmd))
        if cmd.program in _EXPORTERS or not cmd.words:  # PATH=.:$PATH; ls: PATH is exported
            exported.update((name, value.value or value.text) for name, value in
                            assignments(cmd) if name == "PATH")
        piped = before if cmd.stage > 0 and before is not None and (
            before.pipeline == cmd.pipeline and before.stage == cmd.stage - 1) else None
        filled = written(cmd, piped)
        if files and cmd.program not in _METADATA and may_write(cmd):
            _changed(cmd, files, {path for path, _ in filled})
        for path, text in filled:
            if path in files and appends(cmd, path):  # the text written before stays
                earlier = files[path]
                text = None if text is None or earlier is None else earlier + text
            files[path] = text  # (appended to a file from before the line: as running it)
            extra += project_files(path, text or "")
            if text is not None and (path, text) not in judged:
                judged.add((path, text))  # what the project's own commands run later
                found.extend(written_actions(path, text))
        files.update(copied(cmd, files) + renamed_by_cd(cmd, files))  # cp/mv/ln, cd d
        before = cmd
    return found
