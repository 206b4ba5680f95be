"""Writes that fill the disk: an endless stream into a file, or a size no task needs
(CG-DEST-015).

A full disk stops every program of the machine that writes: the user's editor, databases,
the agent itself. ``yes > f``, ``cat /dev/zero > f``, ``seq inf > f`` and ``dd if=/dev/zero
of=f`` without a count write until the disk is full: DENY wherever the file is. A sized write
(``fallocate -l``, ``dd bs= count=``, ``head -c``, ``fio --size``) of a terabyte or more, or of
100 GiB or more outside the workspace, is DENY; of 10 GiB or more, ASK. The chaos tools' disk
fills (``blade create disk fill``, ``chaosd attack disk fill``) exist to do just that: DENY;
load generators that write to disk or hold memory with no end (``stress-ng --hdd`` without a
timeout, ``stress --vm``): ASK. A stream bounded by ``head`` later in the pipeline, a sparse
image (``truncate -s``, ``qemu-img create``) and small sizes are no fill.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import TILDE, ParsedLine, SimpleCommand, Word
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.paths import resolve, under

ID = "CG-DEST-015"
_GIB = 1 << 30
_ASK_SIZE = 10 * _GIB
_DENY_OUTSIDE = 100 * _GIB
_DENY_SIZE = 1 << 40
_ENDLESS_DEVICES = frozenset({"/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"})
_SIZE = lazy_pattern(r"^(\d+(?:\.\d+)?)\s*([kKmMgGtTpPeE]?)(?:i?[bB])?$")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50,
          "e": 1 << 60}
# Programs that bound a stream they are fed (a fill needs an unbounded one)
_BOUNDERS = frozenset({"head", "dd", "timeout", "pv"})
_FILLERS = frozenset({"yes", "cat", "seq", "dd", "head", "fallocate", "fio", "blade", "chaosd",
                      "stress", "stress-ng", "base64", "od", "xxd", "tr"})


def size_of(text: str) -> int | None:
    """Bytes a size as the tools write it means (``500G``, ``1T``, ``64M``, ``4GiB``)."""
    found = _SIZE.match(text.strip())
    if found is None:
        return None
    return int(float(found.group(1)) * _UNITS[found.group(2).lower()])


def _written(cmd: SimpleCommand) -> list[Word]:
    return [r.target for r in cmd.redirects
            if r.writes and r.target is not None and r.target.value not in ("/dev/null",)]


def _endless(cmd: SimpleCommand) -> bool:
    """A command whose output never ends: ``yes``, ``seq inf``, a device read whole."""
    args = [w.shown for w in cmd.words[1:]]
    if cmd.program == "yes":
        return True
    if cmd.program == "seq":
        return any(a.lower() in ("inf", "infinity") for a in args)
    if cmd.program in ("cat", "base64", "od", "xxd", "tr"):
        return any(a in _ENDLESS_DEVICES for a in args) or any(
            r.op == "<" and r.target is not None and r.target.value in _ENDLESS_DEVICES
            for r in cmd.redirects)
    return False


def _dd(cmd: SimpleCommand) -> tuple[int | None, Word | None, bool]:
    """(bytes written or None when unbounded, the output word, reads an endless device)."""
    values = {w.shown.split("=", 1)[0]: (w.shown.split("=", 1)[1], w)
              for w in cmd.words[1:] if "=" in w.shown}
    source = values.get("if", ("", None))[0]
    endless = source in _ENDLESS_DEVICES
    target = values.get("of", (None, None))[1]
    out = None
    if target is not None:
        value = None if target.value is None else target.value[3:]
        tilde = frozenset({TILDE}) if (value or "").startswith("~") else frozenset()
        out = Word(target.shown[3:], value, expansions=target.expansions | tilde)
    if "count" not in values:
        return None, out, endless
    block = size_of(values.get("bs", ("512", None))[0]) or 512
    count = size_of(values["count"][0])
    return (None if count is None else block * count), out, endless


def _judge(size: int, where: Word | None, ctx: Context, program: str) -> Verdict:
    path = None if where is None else resolve(where, ctx).path
    outside = path is not None and not under(path, ctx.workspace)
    gib = size / _GIB
    if size >= _DENY_SIZE or (outside and size >= _DENY_OUTSIDE):
        return Verdict.deny(ID, f"{program} writes {gib:.0f} GiB"
                            f"{' outside the workspace' if outside else ''}: the disk fills "
                            "and every program that writes stops",
                            hint="write the size the task needs")
    if size >= _ASK_SIZE:
        return Verdict.ask(ID, f"{program} writes {gib:.0f} GiB: a disk may fill",
                           hint="write the size the task needs")
    return NO_OPINION


def _option(cmd: SimpleCommand, names: tuple[str, ...]) -> str | None:
    words = [w.shown for w in cmd.words[1:]]
    for index, word in enumerate(words):
        for name in names:
            if word == name and index + 1 < len(words):
                return words[index + 1]
            if name.startswith("--") and word.startswith(name + "="):
                return word.split("=", 1)[1]
            if not name.startswith("--") and word.startswith(name) and len(word) > len(name):
                return word[len(name):]
    return None


@register
class DiskFill(Validator):
    """Writes that fill the disk: an endless stream into a file (``yes > f``, ``cat /dev/zero
    > f``, ``seq inf > f``, ``dd if=/dev/zero of=f`` without a count: DENY), a terabyte, or
    100 GiB outside the workspace (``fallocate -l 500G ~/f``: DENY; 10 GiB or more: ASK), the
    chaos tools' disk fills (DENY) and endless disk or memory loads (``stress-ng --hdd 8
    --timeout 0``: ASK).

    Bad: ``dd if=/dev/zero of=/tmp/fill bs=1M``, ``fallocate -l 500G ~/fill.img``. Harmless:
    ``dd if=/dev/zero of=disk.img bs=1M count=64``, ``yes | head -n 3``, ``truncate -s 10M x``.
    """

    id = ID
    programs = _FILLERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program or ""
        bounded = any(p in _BOUNDERS for p in cmd.downstream)
        if _endless(cmd) and not bounded and (_written(cmd) or "tee" in cmd.downstream):
            return Verdict.deny(ID, f"{program} writes without end into a file: the disk "
                                "fills and every program that writes stops",
                                hint="bound the stream (head -c SIZE)")
        if program == "dd":
            size, out, endless = _dd(cmd)
            if size is None and endless and (out is not None or _written(cmd)):
                return Verdict.deny(ID, "dd copies an endless device with no count: it writes "
                                    "until the disk is full", hint="give count=")
            if size is not None:
                return _judge(size, out or next(iter(_written(cmd)), None), ctx, program)
        if program == "head":
            wanted = _option(cmd, ("-c", "--bytes"))
            size = None if wanted is None else size_of(wanted)
            if size is not None and _written(cmd):
                return _judge(size, _written(cmd)[0], ctx, program)
        if program == "fallocate":
            length = size_of(_option(cmd, ("-l", "--length")) or "")
            files = [w for w in cmd.words[1:] if not w.shown.startswith("-")]
            if length is not None and files:
                return _judge(length, files[-1], ctx, program)
        if program == "fio":
            size = size_of(_option(cmd, ("--size",)) or "")
            name = _option(cmd, ("--filename",))
            if size is not None:
                return _judge(size, None if name is None else Word(name, name), ctx, program)
        return _loads(cmd)


def _loads(cmd: SimpleCommand) -> Verdict:
    program = cmd.program or ""
    words = [w.shown for w in cmd.words[1:]]
    if program in ("blade", "chaosd") and "disk" in words and "fill" in words:
        return Verdict.deny(ID, f"{program}'s disk fill fills the disk on purpose",
                            hint="run chaos experiments on a machine set aside for them")
    if program in ("stress", "stress-ng"):
        timeout = _option(cmd, ("--timeout", "-t"))
        loads = any(w in ("--hdd", "-d", "--vm", "-m", "--vm-bytes", "--hdd-bytes")
                    or w.startswith(("--hdd", "--vm")) for w in words)
        if loads and (timeout is None or timeout.strip() in ("0", "0s")):
            return Verdict.ask(ID, f"{program} writes to disk or holds memory with no end",
                               hint="give --timeout")
    return NO_OPINION


# A loop with no end of its own: ``while :``, ``while true``, ``until false``
_ENDLESS_LOOP = lazy_pattern(r"(?:^|[;&|({]\s*)(?:while\s+(?::|true|\[\s*1\s*\])|until\s+false)"
                             r"\s*;\s*do\b")
# What ends or paces a loop: without one, its body runs as fast as it can, for ever
_PACERS = frozenset({"break", "exit", "return", "sleep", "wait", "read", "timeout", "inotifywait",
                     "watch", "select"})
# Programs that make a new file or directory each time they run
_MAKERS = frozenset({"mkdir", "touch", "cp", "dd", "fallocate", "mktemp", "ln", "tee",
                     "git", "tar", "zip"})


@register
class EndlessMaker(LineValidator):
    """A loop that never ends and never pauses (``while :``, ``while true``, ``until false``
    with no ``break``, ``exit``, ``sleep`` or ``read`` in it) whose body makes files or
    directories (``mkdir``, ``touch``, ``cp``, ``dd``, ``ln``): it fills the disk or exhausts its
    inodes as fast as the machine can. DENY.

    Bad: ``while :; do mkdir -p d/$RANDOM$RANDOM; done``. Harmless: ``while true; do curl -s
    localhost:8080 && break; sleep 1; done``, ``for i in 1 2 3; do mkdir d$i; done``.
    """

    id = "CG-DEST-016"

    def line_shapes(self) -> int:
        return 0  # its first test: an endless loop written on the line

    def line_programs(self) -> frozenset[str]:
        return _MAKERS

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if not _ENDLESS_LOOP.search(parsed.source):
            return NO_OPINION
        inside = [c for c in parsed.commands if "loop" in c.nesting]
        if any(c.program in _PACERS or c.program is None for c in inside):
            return NO_OPINION
        if any(c.program in _MAKERS for c in inside):
            return Verdict.deny(self.id, "a loop with no end and no pause makes files: the disk "
                                "or its inodes fill as fast as the machine can",
                                hint="bound the loop (for i in $(seq N)) or pause it")
        return NO_OPINION
