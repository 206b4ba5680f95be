"""Which extractors put entries into the working directory: an archive unpacked where the
shell stands when the line names no other destination (``cd ~ && tar xf x.tar``)."""

from __future__ import annotations

from clawgate.shell.model import SimpleCommand

_TARS = frozenset({"tar", "bsdtar", "gtar"})
_UNZIP_NOT_EXTRACTING = frozenset({"-d", "-l", "-t", "-v", "-Z", "-p", "-z", "-c"})


def extracts_here(cmd: SimpleCommand) -> bool:
    """``cmd`` extracts an archive into the working directory: ``tar x`` without ``-C``,
    ``unzip`` without ``-d`` (not a listing, a test or a print to standard output)."""
    words = [w.shown for w in cmd.words[1:]]
    if cmd.program in _TARS and words:
        extracting = "x" in words[0].lstrip("-") if not words[0].startswith("--") else False
        extracting = extracting or any(
            w in ("--extract", "--get") or (w.startswith("-") and not w.startswith("--")
                                            and "x" in w[1:]) for w in words)
        return extracting and not any(
            w in ("-C", "--directory") or w.startswith(("--directory=", "-C"))
            or (w.startswith("-") and not w.startswith("--") and "C" in w[1:]) for w in words)
    if cmd.program == "unzip":
        return not any(w in _UNZIP_NOT_EXTRACTING or w.startswith("-d") for w in words)
    return _extracts_in_cwd(cmd.program, words)


_SEVEN_ZIPS = frozenset({"7z", "7za", "7zr", "7zz"})
# What extracts into the working directory when no option names another (``extracts_here``)
EXTRACTORS = _TARS | _SEVEN_ZIPS | {"unzip", "unar", "cpio", "bsdcpio", "ar", "pax"}


def _extracts_in_cwd(program: str | None, words: list[str]) -> bool:
    """The other extractors, with no option naming where the entries go: ``7z x``/``e``
    without ``-oDIR``, ``unar`` without ``-o``, ``cpio -i`` without ``-D``, ``ar x``, ``pax
    -r`` (not ``-rw``, which names its destination)."""
    if program in _SEVEN_ZIPS:
        return bool(words) and words[0] in ("x", "e") and not any(
            w.startswith("-o") for w in words)
    if program == "unar":
        return not any(w in ("-o", "-output-directory") for w in words)
    if program in ("cpio", "bsdcpio"):
        return any(w == "--extract" or (w[:1] == "-" and w[1:2] != "-" and "i" in w[1:])
                   for w in words) and not any(
            w.startswith(("-D", "--directory")) for w in words)
    if program == "ar":
        return bool(words) and "x" in words[0].lstrip("-")
    if program == "pax":
        return any(w[:1] == "-" and "r" in w[1:] for w in words) and not any(
            w[:1] == "-" and "w" in w[1:] for w in words)
    return False
