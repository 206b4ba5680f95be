"""Turn a GTFOBins snapshot into engine test cases: ``tests/redteam/gtfobins.jsonl``.

GTFOBins (https://gtfobins.github.io) lists, per Unix program, how it runs shells and
commands, writes and reads files, moves data and loads libraries. Each example becomes one
case, decided by the engine in ``tests/redteam/test_gtfobins.py``. This script only reads the
snapshot (``git show`` of its YAML files) and writes data; it never runs any example.

Placeholders are made concrete so that the case tests the channel GTFOBins documents:
the file written by a ``file-write`` example is ``~/.bashrc``, the file read by a
``file-read`` example is ``~/.ssh/id_rsa``; other files (temporary files, the local end of a
transfer) are plain workspace files, so that a block comes from the channel and not from an
unrelated path. Examples that need an interactive step after the command (``less f`` then
``!/bin/sh`` typed at its prompt) cannot be judged by a command check: they are kept,
marked ``skipped`` with the reason.

Usage: python bench/gtfobins_cases.py --repo /path/to/GTFOBins.github.io/repo [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parent.parent / "tests" / "redteam" / "gtfobins.jsonl"

# every function whose examples are judged; all of them must come out not ALLOW
JUDGED = frozenset({"shell", "command", "reverse-shell", "bind-shell", "library-load",
                    "file-write", "file-read", "upload", "download",
                    "privilege-escalation"})

# What a placeholder becomes, by function. A file-write example writes ``~/.bashrc``, a
# file-read example reads ``~/.ssh/id_rsa``; where the shell would not expand ``~`` (inside
# quotes or code, after ``=``) the same role is played by an absolute path that needs no
# expansion. Every other file is a workspace file.
_SECRET = ("~/.ssh/id_rsa", "/etc/shadow")
_STARTUP = ("~/.bashrc", "/etc/profile")
_SECRET_DIR = ("~/.ssh/", "/root/.ssh/")
_STARTUP_DIR = ("~/.config/autostart/", "/etc/profile.d/")


def _roles(function: str, code: str) -> dict[str, tuple[str, str]]:
    """placeholder -> (replacement at a word start, replacement elsewhere)."""
    def plain(path: str) -> tuple[str, str]:
        return (path, path)

    inp, out = plain("notes.txt"), plain("out.bin")
    inp_dir, out_dir = plain("srcdir/"), plain("outdir/")
    if function == "file-read":
        inp, inp_dir = _SECRET, _SECRET_DIR
    elif function == "file-write":
        out, out_dir = _STARTUP, _STARTUP_DIR
        if "/path/to/output-" not in code:  # the example writes over its "input" file
            inp = _STARTUP
    return {
        "/path/to/output-dir/output-file": out,
        "/path/to/input-file": inp,
        "/path/to/file-input": inp,
        "/path/to/output-file": out,
        "/path/to/input-dir/": inp_dir,
        "/path/to/input-dir": (inp_dir[0].rstrip("/"), inp_dir[1].rstrip("/")),
        "/path/to/output-dir/": out_dir,
        "/path/to/output-dir": (out_dir[0].rstrip("/"), out_dir[1].rstrip("/")),
        "/path/to/temp-file": plain("tmpfile"),
        "/path/to/temp-dir/": plain("tmpdir/"),
        "/path/to/temp-dir": plain("tmpdir"),
        "/path/to/empty-dir": plain("emptydir"),
        "/path/to/dir/": plain("mnt/"),
    }


_PLACEHOLDER = re.compile(r"/path/to/(?:output-dir/output-file|input-file|file-input|"
                          r"output-file|input-dir/?|output-dir/?|temp-file|temp-dir/?|"
                          r"empty-dir|dir/)")


_REMOTE = re.compile(r"(://[^/\s'\"]+|@[\w.-]+:)$")
# where the shell expands ``~``: at the start of a word or right after a redirection
_WORD_START = re.compile(r"(^|\s|(^|[\s\d&])[<>])$")


def substitute(code: str, function: str) -> str:
    """The example with its placeholders made concrete (remote paths are left alone)."""
    roles = _roles(function, code)

    def repl(match: re.Match[str]) -> str:
        prefix = code[:match.start()].rsplit(None, 1)[-1] if code[:match.start()].strip() else ""
        if _REMOTE.search(prefix):
            return match.group(0)  # a path on another host (URL, scp-style host:path)
        at_word_start, elsewhere = roles[match.group(0)]
        return at_word_start if _WORD_START.search(code[:match.start()]) else elsewhere

    code = _PLACEHOLDER.sub(repl, code)
    if function == "file-write":  # csplit's suffix format names the file it writes
        code = code.replace("%doutput-file", "%d.bashrc")
    return code


# ------------------------------------------------------------------------------------------
# interactive steps

_BUILTINS = frozenset("""
    . : [ [[ alias bg bind break builtin case cd command continue declare do done echo elif
    else esac eval exec exit export false fc fg fi for function getopts hash history if jobs
    kill let local mapfile popd printf pushd pwd read readonly return select set shift shopt
    source test then time trap true type typeset ulimit umask unalias unset until wait while
    { } ( ) !
""".split())
# programs, besides the GTFOBins entries themselves, that the examples run as later steps
_SHELL_TOOLS = frozenset({"mkdir", "touch", "ls", "mkfifo", "chmod", "cp", "mv", "ln", "rm",
                          "iptables", "lxc", "pdftotext", "ping", "reset"})
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_HEREDOC = re.compile(r"<<-?\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)['\"]?")
# lines typed at a program's prompt that happen to spell a command name: these examples
# are REPL sessions (hping3 takes a shell path at its prompt, tclsh reads Tcl)
_SESSION_OVERRIDES = {("hping3", "shell"), ("tclsh", "reverse-shell")}
# trailing keystrokes that only repair the terminal after the attack has run
_TERMINAL_REPAIR = re.compile(r"^(reset(\^J)?|# press return twice)$")


def _first_word(line: str) -> str:
    words = line.split()
    while words and _ASSIGN.match(words[0]):
        words.pop(0)
    return words[0] if words else ""


def _is_command_line(line: str, names: frozenset[str]) -> bool:
    """Whether a line at top level reads as a shell command rather than typed input."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return True
    if stripped.startswith(("!", ":", "\\", "^", "@")) and stripped not in ("!",):
        return False
    word = _first_word(stripped)
    if not word:
        return True  # assignments only
    if word in _BUILTINS or word in names:
        return True
    if word.startswith(("/", "./", "~/")):
        return True
    return word in _SHELL_TOOLS


def _top_level_lines(code: str) -> Iterator[str]:
    """The lines that start a new command: not inside quotes, continuations or here-docs."""
    quote = ""
    heredoc: list[str] = []
    continued = False
    for line in code.split("\n"):
        if heredoc:
            if line.strip() == heredoc[0]:
                heredoc.pop(0)
            continue
        if not quote and not continued:
            yield line
        continued = False
        i = 0
        while i < len(line):
            ch = line[i]
            if quote == "'":
                if ch == "'":
                    quote = ""
            elif ch == "\\":
                i += 1
            elif quote == '"':
                if ch == '"':
                    quote = ""
            elif ch in "'\"":
                quote = ch
            elif ch == "#" and (i == 0 or line[i - 1] in " \t;"):
                break
            i += 1
        if not quote:
            heredoc.extend(_HEREDOC.findall(line))
            continued = line.endswith("\\")


# Examples whose concrete form from a workspace cwd is not what GTFOBins documents
_CWD_ONLY = ("writes only under the current directory (GTFOBins runs it from the target "
             "directory); from a workspace cwd it is a workspace write")
_QUIRKS: dict[tuple[str, str, int], str] = {
    ("cpio", "file-write", 0): _CWD_ONLY,
    ("csplit", "file-write", 0): _CWD_ONLY,
    ("split", "file-write", 0): _CWD_ONLY,
    ("latex", "file-write", 0): _CWD_ONLY,
    ("pdflatex", "file-write", 0): _CWD_ONLY,
    ("vim", "file-read", 0): ("the example reads nothing: it writes DATA with :redir, here "
                              "into a workspace file"),
    ("java", "shell", 0): ("runs Shell.class prepared beforehand in the current directory: "
                           "from a workspace that is project code, judged like any project "
                           "script"),
}


def interactive_reason(binary: str, function: str, code: str,
                       names: frozenset[str]) -> str | None:
    """Why the example needs an interactive step, or None when the text is the whole attack."""
    if (binary, function) in _SESSION_OVERRIDES:
        return "a REPL session: the lines after the first are typed at the program's prompt"
    lines = list(_top_level_lines(code))
    while lines and _TERMINAL_REPAIR.match(lines[-1].strip()):
        lines.pop()
    for line in lines[1:]:
        if not _is_command_line(line, names):
            return ("needs an interactive step: " + repr(line.strip()[:40])
                    + " is typed at the program's prompt")
    return None


def drop_terminal_repair(code: str) -> str:
    lines = code.split("\n")
    while len(lines) > 1 and _TERMINAL_REPAIR.match(lines[-1].strip()):
        lines.pop()
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------
# sudo forms

def sudo_form(code: str, binary: str) -> str | None:
    """The example with ``sudo`` put before each invocation of the binary, or None."""
    out: list[str] = []
    hit = False
    for line in code.split("\n"):
        words = line.split(" ")
        lead: list[str] = []
        while words and _ASSIGN.match(words[0]) and "'" not in words[0] and '"' not in words[0]:
            lead.append(words.pop(0))
        if words and words[0] == binary:
            out.append(" ".join(["sudo", *lead, *words]))
            hit = True
        else:
            out.append(line)
    return "\n".join(out) if hit else None


# ------------------------------------------------------------------------------------------

def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], check=True,
                          capture_output=True, text=True).stdout


def load(repo: Path) -> tuple[str, dict[str, dict[str, Any]]]:
    commit = _git(repo, "rev-parse", "HEAD").strip()
    docs: dict[str, dict[str, Any]] = {}
    for path in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", "_gtfobins").split():
        doc = yaml.safe_load(_git(repo, "show", f"HEAD:{path}"))
        if isinstance(doc, dict):
            docs[path.split("/", 1)[1]] = doc
    return commit, docs


def cases(commit: str, docs: dict[str, dict[str, Any]]) -> Iterator[dict[str, Any]]:
    names = frozenset(docs)
    seen: set[str] = set()
    for binary in sorted(docs):
        functions = docs[binary].get("functions") or {}
        for function in sorted(functions):
            for index, example in enumerate(functions[function]):
                contexts: dict[str, Any] = example.get("contexts") or {}
                variants: list[tuple[str, str]] = []
                if example.get("code"):
                    variants.append(("any", example["code"]))
                for ctx, extra in contexts.items():
                    if isinstance(extra, dict) and extra.get("code"):
                        variants.append((f"{ctx}-code", extra["code"]))
                for context, raw in variants:
                    yield from _case(commit, binary, function, index, context, raw,
                                     sorted(contexts), example.get("from"), names, seen)


def _case(commit: str, binary: str, function: str, index: int, context: str, raw: str,
          contexts: list[str], inherits: str | None, names: frozenset[str],
          seen: set[str]) -> Iterator[dict[str, Any]]:
    code = drop_terminal_repair(substitute(raw.rstrip("\n"), function))
    skip: str | None = None
    if function == "inherit":
        skip = (f"hands the session to {inherits}; the attack is what is then typed "
                "or loaded there")
    elif function not in JUDGED:
        skip = f"function {function} is not judged"
    elif (binary, function, index) in _QUIRKS:
        skip = _QUIRKS[(binary, function, index)]
    else:
        skip = interactive_reason(binary, function, code, names)
    forms = [(context, code, skip)]
    sudo = sudo_form(code, binary) if "sudo" in contexts else None
    if sudo is not None:
        forms.append(("sudo" if context == "any" else f"sudo/{context}", sudo, skip))
    if function == "privilege-escalation" and not skip:
        # without privileges these change only the caller's own (workspace) files
        forms[0] = (context, code, "meaningful only with privileges; judged in its sudo form")
    for ctx, text, reason in forms:
        key = f"{function}\0{text}"
        if key in seen:
            continue
        seen.add(key)
        yield {
            "binary": binary, "function": function, "example": index, "context": ctx,
            "code": text, "source_code": raw.rstrip("\n"),
            "expect": "not_allow", "skipped": reason,
            "source": f"GTFOBins/GTFOBins.github.io@{commit}:_gtfobins/{binary}",
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repo", type=Path, required=True,
                        help="git directory of a GTFOBins.github.io snapshot")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    commit, docs = load(args.repo)
    rows = list(cases(commit, docs))
    with args.out.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    judged = Counter(r["function"] for r in rows if not r["skipped"])
    skipped = Counter(r["function"] for r in rows if r["skipped"])
    print(f"{len(rows)} cases from {commit[:12]}: {sum(judged.values())} judged, "
          f"{sum(skipped.values())} skipped", file=sys.stderr)
    for fn in sorted(set(judged) | set(skipped)):
        print(f"  {fn:22} judged {judged[fn]:4}  skipped {skipped[fn]:4}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
