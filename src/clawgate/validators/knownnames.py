"""Names whose value a write may take as known (CG-PROG-002): set by the line itself, before
the write, to a value the line chose.

A name the line does not set holds what the environment gave the shell the line runs in: an
agent's shell, where an earlier call may have exported anything (``export T=~/.bashrc``), or a
CI step's ``env:``. The engine's own environment is not that one (a hook and the CLI run in
other processes; only a Guard's executor passes on the environment it checked), so a name is
known from the line alone, and only from the point where the line has surely set it:

- a plain assignment or a literal declaration (``T=out.txt``, ``export T=out.txt``,
  ``T=$(mktemp)``) standing on its own, in the line's own shell, run whenever the line runs
  (not in a branch, a loop, a function, a pipeline, after ``&&``/``||``: there the name may
  keep the environment's value), known for the commands after it; a prefix assignment
  (``T=x make``) sets the name for that program only;
- every assignment of the name on the line is such a value (``T=out.txt; T=$(cat f)``: the
  second is any text), and nothing else sets it (``read``, ``printf -v``, ``eval`` …:
  ``shell/clobbers.py``);
- a loop's variable, inside and after the loop, where its list is literal words and globs in
  the workspace, or the output of a lister of the workspace: ``ls`` with plain switches,
  ``find`` of relative start points printing its paths, ``git ls-files``, each optionally
  filtered by ``grep``, ``sort``, ``uniq``, ``head``, ``tail`` (which pass whole lines); and
  the list reaches no protected path (``validators/listedprotected.py``: ``for f in
  .git/hooks/*``, ``$(git ls-files)`` where the project tracks its CI files). A list of
  ``"$@"``, ``$FILES`` or ``$(cat list)`` is any text;
- a directory a substitution prints, computed from where the agent's line starts
  (``R=$(pwd)``, ``R=$(git rev-parse --show-toplevel)``: ``shell/rundirs.py``), under the
  same conditions;
- the files and scratch directories a CI runner hands a step (``$GITHUB_OUTPUT``,
  ``$RUNNER_TEMP``), where the line does not set them.
"""

from __future__ import annotations

import os
import shlex

from clawgate.lazyre import lazy_pattern
from clawgate.shell import parse
from clawgate.shell.clobbers import EVERY, SETTERS, clobbered, declared
from clawgate.shell.constants import run_directories, surely_runs
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators.base import Context
from clawgate.validators.listedprotected import find_starts, item_reaches, lister_reaches
from clawgate.validators.paths import under

SCRATCH = lazy_pattern(r"^\$\((?:\s*(?:command\s+)?mktemp\b[^)]*)\)$|^`\s*mktemp\b[^`]*`$")
_LOOP_LIST = lazy_pattern(r"\b(?:for|select)\s+([A-Za-z_]\w*)\s+in\b([^;\n]*)")
_SUBSTITUTION = lazy_pattern(r"\s*(?:\$\(([^()`]*)\)|`([^`]*)`)\s*")
# Files the CI runner hands a step to write to, and the scratch directories it names.
RUNNER_FILES = frozenset({"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY", "GITHUB_PATH",
                          "GITHUB_STATE", "RUNNER_TEMP", "TMPDIR", "TMP", "TEMP"})
_LS_SWITCHES = frozenset("1aAdrtSUvX")
_FILTERS = frozenset({"grep", "egrep", "fgrep", "sort", "uniq", "head", "tail"})
_FIND_PRINTS = frozenset({"-printf", "-fprintf", "-fprint", "-fprint0", "-fls", "-ls", "-exec",
                          "-execdir", "-ok", "-okdir", "-delete"})


def known_names(parsed: ParsedLine, ctx: Context) -> dict[str, int]:
    """Each name known (see the module) and the byte offset in the line from which it is."""
    other = clobbered(parsed, loops=False)
    if EVERY in other:
        return {}
    source = parsed.source
    assigned: set[str] = set()
    chosen: set[str] = set()  # assigned at least once to something not known
    certain: dict[str, int] = {}
    # R=$(pwd): the directory it prints, computed from where the agent's line starts
    directories = {} if ctx.nested else run_directories(parsed, ctx.cwd)
    for cmd in parsed.commands:
        pairs = [(a.name.partition("[")[0], a.value) for a in cmd.assignments]
        if cmd.program in SETTERS and (found := declared(cmd)) is not None:
            pairs += [(a.name, a.value) for a in found]
        for name, value in pairs:
            assigned.add(name)
            if "[" in name or not (value.value is not None or
                                   SCRATCH.match(value.text.strip('"')) or
                                   name in directories.get(cmd.offset, {})):
                chosen.add(name)
            elif _sets_shell(cmd) and surely_runs(source, cmd):
                certain[name] = min(certain.get(name, cmd.offset), cmd.offset)
    names = dict.fromkeys(RUNNER_FILES - other - assigned, -1)  # before the line
    names.update({n: at for n, at in certain.items() if n not in chosen and n not in other})
    raw = source.encode("utf-8", "surrogateescape")
    for match in _LOOP_LIST.finditer(source):
        name = match.group(1)
        if name in chosen or name in other or not _listed_here(match.group(2), ctx):
            names.pop(name, None)
            chosen.add(name)
            continue
        at = len(source[: match.start()].encode("utf-8", "surrogateescape"))
        if at < len(raw):
            names[name] = min(names.get(name, at), at)
    return names


def _sets_shell(cmd: SimpleCommand) -> bool:
    """The command sets its assignments in the shell: no program after them (``T=x make``
    sets T for make alone), or it is a declaration."""
    return not cmd.words or cmd.program in SETTERS


def _listed_here(listed: str, ctx: Context) -> bool:
    """Every item of a loop's list is a path of the workspace (see the module)."""
    whole = _SUBSTITUTION.fullmatch(listed)
    if whole is not None:
        return _lister(whole.group(1) or whole.group(2) or "", ctx)
    if "$" in listed or "`" in listed:
        return False
    try:
        words = shlex.split(listed)
    except ValueError:
        return False
    for word in words:
        path = os.path.normpath(os.path.join(ctx.cwd, word.replace("~", ctx.home, 1)
                                             if word.startswith("~") else word))
        if not under(path, ctx.workspace) or item_reaches(word, ctx):
            return False
    return True


def _lister(text: str, ctx: Context) -> bool:
    """``text`` is a pipeline that prints paths below where it runs, none of them protected
    (see the module)."""
    try:
        commands = parse(text).commands
    except ValueError:
        return False
    if not commands or any(c.depth or c.nesting or not _quiet(c) for c in commands):
        return False
    first, rest = commands[0], commands[1:]
    if any(c.program not in _FILTERS or c.stage == 0 for c in rest):
        return False
    words = [w.value for w in first.words[1:]]
    if any(w is None or "~" in w.text for w in first.words[1:]):
        return False  # globs and braces name entries below where it runs, as written
    items = [w for w in words if w is not None]
    if first.program == "ls":
        lists = all(set(w[1:]) <= _LS_SWITCHES if w.startswith("-") else _relative(w)
                    for w in items)
    elif first.program == "find":
        starts = find_starts(items)
        lists = all(_relative(w) for w in starts) and not _FIND_PRINTS & set(items)
    elif first.program == "git":
        lists = items[:1] == ["ls-files"] and all(
            w in ("-c", "--cached", "-m", "--modified", "-o", "--others", "--exclude-standard",
                  "--") or not w.startswith("-") for w in items[1:])
    else:
        return False
    return lists and not lister_reaches(first.program, items, ctx)


def _quiet(cmd: SimpleCommand) -> bool:
    """The command's only redirection, if any, throws its errors away (``2>/dev/null``)."""
    return all(r.op == ">" and r.fd == 2 and r.target is not None and
               r.target.value == "/dev/null" for r in cmd.redirects)



def _relative(word: str) -> bool:
    return bool(word) and not word.startswith(("/", "~", "-")) and \
        ".." not in word.split("/")
