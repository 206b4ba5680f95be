"""How recursive readers read their words: which options take a value, which make the
program descend into directories, which operands it reads (not the pattern, not the archive
or the destination it writes), and which options show only names or counts."""

from __future__ import annotations

from clawgate.records import record
from clawgate.shell.model import SimpleCommand, Word


@record(frozen=True, slots=True)
class Spec:
    """``recursive``: options that make it descend (short letters and long names); None when
    it always does. ``pattern``: the first operand is a pattern unless one of ``given``
    supplies it. ``written``: which operand it writes (``last``: a copy's destination,
    ``first``: an archive's name, ``verb``: ``7z a ARCHIVE``), or ``""``. ``quiet``: options
    that show names or counts only; ``lists``: options that read no file at all. ``hides``:
    it passes over hidden entries unless ``shown`` is given (or ``-uu``)."""

    valued: str = ""
    valued_long: frozenset[str] = frozenset()
    recursive: tuple[str, frozenset[str]] | None = None
    pattern: bool = False
    given: frozenset[str] = frozenset()
    written: str = ""
    target: frozenset[str] = frozenset()  # options naming the destination (cp -t DIR)
    quiet: tuple[str, frozenset[str]] = ("", frozenset())
    lists: frozenset[str] = frozenset()
    hides: bool = False
    shown: frozenset[str] = frozenset()
    searches: bool = False  # with no directory operand it reads the working directory
    copies: bool = False


@record(frozen=True, slots=True)
class Reading:
    sources: tuple[Word, ...]
    names_only: bool
    hidden: bool
    copies: bool


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_GREP = Spec(
    valued="efmABCdD",
    valued_long=_set("--regexp --file --max-count --after-context --before-context --context "
                     "--directories --devices --include --exclude --exclude-dir "
                     "--exclude-from --label --binary-files"),
    recursive=("rR", _set("--recursive --dereference-recursive --directories=recurse -d=recurse")),
    pattern=True, given=_set("-e -f --regexp --file"),
    quiet=("lLcq", _set("--files-with-matches --files-without-match --count --quiet --silent")),
    searches=True)
_RG = Spec(
    valued="eEfgjmAMBCtTr",
    valued_long=_set("--regexp --file --glob --iglob --type --type-not --max-count "
                     "--after-context --before-context --context --replace --encoding "
                     "--max-depth --max-filesize --threads --sort --sortr --pre --pre-glob "
                     "--type-add --type-clear --ignore-file --path-separator --colors "
                     "--color --max-columns --engine --context-separator --hostname-bin"),
    pattern=True, given=_set("-e -f --regexp --file"),
    quiet=("lcq", _set("--files-with-matches --files-without-match --count --count-matches "
                       "--quiet")),
    lists=_set("--files --type-list"), hides=True, shown=_set("--hidden -."), searches=True)
_AG = Spec(
    valued="ABCGmp",
    valued_long=_set("--after --before --context --file-search-regex --ignore --max-count "
                     "--path-to-ignore --depth --pager"),
    pattern=True, quiet=("lLc", _set("--files-with-matches --files-without-matches --count")),
    lists=_set("-g"), hides=True, shown=_set("--hidden -u --unrestricted"), searches=True)
_ACK = Spec(
    valued="ABCm", valued_long=_set("--type --ignore-dir --ignore-file --max-count --output"),
    pattern=True, given=_set("--match"), quiet=("lLc", _set("--files-with-matches --count")),
    lists=_set("-f -g"), searches=True)
_CP = Spec(valued="St", valued_long=_set("--target-directory --suffix"),
           recursive=("rRa", _set("--recursive --archive")), written="last",
           target=_set("-t --target-directory"), copies=True)
_RSYNC = Spec(valued="efTB",
              valued_long=_set("--rsh --filter --exclude --include --exclude-from "
                               "--include-from --temp-dir --partial-dir --compare-dest "
                               "--copy-dest --link-dest --files-from --backup-dir --suffix "
                               "--chmod --password-file --log-file --out-format --rsync-path "
                               "--max-size --min-size --timeout --port --bwlimit"),
              recursive=("ra", _set("--recursive --archive")), written="last", copies=True)
_ZIP = Spec(valued="bnPtOx", valued_long=_set("--temp-path --suffixes --password --out"),
            recursive=("rR", _set("--recurse-paths --recurse-patterns")), written="first",
            copies=True)
_TAR = Spec(valued="fCTXbgIKLNV",
            valued_long=_set("--file --directory --files-from --exclude-from --exclude "
                             "--use-compress-program --listed-incremental --blocking-factor"),
            recursive=("c", _set("--create")), copies=True)
_7Z = Spec(written="verb", copies=True)
_DIFF = Spec(valued="xXIFLSCU",
             valued_long=_set("--exclude --exclude-from --ignore-matching-lines --label "
                              "--starting-file --show-function-line --to-file --from-file"),
             recursive=("r", _set("--recursive")))

SPECS: dict[str, Spec] = {
    **dict.fromkeys(("grep", "egrep", "fgrep", "zgrep", "ugrep", "ggrep", "bsdgrep"), _GREP),
    "rg": _RG, "ag": _AG, "pt": _AG, **dict.fromkeys(("ack", "ack-grep"), _ACK),
    "cp": _CP, "gcp": _CP, "rsync": _RSYNC, "zip": _ZIP, "tar": _TAR, "gtar": _TAR,
    "bsdtar": _TAR, **dict.fromkeys(("7z", "7za", "7zz", "7zr"), _7Z), "diff": _DIFF,
}


def read_words(cmd: SimpleCommand, spec: Spec) -> Reading | None:
    """The directories and files ``cmd`` reads when it reads recursively, or None when it
    does not descend (no recursive option) or reads no file (a listing of names)."""
    words = list(cmd.words[1:])
    if cmd.program in ("tar", "gtar", "bsdtar") and words and words[0].shown[:1].isalpha():
        bundled = words[0].shown  # tar czf out.tgz src: the first word is its options
        words[0] = Word("-" + bundled, "-" + bundled)
    flags: list[str] = []  # every option as written, short ones one letter each ("-r")
    operands: list[Word] = []
    i = 0
    while i < len(words):
        text = words[i].shown
        if text == "--":
            operands += words[i + 1:]
            break
        if text.startswith("--"):
            flags.append(text)
            if text in spec.valued_long:
                i += 1
                if i < len(words):
                    flags[-1] = f"{text}={words[i].shown}"
        elif text.startswith("-") and len(text) > 1:
            i += _short(text, words[i + 1].shown if i + 1 < len(words) else None, spec, flags)
        else:
            operands.append(words[i])
        i += 1
    return _reading(cmd, spec, flags, operands)


def _short(text: str, following: str | None, spec: Spec, flags: list[str]) -> int:
    """Record a cluster of short options (``-rnA3``); 1 when it took the next word as value."""
    for at, letter in enumerate(text[1:], start=1):
        flags.append(f"-{letter}")
        if letter in spec.valued:
            rest = text[at + 1:]
            if rest:
                flags[-1] = f"-{letter}={rest}"
                return 0
            flags[-1] = f"-{letter}={following or ''}"
            return 1
    return 0


def _named(flags: list[str], short: str, long: frozenset[str]) -> bool:
    return any((len(f) >= 2 and f[1] in short and f[0] == "-" and f[1] != "-") or f in long or
               f.split("=", 1)[0] in long for f in flags)


def _given(flags: list[str], names: frozenset[str]) -> bool:
    return any(f.split("=", 1)[0] in names for f in flags)


def _reading(cmd: SimpleCommand, spec: Spec, flags: list[str],
             operands: list[Word]) -> Reading | None:
    if spec.recursive is not None and not _named(flags, *spec.recursive):
        return None
    if _given(flags, spec.lists):
        return None
    if cmd.program in ("7z", "7za", "7zz", "7zr"):
        if not operands or operands[0].shown != "a":
            return None
        operands = operands[2:]  # 7z a ARCHIVE SOURCES...
    elif (spec.pattern and not _given(flags, spec.given)) or spec.written == "first":
        operands = operands[1:]  # the pattern, or the archive written
    elif spec.written == "last" and not _given(flags, spec.target):
        operands = operands[:-1]  # the destination
    hidden = _given(flags, spec.shown) or (
        sum(f == "-u" for f in flags) >= 2)
    return Reading(tuple(operands), _named(flags, *spec.quiet), hidden, spec.copies)
