"""Which programs really run in the shadow, and how each stub name behaves.

Every program the shadowed line starts is a recorder stub. After recording, a stub for one of
the pure text tools below runs the real program (so that decoders decode and pipelines carry
their text on), a stub for a shell runs the real shell over the same words (so that ``sh -c``
text and scripts piped into a shell are shadowed too, to a bounded depth), and every other
stub exits 0 having printed nothing.

The tools read and write only standard streams and files inside the sandbox (a scratch
copy of the workspace's names, an empty home, the read-only system): what they may read or
write is nothing of the caller's. ``sed`` runs with ``--sandbox`` (its ``e``, ``r`` and ``w``
commands refused) and never in place; ``awk`` runs only when its program text names none of
``system``, ``getline``, output redirections or pipes, and never from a program file.
"""

from __future__ import annotations

import os
import shutil

# stdin-to-stdout text tools (decoders, translators, cutters, sorters, printers), and the few
# programs whose output lines compute names from (mktemp, basename, date …): stubs that print
# nothing would make ``rm -rf "$(mktemp -d)"/*`` read as ``rm -rf /*``.
TEXT_TOOLS = frozenset("""
base64 base32 basenc xxd od hexdump tr rev printf echo cut head tail sort uniq tac fold paste
cat sed awk gawk mawk nawk expr seq wc nl column iconv zcat gunzip gzip bzcat bunzip2 bzip2 xzcat
unxz xz true false
grep mktemp basename dirname realpath date uname nproc md5sum sha1sum sha256sum
""".split())
# The shells a stub hands its words to: the program that reads them, and for ``sh -c`` text
# the second reader that reads it too (``sh`` is dash on some systems and bash in posix mode on
# others; either may be the one that runs it). dash records nothing of its own (no start-up
# file, no DEBUG trap): bash in POSIX mode reads ``dash -c`` text too, so that its builtins'
# redirections and programs found nowhere are recorded.
SHELL_READERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "sh": (("dash",), ("bash", "--posix")),
    "dash": (("dash",), ("bash", "--posix")),
    "ash": (("dash",), ("bash", "--posix")),
    "bash": (("bash",),),
    "rbash": (("bash",),),
    "ksh": (("bash", "--posix"),),
    "mksh": (("bash", "--posix"),),
    "zsh": (("bash",),),
}
# Real programs the recorder itself needs (by private path, never on the line's PATH).
RECORDER_NEEDS = ("bash", "dash", "find")
STUB_DIRS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
SEARCH_PATH = ":".join(STUB_DIRS)


def real_programs() -> dict[str, str]:
    """The host paths of the real programs bound into the sandbox (text tools and the
    recorder's own needs), for those found here."""
    found: dict[str, str] = {}
    for name in sorted(TEXT_TOOLS | set(RECORDER_NEEDS)):
        path = shutil.which(name, path="/usr/bin:/bin")
        if path is not None:
            found[name] = os.path.realpath(path)
    return found


def stub_names() -> set[str]:
    """Every program name in the system's program directories here (each becomes a stub),
    and the names a line may reach for that are not installed (shells, text tools)."""
    names: set[str] = set(SHELL_READERS) | TEXT_TOOLS
    for directory in STUB_DIRS:
        try:
            entries = os.listdir(directory)
        except OSError:
            continue
        names.update(n for n in entries if "/" not in n and n not in (".", ".."))
    return names
