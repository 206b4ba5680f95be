"""A preload of an installed library that the rest of the line can make another file.

``LD_PRELOAD=/usr/lib/…/libasan.so.8 ./a.out`` or ``LD_PRELOAD=$(gcc
-print-file-name=libasan.so) ./test`` names a library the system or a compiler installed:
CG-ENV-001 asks instead of denying. That holds only while nothing on the line chooses what the
name means when it is loaded:

- a path under a system library directory named elsewhere on the line (``sudo ln -s
  /tmp/x.so /usr/lib/libx.so``, ``bwrap --bind /tmp/e /usr/lib …``, ``docker run -v
  /tmp/e:/usr/lib``): the line writes, links or mounts what the path holds;
- a program that runs what follows as root (``sudo``: it may write the directory, by any
  spelling of its path), or gives it another root or other mounts (``chroot DIR``,
  ``proot``, ``unshare -m``, ``mount --bind``, a container): the path is then looked up there;
- for a compiler's answer: a variable that moves where the compiler looks (``LIBRARY_PATH``,
  ``GCC_EXEC_PREFIX``, ``COMPILER_PATH``, ``CCC_OVERRIDE_OPTIONS``), or where the loader looks
  for the bare name a compiler prints when it finds nothing (``LD_LIBRARY_PATH``), or what
  ``gcc`` is (``PATH``, a function, an alias, a hash entry).

Each makes the loaded file one the line chose, as ``LD_PRELOAD=/tmp/x.so`` does: DENY.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, register

_PRELOAD = lazy_pattern(
    r"\b(?:LD_PRELOAD|LD_AUDIT|DYLD_INSERT_LIBRARIES)=(\"[^\"]*\"|'[^']*'|\$\([^)]*\)\S*|\S+)")
# A system library directory, wherever a word names it (a link, a copy, a mount's target).
_LIBRARY_DIRECTORY = lazy_pattern(r"/lib(?:32|64|x32)?(?![\w.+-])")
# Programs that run what follows as root (which may write a system library directory, by
# any spelling of its path: ``cd /usr && sudo ln -s /tmp/x.so lib/x.so``), or under another
# root or other mounts (a container's image, a chroot, a mount namespace).
_OTHER_ROOT = lazy_pattern(r"(?<![\w.-])(?:sudo|doas|su|pkexec|run0|chroot|fakechroot|proot|"
                           r"bwrap|unshare|nsenter|systemd-nspawn|firejail|schroot|arch-chroot|"
                           r"mount|docker|podman|nerdctl|lxc-\w+)(?![\w.-])")
# What moves where a compiler or the loader looks for a name, or what the compiler is.
_MOVES_SEARCH = lazy_pattern(
    r"\b(?:LIBRARY_PATH|GCC_EXEC_PREFIX|COMPILER_PATH|CCC_OVERRIDE_OPTIONS|GCC_ROOT|"
    r"LD_LIBRARY_PATH|PATH|alias|hash|enable|source|eval)\b|(?<![\w.-])\.\s|\(\s*\)|"
    r"\bfunction\s")


@register
class ChosenPreload(LineValidator):
    """A preload of an installed library (CG-ENV-001 asks) on a line that links, copies or
    mounts onto a system library directory, runs a command as root or under another root, or
    moves where the compiler or loader finds the name: the loaded file is the line's choice.

    Bad: ``sudo ln -sf /tmp/x.so /usr/lib/libx.so; LD_PRELOAD=/usr/lib/libx.so ls``.
    Harmless: ``LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libasan.so.8 ./a.out`` (asked).
    """

    id = "CG-ENV-014"

    def line_shapes(self) -> int:
        return ls.EQUALS  # its first test needs an assignment: NAME=VALUE

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        source = parsed.source
        if "LD_" not in source and "DYLD_" not in source:
            return NO_OPINION
        values = [found.group(1) for found in _PRELOAD.finditer(source)]
        if not values:
            return NO_OPINION
        rest = _PRELOAD.sub(" ", source)
        why = None
        if _LIBRARY_DIRECTORY.search(rest):
            why = "the line also names a system library directory (a link, copy or mount there)"
        elif _OTHER_ROOT.search(rest):
            why = "the line runs a command as root, or under another root or other mounts"
        elif any("$(" in v for v in values) and _MOVES_SEARCH.search(rest):
            why = "the line moves where the compiler or the loader finds the library"
        if why is None:
            return NO_OPINION
        return Verdict.deny(self.id, f"a preloaded library the line may choose: {why}",
                            hint="do not set LD_PRELOAD")
