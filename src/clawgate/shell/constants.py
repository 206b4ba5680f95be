"""Same-line constants: the line rewritten with what it already says about its own words.

``x=/; rm -rf "$x"`` runs ``rm -rf /``; ``a=_b; _b=su; sudo "${!a}"`` runs ``sudo su``;
``printf '%s\\0' -rf / | xargs -0 rm`` runs ``rm -rf /``. ``resolved_line`` expands braces
(``braces.py``), substitutes the values of variables assigned literally earlier in the line
(in source order, outside pipelines and functions; ``${!x}`` followed), puts in the output of
substitutions that can be computed by reading (``$(echo rm)``, ``shell/substitute.py``),
writes plainly the
words spelled to hide their value (``\\r\\m``, ``$'\\x2f'``), and turns ``printf``/``echo``
literals piped into ``xargs`` into the command xargs runs. The engine checks the rewritten line
*in addition to* the line: what cannot be known exactly is left as written. ``resolution`` also
names the commands whose every expansion was put in exactly (as bash would, see there): for
those, the engine lets the asks that only say "known at run time" give way to the resolved
reading.
"""

from __future__ import annotations

import os
import re
import shlex

from clawgate.lazyre import lazy_pattern
from clawgate.records import replace
from clawgate.shell import clobbers
from clawgate.shell import model as m
from clawgate.shell.braces import expand_line
from clawgate.shell.expand import ARRAY_SEP, DEFAULT_IFS, expand
from clawgate.shell.paramops import SHELL_OPTIONS
from clawgate.shell.xargsfeed import encode, quote, xargs_feed

_EXPANDABLE = frozenset({m.VARIABLE, m.INDIRECT, m.ANSI_C, m.LOCALE})

# A line with nothing to put in: no expansion, quote or escape, no xargs and no text piped
# into a shell or an interpreter (``echo rm -rf ~ | bash``).
# (each alternative led by a literal character, not a class: re then skips every position
# where none of those characters stands, half the cost of a search)
_HINTS = lazy_pattern(r"\$|\\|'|\"|`|xargs|\|\s*(?:\S*/)?(?:(?:ba|da|z|k|mk|a|ya|po)?sh|"
                      r"python[\d.]*|perl|ruby|node|source|parallel|\.)(?:\s|$)")
_GROUP = lazy_pattern(r"(?<![$\\])\{|#")
_COMMENT_LINE = lazy_pattern(r"(?m)^[ \t]*#[^\n]*")  # a comment that is a line of its own
_HOME_TILDE = lazy_pattern(r"~(?:/[\w./-]*)?")
_REFERENCED = lazy_pattern(r"\$\{?[#!]?(\w+|[@*#?$!-])")
_GLOB_CHARS = lazy_pattern(r"[*?\[]")
_JOINERS = ("&", "|", "\\", ";;")  # what continues a list over a newline (and ;; ends a case)
# Computed rather than assigned: a value built this way stays a disguise of its own.
_DISGUISING = frozenset({m.INDIRECT, m.COMMAND})
# Except the name mktemp made (tmp=$(mktemp -d)): a fresh path, no text of anyone's choosing.
_FRESH_NAME = lazy_pattern(r"(\"?)\$\(\s*mktemp(?:\s+[\w./=+-]+)*\s*\)\1")
# What may change any variable: a nameref set by declare -n assigns through another name,
# a trap runs code before commands, builtin/command run a setter (builtin read a), wait -p ...
# an alias changes what the words of later lines mean.
_REREADERS = frozenset({"source", ".", "eval", "declare", "typeset", "local", "trap", "wait",
                        "builtin", "command", "enable", "coproc", "exec", "alias"})
_DECLARING = frozenset({"export", "readonly", "declare", "typeset", "printf"})
_FD_NAME = lazy_pattern(r"\{[A-Za-z_]\w*\}[<>]")  # exec {fd}>file sets $fd
Edit = tuple[int, int, str]  # byte start, byte end, replacement text


def resolved_line(parsed: m.ParsedLine, cwd: str | None = None) -> str | None:
    """``parsed``'s line with same-line constants put in, or None when nothing changes."""
    return resolution(parsed, cwd)[0]


def resolution(parsed: m.ParsedLine, cwd: str | None = None
               ) -> tuple[str | None, frozenset[int], frozenset[int]]:
    """``resolved_line``, and the indexes (in ``parsed.commands``) of the commands whose every
    dynamic word it put in exactly, as bash would: each from values assigned literally before
    it in the same shell and unconditionally (not in a subshell, branch, pipeline stage or
    function; not after ``&&``/``||`` or inside a ``{ }`` group; nothing that ``source`` or
    ``eval`` could have changed since; no name the line sets in any other way, as
    ``shell/clobbers.py`` reads them). Such a command is what its resolved reading says it is;
    any other is also judged as written. Third, the indexes of the ``xargs`` commands fed by a
    ``find`` of literal starting points that prints plain paths: the resolved reading puts
    each item in under its starting point, which says where it lies better than the bare
    item of the line as written. ``cwd``: the directory the line starts in, when known,
    for the directories substitutions such as ``$(pwd)`` print (``shell/rundirs.py``)."""
    source = parsed.source
    expanded = expand_line(source)
    exact: set[int] = set()
    fed: set[int] = set()
    if expanded is not None:
        from clawgate.shell import parse

        parsed = parse(expanded)
    substituted = _substituted(parsed, respell=expanded is not None,
                               exact=exact if expanded is None else None,
                               fed=fed if expanded is None else None, cwd=cwd)
    found = substituted if substituted is not None else expanded
    if found == source or found is None:
        return None, frozenset(), frozenset()
    return found, frozenset(exact), frozenset(fed)


def respelled(parsed: m.ParsedLine) -> list[m.SimpleCommand]:
    """The commands of a line with nothing to put in whose static words are spelled to hide
    their value (``\\d\\d``, ``$'\\x2fdev\\x2fsda'``), with those words written plainly:
    checks that match a command's text see what it runs. Cheaper than a resolved line: the
    values are already known, so no parse and no other command is checked again."""
    if not _HINTS.search(parsed.source):
        return []
    src = parsed.source.encode("utf-8", "surrogateescape")
    out = []
    for cmd in parsed.commands:
        edits = _word_edits(cmd, {}, src)
        if not edits:
            continue
        text = _apply(src[cmd.offset : cmd.offset + len(encode(cmd.text) or b"")],
                      [(a - cmd.offset, b - cmd.offset, r) for a, b, r, _ in edits])
        if text is not None:
            out.append(replace(cmd, text=text, words=tuple(_plain(w) for w in cmd.words),
                               redirects=tuple(_plain_target(r) for r in cmd.redirects)))
    return out


def _plain(word: m.Word) -> m.Word:
    if word.value is None or not _rewritable(word):
        return word
    return m.Word(quote(word.value), word.value, quote(word.value) != word.value,
                  word.expansions - {m.ANSI_C, m.LOCALE})


def _plain_target(redirect: m.Redirect) -> m.Redirect:
    if redirect.target is None or redirect.heredoc is not None:
        return redirect
    return replace(redirect, target=_plain(redirect.target))


def _substituted(parsed: m.ParsedLine, *, respell: bool,
                 exact: set[int] | None = None, fed: set[int] | None = None,
                 cwd: str | None = None) -> str | None:
    """The line with variables put in and xargs feeds inlined (disguised words written plainly
    along with them), or None when there is neither; ``respell``: a new line is made anyway
    (braces were expanded), so write its disguised words plainly too. ``exact`` collects the
    indexes of the commands put in exactly, ``fed`` those of the xargs commands whose items a
    find feed puts in under its starting points (``resolution``)."""
    source = parsed.source
    if not _HINTS.search(source):
        return None
    src = source.encode("utf-8", "surrogateescape")
    clobbered = clobbers.clobbered(parsed, stages=False)
    env = _start_env(source)
    known: dict[str, str] | None = (
        None if exact is None or "IFS" in clobbered or clobbers.EVERY in clobbered
        or _FD_NAME.search(source) else dict(env))  # the values known exactly
    edits: list[tuple[int, int, str, bool]] = []
    commands = parsed.commands
    fed_end = -1  # where the last xargs feed put in ends: the commands before it are replaced
    locked: frozenset[str] = frozenset()  # readonly names
    # values a subshell assigns, by the subshell (as its nesting): seen only inside it
    layers: dict[tuple[str, ...], dict[str, str | None]] = {}
    outer = env
    # R=$(pwd): the directories substitutions print, by the assigning command's offset
    directories = run_directories(parsed, cwd) if cwd is not None else {}
    for index, cmd in enumerate(commands):
        if cmd.offset < fed_end:
            continue
        env = _layered(outer, layers, _path(cmd)) if layers else outer
        declared, locking = _declared(cmd)
        if declared is None:
            locked |= locking
            continue  # export D: D keeps its value
        if locked and any(a.name in locked for a in declared.assignments):
            break  # assigning a readonly name stops the shell: nothing after it runs
        cmd, locked = declared, locked | locking  # readonly D=build assigns D, then locks it
        if cmd.assignments and not cmd.words:
            env = _assign_in(cmd, outer, env, layers, clobbered,
                             directories.get(cmd.offset, {}))
            if known is not None:
                known = _assign_known(cmd, env, known, source, directories.get(cmd.offset, {}))
            continue
        if cmd.program == "set" and cmd.args[:1] == ("--",):
            env = _set_positional(cmd, outer, env, layers, source)
            known = None  # positional parameters: not followed exactly
        feed = xargs_feed(commands, index, env, src, _argv)
        if feed is not None:
            edits.append((*feed, True))
            fed_end = feed[1]
            if fed is not None and cmd.program == "find":
                fed.update(i for i, c in enumerate(commands)
                           if c.program == "xargs" and feed[0] < c.offset < feed[1])
            elif exact is not None and _literal_feeder(cmd):
                # printf 'ls' | sh, cat <<'EOF' | python3: the program the consumer reads
                # is put in exactly (sh -c 'ls'), which says what it runs
                exact.update(i for i, c in enumerate(commands)
                             if c.program != "xargs" and feed[0] < c.offset < feed[1]
                             and c.pipeline == cmd.pipeline and c.stage == 1)
            continue
        limit = min((c.offset for c in commands[index + 1 :] if c.offset > cmd.offset),
                    default=len(src)) if cmd.redirects else None
        found = _word_edits(cmd, env, src, limit)
        edits.extend(found)
        if known is not None and exact is not None:
            if found and _put_in_exactly(cmd, known, found):
                exact.add(index)
            if cmd.program in _REREADERS or cmd.program is None:
                known = None  # source x, eval, declare -n ...: any variable may change
    if not edits or not (respell or any(resolved for *_, resolved in edits)):
        return None
    return _apply(src, [(a, b, r) for a, b, r, _ in edits])


def _declared(cmd: m.SimpleCommand) -> tuple[m.SimpleCommand | None, frozenset[str]]:
    """A plain declaration read as the assignments it makes (``export D=build`` as
    ``D=build``; None for one that assigns nothing, ``export D``), with the names it makes
    readonly (``readonly D=build``: D, locked after its own assignment); any other command as
    it is."""
    if cmd.program not in _DECLARING or (assigned := clobbers.declared(cmd)) is None:
        return cmd, frozenset()
    locking = clobbers.readonly(cmd)
    if not assigned:
        return None, locking
    return replace(cmd, words=(), assignments=assigned), locking


# What may move the line's shell, or run code that does, before a later assignment.
_MOVERS = frozenset({"cd", "pushd", "popd", "builtin", "command", "eval", "source", ".",
                     "exec", "alias", "trap", "enable", "coproc"})
_OWN_SHELLS = frozenset({"command_substitution", "subshell"})  # a cd there moves only them


def _may_move(cmd: m.SimpleCommand) -> bool:
    """``cmd`` may change the line's working directory or PWD (a function's body: its calls
    may come anywhere after)."""
    if "function" in cmd.nesting or any(a.name == "PWD" for a in cmd.assignments):
        return True
    if not cmd.words or cmd.pipeline or _OWN_SHELLS.intersection(cmd.nesting):
        return False
    return cmd.program is None or cmd.program in _MOVERS


def _directories(cmd: m.SimpleCommand, here: str | None, clobbered: frozenset[str],
                 names: dict[str, str]) -> dict[str, str]:
    """The names ``cmd`` assigns a directory a substitution prints (``R=$(pwd)``), computed
    from ``here`` (``shell/rundirs.py``); none where the shell may have moved."""
    if here is None:
        return {}
    from clawgate.shell.rundirs import directory_value

    found: dict[str, str] = {}
    for assignment in cmd.assignments:
        name = assignment.name
        if name in clobbered or "[" in name or f"{name}+=" in cmd.text:
            continue
        value = directory_value(assignment.value.text, here, names)
        if value is not None:
            found[name] = value
    return found


def run_directories(parsed: m.ParsedLine, cwd: str) -> dict[int, dict[str, str]]:
    """By the offset of each command assigning one, the names given a directory a
    substitution prints (``R=$(pwd)``, ``shell/rundirs.py``), where nothing before on the
    line may have moved the shell from ``cwd``."""
    clobbered = clobbers.clobbered(parsed, stages=False)
    found: dict[int, dict[str, str]] = {}
    here: str | None = cwd
    names: dict[str, str] = {}  # the directories surely given so far, for later cd DIR
    for cmd in parsed.commands:
        if _may_move(cmd):
            here = None
        if cmd.words and cmd.program in _DECLARING | {"local"}:
            names.clear()  # declare S=…: not followed here
        for assignment in cmd.assignments:
            names.pop(assignment.name.partition("[")[0], None)
        if cmd.assignments and not cmd.words and (
                dirs := _directories(cmd, here, clobbered, names)):
            found[cmd.offset] = dirs
            if surely_runs(parsed.source, cmd):
                names.update(dirs)
    return found


def _start_env(source: str) -> dict[str, str]:
    """The variables known before the line's first command: the default IFS, and a mark
    where the line may change how patterns match (``shopt -s nocasematch``, ``extglob``)."""
    env = {"IFS": DEFAULT_IFS}
    if "shopt" in source or "BASHOPTS" in source:
        env[SHELL_OPTIONS] = ""
    return env


def _literal_feeder(cmd: m.SimpleCommand) -> bool:
    """A printer whose every word is literal, with no assignment, and whose only input, if
    any, is a here-document that expands nothing."""
    return not cmd.assignments and all(
        w.value is not None and not w.expansions for w in cmd.words) and all(
        r.heredoc is not None and not (r.heredoc_expands and (
            "$" in r.heredoc or "`" in r.heredoc)) for r in cmd.redirects)


def _assign_in(cmd: m.SimpleCommand, outer: dict[str, str], env: dict[str, str],
               layers: dict[tuple[str, ...], dict[str, str | None]],
               clobbered: frozenset[str], dirs: dict[str, str]) -> dict[str, str]:
    """``cmd``'s assignments made in the line's values ``outer``, or, inside a subshell, in
    a copy of what it sees (``env``) kept as that subshell's layer (``(D=x)``: D is x in that
    subshell only); the values after."""
    inside = _path(cmd) if cmd.pipeline else _scope(cmd.nesting)
    if inside is None:  # no subshell's layer applies here: env is outer's values
        _assign(cmd, outer, clobbered, dirs)
        return outer
    if _BODIES.intersection(cmd.nesting):
        # a function's or a loop's body: what it assigns is followed for the commands after
        # it in the same body (every call or round runs them in that order); elsewhere the
        # name is unknown (the call may come at any point, the next round sees the value
        # before the assignment), and nothing in a body is read as exact
        clobbered = clobbered - {a.name.partition("[")[0] for a in cmd.assignments}
    after = dict(env)
    _assign(cmd, after, clobbered, dirs)
    _keep(layers, inside, env, after)
    return after


_BODIES = frozenset({"function", "loop"})  # bodies that run again: their own layers


def _within(path: tuple[str, ...], scope: tuple[str, ...]) -> bool:
    """A command at ``path`` is in ``scope``: a prefix of it, or for a pipeline stage's scope
    the same stage, deeper subshells of the stage included (``ls | ( x=/; (rm -rf "$x") )``)."""
    if scope and scope[-1].startswith("|"):
        return bool(path) and path[-1] == scope[-1] and path[: len(scope) - 1] == scope[:-1]
    return path[: len(scope)] == scope


def _path(cmd: m.SimpleCommand) -> tuple[str, ...]:
    """Where ``cmd`` stands for the layers: its nesting, and in a pipeline its stage, which
    runs in a subshell of its own (``ls | { x=/; rm -rf "$x"; }``: x is / in that stage only;
    two pipelines of the same programs are not told apart: each sees what either assigns)."""
    if not cmd.pipeline:
        return cmd.nesting
    return (*cmd.nesting, f"|{cmd.stage}|" + "\x1f".join(cmd.pipeline))


def _set_positional(cmd: m.SimpleCommand, outer: dict[str, str], env: dict[str, str],
                    layers: dict[tuple[str, ...], dict[str, str | None]],
                    source: str) -> dict[str, str]:
    """``set -- …``: in the line's own shell, or in a function's body or a subshell (seen
    there only); the values after."""
    scope = _scope(cmd.nesting)
    if scope is None:
        _positional(cmd, outer, source)
        return outer
    after = dict(env)
    _positional(cmd, after, source)
    _keep(layers, scope, env, after)
    return after


def _scope(nesting: tuple[str, ...]) -> tuple[str, ...] | None:
    """The innermost subshell, function body or loop body (as its nesting) a command at
    ``nesting`` is in, or None in the line's own shell."""
    inside = clobbers.subshell_of(nesting)
    bodies = [i for i, kind in enumerate(nesting) if kind in _BODIES]
    if bodies and (inside is None or bodies[-1] + 1 > len(inside)):
        return nesting[: bodies[-1] + 1]
    return inside


def _keep(layers: dict[tuple[str, ...], dict[str, str | None]], scope: tuple[str, ...],
          env: dict[str, str], after: dict[str, str]) -> None:
    """The values ``after`` changes from ``env``, kept as ``scope``'s layer."""
    layers.setdefault(scope, {}).update(
        {k: after.get(k) for k in {*env, *after} if env.get(k) != after.get(k)})


def _layered(outer: dict[str, str], layers: dict[tuple[str, ...], dict[str, str | None]],
             nesting: tuple[str, ...]) -> dict[str, str]:
    """The values a command at ``nesting`` sees: the line's, then those of the subshells it is
    in (two subshells of the same kind are not told apart: each sees what either assigns)."""
    env = dict(outer)
    for inside in sorted(layers, key=len):
        if _within(nesting, inside):
            for name, value in layers[inside].items():
                if value is None:
                    env.pop(name, None)
                else:
                    env[name] = value
    return env


def _assign_known(cmd: m.SimpleCommand, env: dict[str, str], known: dict[str, str],
                  source: str, dirs: dict[str, str]) -> dict[str, str] | None:
    """``known`` after ``cmd``'s assignments: a value is exact where the assignment always runs
    before what follows, in the same shell; None once IFS is not known exactly."""
    certain = not cmd.nesting and _sequential(cmd) and _unconditional(source, cmd.offset)
    for assignment in cmd.assignments:
        name = assignment.name
        base = name.partition("[")[0]
        for key in [k for k in known if k.startswith(base + "[")]:
            del known[key]
        if certain and name == base and f"{name}[@]" in env and not \
                assignment.value.expansions & _DISGUISING:
            # a=(make test): a literal list, every element static (``_array``): followed
            known.update({k: v for k, v in env.items() if k == name or k.startswith(name + "[")})
        elif "[" in name or assignment.value.text.startswith("("):
            known.pop(base, None)  # other arrays: read, but not followed exactly
        elif name in dirs and env.get(name) == dirs[name] and surely_runs(source, cmd):
            known[name] = dirs[name]  # R=$(pwd): the directory it prints, computed here
        elif certain and name in env and (
                not assignment.value.expansions & _DISGUISING
                or _FRESH_NAME.fullmatch(assignment.value.text)) and all(
                used in known for used in _REFERENCED.findall(assignment.value.text)):
            known[name] = env[name]
        elif name == "IFS":
            return None
        else:
            known.pop(name, None)
    return known


def surely_runs(source: str, cmd: m.SimpleCommand) -> bool:
    """``unconditional``, with each comment that is a line of its own (a shebang, a licence
    header) read as the blank line it is to bash; a comment after a command still counts
    (``true || # …`` continues the list on the next line)."""
    blanked = _COMMENT_LINE.sub(
        lambda found: " " * len(found.group(0).encode("utf-8", "surrogateescape")), source)
    return unconditional(blanked, cmd)


def unconditional(source: str, cmd: m.SimpleCommand) -> bool:
    """``cmd`` runs whenever the line does: in the line's own shell, not in a pipeline or the
    background, and starting a list that always runs (no ``&&``/``||`` before it, no ``{ }``
    group that could be a branch)."""
    return not cmd.nesting and _sequential(cmd) and _unconditional(source, cmd.offset)


def _unconditional(source: str, offset: int) -> bool:
    """The command at ``offset`` (a byte offset) starts a list that always runs: nothing before
    it on its list (no ``&&``/``||``), and no ``{ }`` group before it that could be a branch."""
    before = source.encode("utf-8", "surrogateescape")[:offset].decode("utf-8", "replace")
    ends = before.rstrip(" \t")
    tail = ends.rstrip(" \t\n")
    return (not tail or (ends.endswith((";", "\n")) and not tail.endswith(_JOINERS))) and \
        _GROUP.search(before) is None


def _put_in_exactly(cmd: m.SimpleCommand, known: dict[str, str],
                    edits: list[tuple[int, int, str, bool]]) -> bool:
    """Every dynamic word and target of ``cmd`` has its value from ``known`` alone, with no
    field a glob could still change, and the command assigns nothing dynamic."""
    if "function" in cmd.nesting or any(a.value.value is None for a in cmd.assignments):
        return False
    dynamic = [w for w in cmd.words if w.value is None]
    dynamic += [r.target for r in cmd.redirects if r.target is not None and
                r.target.value is None and r.heredoc is None]
    if sum(1 for *_, resolved in edits if resolved) != len(dynamic):
        return False
    for word in dynamic:
        if word.expansions & _DISGUISING or any(
                name not in known for name in _REFERENCED.findall(word.text)):
            return False  # ${a:-rm} with a from elsewhere, ${!a}, $1, who$(echo am)i ...
        fields = _fields(word, known)
        if fields is None or any(_GLOB_CHARS.search(f) for f in fields):
            return False
    return True


def _positional(cmd: m.SimpleCommand, env: dict[str, str], source: str) -> None:
    """``set -- rm -rf /``: literal positional parameters, followed when nothing shifts them
    and the assignment is seen by what follows; otherwise they are unknown."""
    for name in [k for k in env if k in ("@", "*", "@[@]") or k.isdigit()]:
        del env[name]
    rest = cmd.words[2:]
    if rest and all(w.value is not None and not w.expansions & {m.GLOB, m.BRACE, m.TILDE}
                    for w in rest) and _sequential(cmd) and \
            "shift" not in source:
        values = [w.value for w in rest if w.value is not None]
        env["@[@]"] = ARRAY_SEP.join(values)  # "$@" and "$*" (expand.py)
        env.update({str(i): v for i, v in enumerate(values, start=1)})
        if len(values) == 1:
            env["@"] = env["*"] = values[0]


def _sequential(cmd: m.SimpleCommand) -> bool:
    """Assignments that later commands of the line see (inside a subshell, a branch or a
    function's body, they may not: taking them as known can only add a check, never drop one;
    the commands after them in the same body do see them)."""
    return not cmd.pipeline and not cmd.background


def _assign(cmd: m.SimpleCommand, env: dict[str, str], clobbered: frozenset[str],
            dirs: dict[str, str] | None = None) -> None:
    for assignment in cmd.assignments:
        name, word = assignment.name, assignment.value
        value: str | None = None
        appends = f"{name}+=" in cmd.text
        base = name.partition("[")[0]
        for key in [k for k in env if k.startswith(base + "[")]:
            del env[key]  # any assignment to a name or an element: its array is not followed
        if name in clobbered or appends:
            pass
        elif dirs and name in dirs:
            value = dirs[name]
        elif m.TILDE in word.expansions:
            value = _home_path(word.text, env, clobbered)
        elif word.text.startswith("(") and name == base:
            elements = _array(word.text, env, clobbered)
            if elements is not None:
                env[f"{name}[@]"] = ARRAY_SEP.join(elements)
                env.update({f"{name}[{i}]": e for i, e in enumerate(elements)})
                value = elements[0] if elements else ""  # $a is ${a[0]}
        elif not word.text.startswith("("):
            value = word.value
            if value is None:
                fields = _assigned(word, env)
                value = fields[0] if fields else None
        if name.endswith("[0]"):  # a[0]=rm sets $a too
            name = name[:-3]
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value


def _array(text: str, env: dict[str, str], clobbered: frozenset[str]) -> list[str] | None:
    """The elements of ``(w1 w2 …)`` when every one is a static word (``~`` and ``~/x``
    expanded as in ``D=~``); else None (expansions, globs, ``[i]=v`` elements, comments)."""
    if not text.endswith(")") or "\n" in text:
        return None
    from clawgate.shell import parse

    parsed = parse(": " + text[1:-1])
    if parsed.has_error or parsed.comments or len(parsed.commands) != 1:
        return None
    cmd = parsed.commands[0]
    if cmd.assignments or cmd.redirects or not cmd.words:
        return None
    elements: list[str] = []
    for word in cmd.words[1:]:
        if m.TILDE in word.expansions and not word.expansions - {m.TILDE}:
            value = _home_path(word.text, env, clobbered)
        elif word.expansions & {m.GLOB, m.BRACE, m.TILDE}:
            return None
        else:
            value = word.value
        if value is None:
            return None
        elements.append(value)
    return elements


def _home_path(text: str, env: dict[str, str], clobbered: frozenset[str]) -> str | None:
    """``D=~`` or ``D=~/x`` (tilde expansion happens in an assignment): the home directory of
    the moment, unless the line sets HOME itself."""
    if _HOME_TILDE.fullmatch(text) is None or "HOME" in env or "HOME" in clobbered:
        return None
    home = os.path.expanduser("~")
    if not home.startswith("/"):
        return None
    return home if text == "~" else home.rstrip("/") + text[1:]


def _assigned(word: m.Word, env: dict[str, str]) -> list[str] | None:
    """An assignment's value (no word splitting), substitutions computed where they can be."""
    if m.COMMAND in word.expansions:
        from clawgate.shell.substitute import computed

        return computed(word.text, env, split=False)
    return expand(word.text, env, split=False)


def _fields(word: m.Word, env: dict[str, str]) -> list[str] | None:
    """The word's fields: its static value, or its expansion under ``env``."""
    if word.expansions & {m.GLOB, m.TILDE, m.BRACE}:
        return None
    if word.value is not None:
        return [word.value]
    if m.COMMAND in word.expansions and word.expansions <= _EXPANDABLE | {m.COMMAND}:
        from clawgate.shell.substitute import computed  # $(echo rm), $(rev <<< mr) ...

        return computed(word.text, env)
    if not word.expansions <= _EXPANDABLE:
        return None
    return expand(word.text, env)


def _word_edits(cmd: m.SimpleCommand, env: dict[str, str], src: bytes,
                limit: int | None = None) -> list[tuple[int, int, str, bool]]:
    """Edits putting in ``cmd``'s words and redirection targets; ``limit``: where in ``src``
    a target may still be found (the text of a command leaves out some of its redirections,
    and a compound command's follow its end), else only within the command's text."""
    dynamic = [w for w in cmd.words if _rewritable(w)]
    targets = [r.target for r in cmd.redirects
               if r.target is not None and _rewritable(r.target) and r.heredoc is None]
    prefix = [a for a in cmd.assignments if a.value.value is None and a.value.text]
    if not dynamic and not targets and not prefix:
        return []
    base = cmd.offset
    text = encode(cmd.text)
    if text is None or src[base : base + len(text)] != text:
        return []
    edits: list[tuple[int, int, str, bool]] = []  # and whether a value was put in
    cursor = 0
    for assignment in cmd.assignments:  # HOOK=$H zzrun: the value the program's environment gets
        head = f"{assignment.name}="
        found = _find(text, head + assignment.value.text, cursor)
        if found < 0:
            continue
        start = found + len(head.encode())
        cursor = start + len(encode(assignment.value.text) or b"")
        if assignment in prefix:
            values = _assigned(assignment.value, env)
            if values is not None and len(values) == 1:
                edits.append((base + start, base + cursor, quote(values[0]), True))
    for word in cmd.words:
        found = _find(text, word.text, cursor)
        if found < 0:
            continue
        cursor = found + len(encode(word.text) or b"")
        if _rewritable(word):
            _edit(edits, word, env, base + found, base + cursor, target=False)
    # A command's text ends with its words: its redirections follow it in the line, each
    # target after its operator (``echo x > "$t"``); one found anywhere else is left alone.
    at = base + cursor
    for redirect in cmd.redirects if targets else ():
        target = redirect.target
        if target is None or redirect.heredoc is not None:
            break
        found = _find(src, target.text, at)
        if (found < 0 or not _BEFORE_TARGET.fullmatch(src[at:found])) and limit is not None:
            found = _find(src[:limit], target.text, at)  # a compound command's, after its end
        elif found >= 0 and not _BEFORE_TARGET.fullmatch(src[at:found]):
            found = -1
        if found < 0:
            break
        at = found + len(encode(target.text) or b"")
        if _rewritable(target):
            _edit(edits, target, env, found, at, target=True)
    return edits


_BEFORE_TARGET = re.compile(rb"[ \t\d<>&|]*")


def _edit(edits: list[tuple[int, int, str, bool]], word: m.Word, env: dict[str, str],
          start: int, end: int, *, target: bool) -> None:
    fields = _fields(word, env)
    if fields is None or (target and len(fields) != 1):
        return
    edits.append((start, end, " ".join(quote(f) for f in fields), word.value is None))


def _rewritable(word: m.Word) -> bool:
    """A word to write out: dynamic, or static but spelled to hide its value from a reader
    matching text (``\\o\\f=/d\\ev/sda``, ``$'\\x2fdev'``, ``r''m``)."""
    value = word.value
    if value is None:
        return True
    return word.quoted and not word.expansions & {m.GLOB, m.BRACE, m.TILDE} and \
        word.text not in (shlex.quote(value), f"'{value}'", f'"{value}"')


def _argv(cmd: m.SimpleCommand, env: dict[str, str]) -> list[str] | None:
    out: list[str] = []
    for word in cmd.words:
        fields = _fields(word, env)
        if fields is None:
            return None
        out.extend(fields)
    return out


def _find(haystack: bytes, needle: str, start: int) -> int:
    encoded = encode(needle)
    return -1 if encoded is None else haystack.find(encoded, start)


def _apply(src: bytes, edits: list[Edit]) -> str | None:
    out: list[bytes] = []
    position = 0
    for start, end, replacement in sorted(edits):
        encoded = encode(replacement)
        if start < position or encoded is None:
            continue
        out += [src[position:start], encoded]
        position = end
    if not out:
        return None
    out.append(src[position:])
    return b"".join(out).decode("utf-8", "surrogateescape")
