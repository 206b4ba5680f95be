"""Generate ``src/clawgate/programs/data/options.tsv``: what the program catalog learns from
fish shell's completion definitions (which options take a value, a file or a command) and
tldr-pages (two examples per program), for programs the hand-written catalog does not know.

    python scripts/catalog_data.py --fish GIT_DIR --tldr GIT_DIR [--check]

Each ``GIT_DIR`` is a git directory (a bare clone or a ``.git``) of
https://github.com/fish-shell/fish-shell and https://github.com/tldr-pages/tldr; the files
are read at ``HEAD`` with ``git show``, and the commits are recorded in the output's first
line. ``--check`` compares instead of writing (exit 1 on a difference).

What a ``complete`` statement says (fish's ``complete`` builtin):
``-s X`` / ``-l NAME`` / ``-o NAME`` are an option's spellings (short, long, old-style);
``-r`` (or ``-x``, which is ``-r -f``) says it takes a value; ``-F`` (or ``-r`` without
``-f``) that the value may be a file; ``-a '(__fish_complete_command)'`` that it is a
command; a statement with no spelling whose arguments are ``(__fish_complete_subcommand)``
says the program's operands are a command line (``entr make``). The kinds are the catalog's:

    value   takes a value that is not a file (``-x``: no files offered)
    read    takes a file it reads
    write   takes a file it writes (its description speaks of output, saving, logging)
    run     takes a command it runs

A spelling declared both as a switch and as taking a value (different subcommands) keeps
the stricter reading for what it does: a file or a command stays one, a plain value becomes a
switch (the word after it is then judged as an operand).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

import catalog_man  # noqa: E402

MAN = Path("/usr/share/man")
# programs whose subcommands have pages of their own (git-commit.1, docker-run.1,
# gcloud_compute_...): those pages describe the subcommand, not a program
_PARENTS = frozenset({"git", "docker", "gcloud", "podman", "dpkg", "systemd", "perf", "lvm",
                      "npm", "cargo", "apt", "debconf", "ip"})
OUT = ROOT / "src" / "clawgate" / "programs" / "data" / "options.tsv"
FISH = {"project": "fish-shell", "repository": "https://github.com/fish-shell/fish-shell",
        "path": "share/completions", "licence": "GPL-2.0-only (option facts: names and "
        "arity; see data/NOTICE-program-data.txt)"}
MANUALS = {"project": "Debian manual pages", "repository": "https://manpages.debian.org",
           "path": "/usr/share/man/man1, /usr/share/man/man8 (each entry names its package "
           "and version)", "licence": "each page under its package's licence "
           "(/usr/share/doc/<package>/copyright); option names and arity only"}
TLDR = {"project": "tldr-pages", "repository": "https://github.com/tldr-pages/tldr",
        "path": "pages/common, pages/linux", "licence": "CC-BY-4.0"}
EXAMPLES = 2
# complete's own options that take an argument (the rest are switches)
_TAKES = {"c": "command", "p": "path", "s": "short", "l": "long", "o": "old", "a": "arguments",
          "d": "description", "n": "condition", "w": "wraps"}
_LONG = {"--command": "command", "--path": "path", "--short-option": "short",
         "--long-option": "long", "--old-option": "old", "--arguments": "arguments",
         "--description": "description", "--condition": "condition", "--wraps": "wraps"}
_SWITCHES = {"--require-parameter": "r", "--exclusive": "x", "--no-files": "f",
             "--force-files": "F", "--erase": "e", "--keep-order": "k"}
_COMMAND = re.compile(r"__fish_complete_(?:sub)?command\b")
_FILES = re.compile(r"__fish_complete_(?:path|suffix|files)\b|__fish_complete_\w*file")
_WRITES = re.compile(r"\b(?:output|write|writes|save|saves|dump|log ?file|log to|logs? "
                     r"(?:output )?(?:to|into)|destination|export to|record to)\b", re.I)
_RUNS = re.compile(
    r"^(?:(?:set|specify|use|select|choose) )?(?:the |a |an )?(?:\w+ )?(?:command|program|"
    r"executable|pager|editor|hook|shell)s? (?:to (?:run|use|execute|invoke|start|launch|call)|"
    r"used|that (?:is|will be) (?:run|executed))\b"
    r"|^(?:run|execute|exec|invoke|launch|start) (?:the |a |an )?(?:given |specified |custom |"
    r"arbitrary )?(?:shell )?(?:command|program|executable|script)(?: line)?s?\b(?! on)"
    r"|^(?:shell )?command(?: line)?(?: to| that|$)", re.I)
_NAME = re.compile(r"^[A-Za-z0-9][\w.+-]*$")
_VALUE_NAME = re.compile(r"<([A-Za-z][\w -]{0,30})>")
_SPELLING = re.compile(r"^-{1,2}[\w][\w.+-]*$")
_ORDER = ("flag", "value", "read", "write", "run")


def statements(text: str) -> Iterator[list[str]]:
    """The words of each statement of a fish script (quotes removed, ``(…)`` kept as text),
    the statements being split at newlines and ``;`` outside quotes and parentheses."""
    words: list[str] = []
    word: list[str] = []
    started = False
    i, depth, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        if depth == 0 and ch in " \t\n;":
            if started:
                words.append("".join(word))
                word, started = [], False
            if ch in "\n;" and words:
                yield words
                words = []
            i += 1
        elif ch == "#" and not started and depth == 0:
            while i < n and text[i] != "\n":
                i += 1
        elif ch == "\\" and i + 1 < n:
            if text[i + 1] != "\n":
                word.append(text[i + 1])
                started = True
            i += 2
        elif ch in "'\"":
            end = i + 1
            while end < n and text[end] != ch:
                end += 2 if text[end] == "\\" else 1
            body = text[i + 1:end]
            word.append(re.sub(r"\\(.)", r"\1", body) if ch == "'" else body)
            started, i = True, end + 1
        else:
            if ch == "(":
                depth += 1
            elif ch == ")" and depth:
                depth -= 1
            word.append(ch)
            started, i = True, i + 1
    if started:
        words.append("".join(word))
    if words:
        yield words


def parse_complete(args: list[str]) -> dict[str, list[str]] | None:
    """The options of one ``complete`` statement by name (``short``: ["o"], ``r``: [""]);
    None when it cannot be read."""
    found: dict[str, list[str]] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if name in _SWITCHES:
                found.setdefault(_SWITCHES[name], []).append("")
            elif name in _LONG:
                if not eq:
                    if i >= len(args):
                        return None
                    value, i = args[i], i + 1
                found.setdefault(_LONG[name], []).append(value)
            continue
        if not arg.startswith("-") or arg == "-":
            found.setdefault("command", []).append(arg)  # `complete gdbserver ...`
            continue
        pos = 1
        while pos < len(arg):
            letter = arg[pos]
            if letter in _TAKES:
                value = arg[pos + 1:]
                if not value:
                    if i >= len(args):
                        return None
                    value, i = args[i], i + 1
                found.setdefault(_TAKES[letter], []).append(value)
                break
            found.setdefault(letter, []).append("")
            pos += 1
    return found


def _kind(spec: dict[str, list[str]]) -> str:
    arguments = " ".join(spec.get("arguments", []))
    description = " ".join(spec.get("description", []))
    placeholder = _VALUE_NAME.search(description)  # 'Write output to <file>'
    takes = "r" in spec or "x" in spec or placeholder is not None
    if _COMMAND.search(arguments) or (takes and _RUNS.search(description)) or (
            placeholder and placeholder.group(1).lower() in ("command", "cmd", "program")):
        return "run"
    if placeholder is not None and "r" not in spec and "x" not in spec:
        name = placeholder.group(1).lower()
        if not re.search(r"file|path", name) or "dir" in name:
            return "value"
        return "write" if _WRITES.search(description) else "read"
    if not takes and "F" not in spec:
        return "flag"
    files = "F" in spec or _FILES.search(arguments) or (
        "r" in spec and "f" not in spec and "x" not in spec and not arguments)
    if not files:
        return "value"
    return "write" if _WRITES.search(description) else "read"


def _spellings(spec: dict[str, list[str]]) -> list[str]:
    found = [f"-{s}" for s in spec.get("short", []) if len(s) == 1]
    found += [f"--{s}" for s in spec.get("long", [])]
    found += [f"-{s}" for s in spec.get("old", []) if len(s) > 1]
    return [s.rstrip("=") for s in found if _SPELLING.match(s.rstrip("="))]


def learn(files: dict[str, str]) -> dict[str, dict[str, object]]:
    """Per program (named by ``-c``, else by the file), its options' kinds and whether its
    operands are a command line."""
    seen: dict[str, dict[str, set[str]]] = {}
    wraps: set[str] = set()
    where: dict[str, str] = {}
    for filename, text in sorted(files.items()):
        default = filename.rsplit("/", 1)[-1].removesuffix(".fish")
        for words in statements(text):
            if words[0] != "complete":
                continue
            spec = parse_complete(words[1:])
            if spec is None or "e" in spec:
                continue
            names = spec.get("command") or [p.rsplit("/", 1)[-1] for p in spec.get("path", [])]
            names = [n for n in names or [default] if _NAME.match(n)]
            spellings = _spellings(spec)
            kind = _kind(spec)
            for name in names:
                where.setdefault(name, filename)
                options = seen.setdefault(name, {})
                if not spellings and kind == "run" and "__fish_complete_subcommand" in " ".join(
                        spec.get("arguments", [])) and "condition" not in spec:
                    wraps.add(name)
                for spelling in spellings:
                    options.setdefault(spelling, set()).add(kind)
    return {name: {**_entry(options, name in wraps), "from": "fish", "path": where[name]}
            for name, options in sorted(seen.items()) if options or name in wraps}


def _entry(options: dict[str, set[str]], wraps: bool) -> dict[str, object]:
    out: dict[str, str] = {}
    for spelling, kinds in sorted(options.items()):
        strongest = max(kinds, key=_ORDER.index)
        if strongest == "value" and "flag" in kinds:
            strongest = "flag"  # a value in one place, a switch in another: a switch
        if strongest != "flag":
            out[spelling] = strongest
    entry: dict[str, object] = {"options": out}
    if any(len(s) > 2 and s[1] != "-" for s in options):
        entry["style"] = "single"  # -version, -name: single-dash long options, no clusters
    if wraps:
        entry["operands"] = "command"
    return entry


_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")
_ALTERNATIVES = re.compile(r"\[(-[^|\]\s]+)\|--[^\]\s]+\]")


def tldr_examples(page: str) -> list[str]:
    """The first commands of a tldr page, placeholders filled with their own text."""
    found = re.findall(r"^`([^`\n]+)`$", page, flags=re.M)
    found = [_ALTERNATIVES.sub(r"\1", c) for c in found]  # [-o|--output]: -o
    return [_PLACEHOLDER.sub(lambda m: m.group(1) or "x", c)
            for c in found[:EXAMPLES]]


def _runs_program(example: str, name: str) -> bool:
    """An example that is a command line running ``name`` (not a key binding such as
    ``<i>`` from a page on an interactive program)."""
    return not example.startswith("<") and re.search(
        rf"(?:^|[\s|;&(]){re.escape(name)}(?![\w.-])", example) is not None


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          capture_output=True, text=True).stdout


def _read_tree(git_dir: str, folder: str, suffix: str) -> dict[str, str]:
    names = [n for n in _git(git_dir, "ls-tree", "-r", "--name-only", "HEAD", folder).split()
             if n.endswith(suffix)]
    out: dict[str, str] = {}
    # one `git cat-file --batch` for every file: a process per file is slow
    query = "".join(f"HEAD:{n}\n" for n in names)
    raw = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch"], input=query.encode(),
                         check=True, capture_output=True).stdout
    pos = 0
    for name in names:
        header_end = raw.index(b"\n", pos)
        size = int(raw[pos:header_end].split()[2])
        out[name] = raw[header_end + 1:header_end + 1 + size].decode("utf-8", "replace")
        pos = header_end + 1 + size + 1
    return out


# fish's own language: keywords and functions it ships that are no programs elsewhere
_FISH_ONLY = frozenset("""and begin case else end for if not or switch while funced funcsave
alias prompt_pwd psub vared nextd prevd dirh cdh help isatty export setenv""".split())


def excluded(fish_dir: str) -> frozenset[str]:
    """Programs the engine knows otherwise (the hand-written catalog, the shells, wrappers,
    interpreters and builtins other families judge: their data would say less), and fish's
    builtins, keywords and functions."""
    from clawgate import programs
    from clawgate.validators.unknownwords import _known_elsewhere
    from clawgate.validators.wraptable import PLAIN, PRIVILEGED

    builtins = {n.rsplit("/", 1)[-1].removesuffix(".rs") for n in _git(
        fish_dir, "ls-tree", "--name-only", "HEAD", "src/builtins/").split()}
    return (programs.names() | _known_elsewhere() | frozenset(PLAIN) | frozenset(PRIVILEGED)
            | _FISH_ONLY | frozenset(builtins))


def _packages(folders: tuple[str, ...]) -> dict[str, str]:
    """Which installed Debian package (``name version``) ships each manual page."""
    versions = dict(line.split(" ", 1) for line in subprocess.run(
        ["dpkg-query", "-W", "-f", "${Package} ${Version}\n"], check=True, capture_output=True,
        text=True).stdout.splitlines() if " " in line)
    owners: dict[str, str] = {}
    for listing in sorted(Path("/var/lib/dpkg/info").glob("*.list")):
        package = listing.stem.split(":", 1)[0]
        for line in listing.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith(folders):
                owners[line] = f"{package} {versions.get(package, '?')}"
    return owners


def _page(path: Path, seen: int = 0) -> str:
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith(".so ") and seen < 3:  # .so man1/other.1: that page's text
        target = MAN / first[4:].strip()
        target = target if target.suffix == ".gz" else target.with_name(target.name + ".gz")
        return _page(target, seen + 1) if target.exists() else ""
    return text


def learn_man(hand: frozenset[str]) -> dict[str, dict[str, object]]:
    """Per program with a manual page in sections 1 and 8 (one of its own, not a
    subcommand's page such as ``git-commit.1``), its options' kinds and the package."""
    folders = tuple(str(MAN / f"man{s}") + "/" for s in "18")
    owners = _packages(folders)
    found: dict[str, dict[str, object]] = {}
    for folder in folders:
        for path in sorted(Path(folder).glob("*.[18].gz")):
            name = path.name[:-5]
            if not _NAME.match(name) or any(name.startswith((h + "-", h + "_")) for h in
                                              _PARENTS & hand):
                continue
            try:
                kinds = catalog_man.options(_page(path))
            except (OSError, EOFError, ValueError):
                continue
            if not kinds or name in found:
                continue
            entry = _entry(kinds, False)
            entry["from"] = "man"
            entry["path"] = str(path)
            entry["package"] = owners.get(str(path), "?")
            found[name] = entry
    return found


def generate(fish_dir: str, tldr_dir: str) -> str:
    fish_files = _read_tree(fish_dir, "share/completions", ".fish")
    learned = learn(fish_files)
    skip = excluded(fish_dir)
    for name, entry in learn_man(skip).items():
        learned.setdefault(name, entry)  # fish's completions win over a manual page
    pages = {}
    for folder in ("pages/linux", "pages/common"):  # common wins where both have a page
        for name, text in _read_tree(tldr_dir, folder, ".md").items():
            pages[name.rsplit("/", 1)[-1].removesuffix(".md")] = text
    rows = []
    from clawgate.validators.programs import family_name

    kept = {n: e for n, e in learned.items() if n not in skip and family_name(n) not in skip
            and not n.startswith("fish")}
    for name, entry in kept.items():
        examples = [e for e in (tldr_examples(pages[name]) if name in pages else [])
                    if _runs_program(e, name)]
        if examples:
            entry["examples"] = examples
        rows.append(f"{name}\t{json.dumps(entry, sort_keys=True, separators=(',', ':'))}")
    header = {"format": 1, "sources": [
        {**FISH, "commit": _git(fish_dir, "rev-parse", "HEAD").strip()},
        {**TLDR, "commit": _git(tldr_dir, "rev-parse", "HEAD").strip()}, MANUALS],
        "generator": "scripts/catalog_data.py", "programs": len(rows)}
    return "#\t" + json.dumps(header, sort_keys=True) + "\n" + "".join(r + "\n" for r in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fish", required=True, help="git directory of fish-shell")
    parser.add_argument("--tldr", required=True, help="git directory of tldr-pages")
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    text = generate(args.fish, args.tldr)
    if args.check:
        same = OUT.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{OUT} differs from what the sources make")
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    print(f"{text.count(chr(10)) - 1} programs written to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
