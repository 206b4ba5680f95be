"""Everyday command lines from the CI workflows and Makefiles of git snapshots (never run).

    python bench/extract_ci_commands.py OWNER/NAME=GIT_DIR ... > tests/corpus/devcmds_unseen.jsonl

Reads, at each repository's HEAD, the ``run:`` steps of ``.github/workflows/*.yml`` (POSIX
shells only: ``pwsh``, ``cmd`` and ``python`` steps and Windows-only jobs are skipped), the
recipe lines of Makefiles and justfiles (a recipe with a ``#!`` line other than sh/bash is
skipped, one with a sh/bash ``#!`` line is read as a script), and the top-level simple lines of
shell scripts under ``scripts/``, ``script/``, ``ci/``, ``tools/`` and ``hack/`` (lines inside a
compound command or a function are not taken; the ``#!`` and ``set`` lines neither), with
``git --git-dir=… show HEAD:path``. Continuations (and lines ending in ``&&``, ``||``,
``|``) are joined, comments and blank lines dropped; a step holding a compound command
(``if``, ``for``, ``while``, ``case``, a brace group or subshell opened at a line's end, a
function) or a here-document stays whole. ``${{ }}`` expressions take an
``env:`` value or the first matrix value; a line with any other expression is skipped, and so is
a Makefile line that still holds a make reference, and a justfile line that still holds a
``{{ }}`` interpolation. Lines with an effect beyond the checkout
(sudo, system or global installs, pushes, publishing, deploys, network fetches, containers,
secrets, CI plumbing) are left out: what is kept is labelled ``allow``, as in
``devcmds.jsonl``. Each line: ``command``, ``label``, ``source`` (``owner/repo@commit:path``),
``origin``. At most ``CAP`` distinct lines a repository, chosen by a stable hash.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import yaml

CAP = 90
_COMPOUND = re.compile(r"(^|[;&|\s])(if|for|while|until|case|function)\s|<<-?\s*['\"]?\w|\(\)\s*\{|"
                       r"(^|[;&|\s])[{(]\s*$", re.M)
_EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
_BEYOND = re.compile(
    r"\bsudo\b|\bdoas\b|\bsu\s|\bapt(-get)?\b|\bbrew\b|\bdnf\b|\byum\b|\bapk\b|\bpacman\b|"
    r"\bchoco\b|\bsnap\b|\bgit\s+(push|fetch|clone|pull|config\s+--global|remote)\b|"
    r"\bpublish\b|\bdeploy\b|\brelease\b|\bupload\b|\btwine\b|\bcurl\b|\bwget\b|\bdocker\b|"
    r"\bpodman\b|\bgh\s|\bsecrets?\b|TOKEN|PASSWORD|\bGITHUB_[A-Z_]+|\bRUNNER_|::\w+|"
    r"\bcargo\s+(install|login|publish)\b|\bgo\s+install\b|\bgem\s+(install|push)\b|"
    r"\bnpm\s+(i|install|link)\s+(-g|--global)|\s-g\b|--global\b|\bpipx\b|\btool\s+install\b|"
    r"\brustup\b|\bghcup\b|\bmix\s+local\.|\baws\s|\bgcloud\b|\bkubectl\b|\bcorepack\b|"
    r"\bcodecov\b|\bcoveralls\b|~/|\$HOME|/usr/|/etc/|/opt/|/tmp/|"
    r"\bssh\b|\bscp\b|\brsync\b|\bkill\b|\bchown\b|\bsetup-\w+|\bnix\b|\bsnapcraft\b|"
    r"\b(add-)?apt-repository\b|\bupdate-alternatives\b|\bsystemctl\b|\bservice\b|\bxcode|"
    r"\bcodesign\b|\bsecurity\b|\bgpg\b|\bcosign\b|\bminisign\b|\bln\s+-s\S*\s+/|"
    r"--system\b|git\+https?:|install-packages|\./install\b|\bgit\s+(reset\s+--hard|clean)\b|"
    r"\$\{\{")


def git_show(git_dir: str, path: str) -> str:
    out = subprocess.run(["git", "--git-dir", git_dir, "show", f"HEAD:{path}"],
                         capture_output=True, check=True)
    return out.stdout.decode("utf-8", "replace")


def files(git_dir: str) -> list[str]:
    out = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", "HEAD"],
                         capture_output=True, check=True, text=True)
    return out.stdout.splitlines()


def _mapping(value: Any) -> dict[str, Any]:
    """An ``env:`` block, or nothing when it is an expression (``env: ${{ fromJSON(…) }}``)."""
    return value if isinstance(value, dict) else {}


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def _substitute(text: str, env: dict[str, Any], matrix: dict[str, Any]) -> str | None:
    missing = False

    def one(found: re.Match[str]) -> str:
        nonlocal missing
        expr = found.group(1)
        if expr.startswith("env.") and env.get(expr[4:]) is not None:
            return str(env[expr[4:]])
        if expr.startswith("matrix.") and expr[7:] in matrix:
            first = _first(matrix[expr[7:]])
            if first is not None and not isinstance(first, (dict, list)):
                return str(first)
        if expr == "runner.os":
            return "Linux"
        if expr == "github.workspace":
            return "."
        missing = True
        return ""

    done = _EXPR.sub(one, text)
    return None if missing else done


_OPEN_OPERATOR = re.compile(r"(&&|\|\|?)[ \t]*\n\s*")  # a line ending in && || | goes on


def logical_lines(script: str) -> list[str]:
    script = _OPEN_OPERATOR.sub(r"\1 ", script.replace("\\\n", " "))
    if _COMPOUND.search(script):
        kept = [ln for ln in script.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        return ["\n".join(kept).strip()] if kept else []
    lines = []
    for line in script.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def workflow_lines(text: str) -> Iterator[str]:
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict):
        return
    top_env = _mapping(doc.get("env"))
    for job in (doc.get("jobs") or {}).values():
        if not isinstance(job, dict):
            continue
        runs_on = str(job.get("runs-on", ""))
        strategy = job.get("strategy") or {}
        matrix = strategy.get("matrix") if isinstance(strategy, dict) else {}
        matrix = matrix if isinstance(matrix, dict) else {}
        shell = ((job.get("defaults") or {}).get("run") or {}).get("shell", "bash")
        env = {**top_env, **_mapping(job.get("env"))}
        for step in job.get("steps") or []:
            if not isinstance(step, dict) or "run" not in step:
                continue
            step_shell = str(step.get("shell", shell))
            if step_shell.split(maxsplit=1)[0] not in ("bash", "sh"):
                continue
            cond = str(step.get("if", ""))
            if "windows" in runs_on.lower() or "windows" in cond.lower():
                continue
            run = _substitute(str(step["run"]), {**env, **_mapping(step.get("env"))}, matrix)
            if run is not None:
                yield from logical_lines(run)


_MAKE_SYNTAX = re.compile(r"(ifn?eq|ifn?def|else|endif|include|override|export|unexport)\b|"
                          r"[A-Za-z_][\w.]*\s*(\+=|\?=|::?=|!=|\s=)")


def makefile_lines(text: str) -> Iterator[str]:
    text = text.replace("\\\n", " ")
    in_define = False
    for line in text.splitlines():
        if re.match(r"\s*define\b", line):
            in_define = True
        if in_define:
            in_define = not re.match(r"\s*endef\b", line)
            continue  # a make variable's text, not a recipe line
        if not line.startswith("\t"):
            continue
        line = line.strip().lstrip("@-+").strip()
        if not line or line.startswith("#") or _MAKE_SYNTAX.match(line):
            continue  # blank, a comment, or make's own syntax indented inside a conditional
        if re.search(r"(?<!\$)\$[({]|(?<!\$)\$[A-Za-z@<^*?%]", line):
            continue  # a make reference: its value is not known here
        yield line.replace("$$", "$")


_RECIPE = re.compile(r"^@?[A-Za-z_][\w-]*(\s+[^:=]*)?:(?!=)")
_JUST_REF = re.compile(r"\{\{")


def justfile_lines(text: str) -> Iterator[str]:
    """The recipe lines of a justfile: each line of a recipe is run by its own shell."""
    text = text.replace("\\\n", " ")
    body: list[str] = []
    in_recipe = False

    def flush() -> Iterator[str]:
        if not body:
            return
        first = body[0].strip()
        if first.startswith("#!"):
            if re.search(r"\b(ba)?sh\b", first) and not any(_JUST_REF.search(b) for b in body):
                yield from logical_lines("\n".join(body[1:]))
            return
        for line in body:
            line = line.strip().lstrip("@-").strip()
            if line and not line.startswith("#") and not _JUST_REF.search(line):
                yield line

    for line in text.splitlines():
        if line[:1] in (" ", "\t") and in_recipe:
            body.append(line)
            continue
        yield from flush()
        body = []
        in_recipe = bool(_RECIPE.match(line)) and not line.startswith(("set ", "export ", "alias "))
    yield from flush()


_OPENERS = re.compile(r"^(if|for|while|until|case|select)\b|^(function\s+)?[\w-]+\s*\(\)\s*\{?|\{$|"
                      r"\($|\bthen$|\bdo$")
_CLOSERS = re.compile(r"^(fi|done|esac|\}|\))\b")


def script_lines(text: str) -> Iterator[str]:
    """The top-level simple lines of a shell script (nothing inside a compound command)."""
    text = text.replace("\\\n", " ")
    if re.search(r"^\s*(source|\.)\s", text, flags=re.M):
        return  # its lines call functions of a library read at run time
    if re.search(r"<<-?\s*['\"]?\w", text):
        text = re.sub(r"<<-?\s*['\"]?(\w+)['\"]?.*?\n\1\n", "\n", text, flags=re.S)
    depth = 0
    in_string = False
    for raw in text.splitlines():
        line = raw.strip()
        try:
            shlex.split(line)
        except ValueError:
            in_string = not in_string  # a quoted string opens or closes on this line
            continue
        if in_string or not line or line.startswith("#"):
            continue
        opens = bool(_OPENERS.search(line)) and not re.search(r"\b(fi|done|esac)\s*;?$|\}\s*;?$",
                                                              line)
        closes = bool(_CLOSERS.match(line))
        if depth == 0 and not opens and not closes and not re.match(
                r"(set|shopt|trap|exit|return|source|\.)\b|[\w-]+=\S*$|.*\$[0-9#@*]", line):
            yield line
        depth = max(0, depth + opens - closes)


def extract(repo: str, git_dir: str) -> list[dict[str, str]]:
    commit = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "HEAD"],
                            capture_output=True, check=True, text=True).stdout.strip()
    found: dict[str, dict[str, str]] = {}
    for path in files(git_dir):
        if re.match(r"\.github/workflows/[^/]+\.ya?ml$", path):
            origin, reader = "workflow", workflow_lines
        elif re.search(r"(^|/)(GNU)?[Mm]akefile$", path) and not re.search(
                r"(^|/)(vendor|third_party|deps|node_modules|testdata|fixtures?|syntax-tests)/",
                path):
            origin, reader = "makefile", makefile_lines
        elif re.search(r"(^|/)\.?[Jj]ustfile$", path):
            origin, reader = "justfile", justfile_lines
        elif re.match(r"(scripts?|ci|tools|hack)/[^/]+\.sh$", path):
            origin, reader = "script", script_lines
        else:
            continue
        try:
            lines = list(reader(git_show(git_dir, path)))
        except (yaml.YAMLError, subprocess.CalledProcessError):
            continue
        for line in lines:
            if _BEYOND.search(line) or not line.strip("{}()[]; ") or (
                    "=" in line.split()[0] and len(line.split()) == 1):
                continue  # beyond the checkout, punctuation alone, or an assignment alone
            found.setdefault(line, {"command": line, "label": "allow",
                                    "source": f"{repo}@{commit}:{path}", "origin": origin})
    ranked = sorted(found.values(),
                    key=lambda r: hashlib.sha256(r["command"].encode()).hexdigest())
    return ranked[:CAP]


def main(argv: list[str]) -> int:
    seen: set[str] = set()
    for arg in argv:
        repo, git_dir = arg.split("=", 1)
        for row in extract(repo, git_dir):
            if row["command"] not in seen:
                seen.add(row["command"])
                print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
