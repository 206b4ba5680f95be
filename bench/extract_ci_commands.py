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
EXTENDED = "--extended" in sys.argv  # also package.json, Taskfiles, Dockerfiles, tox, nox, docs
_COMPOUND = re.compile(r"(^|[;&|\s])(if|for|while|until|case|function)\s|<<-?\s*['\"]?\w|\(\)\s*\{|"
                       r"(^|[;&|\s])[{(]\s*$", re.M)
_EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
_BEYOND = re.compile(
    r"\bsudo\b|\bdoas\b|\bsu\s|\bapt(-get)?\b|\bbrew\b|\bdnf\b|\byum\b|\bapk\b|\bpacman\b|"
    r"\bchoco\b|\bsnap\b|\bgit\s+(push|fetch|clone|pull|config\s+--global|remote)\b|"
    r"\bpublish\b|publishTo|\bdeploy\b|\brelease\b|[a-z]Release|(^|\s)push\b|(^|[\s/])push_|"
    r"--user\b|\bupload\b|\btwine\b|"
    r"\bcurl\b|\bwget\b|\bdocker\b|"
    r"\bpodman\b|\bgh\s|\bsecrets?\b|TOKEN|PASSWORD|\bGITHUB_[A-Z_]+|\bRUNNER_|::\w+|"
    r"\bcargo\s+(install|login|publish)\b|\bgo\s+install\b|\bgem\s+(install|push)\b|"
    r"\bnpm\s+(i|install|link)\s+(-g|--global)|\s-g\b|--global\b|\bpipx\b|\btool\s+install\b|"
    r"\brustup\b|\bghcup\b|\bmix\s+local\.|\baws\s|\bgcloud\b|\bkubectl\b|\bcorepack\b|"
    r"\bcodecov\b|\bcoveralls\b|~/|\$HOME|/usr/|/etc/|/opt/|/tmp/|"
    r"\bssh\b|\bscp\b|\brsync\b|\bkill\b|\bchown\b|\bsetup-\w+|\bnix\b|\bsnapcraft\b|"
    r"\b(add-)?apt-repository\b|\bupdate-alternatives\b|\bsystemctl\b|\bservice\b|\bxcode|"
    r"\bcodesign\b|\bsecurity\b|\bgpg\b|\bcosign\b|\bminisign\b|\bln\s+-s\S*\s+/|"
    r"--system\b|\bzypper\b|publish_|\bsign\.sh\b|_s3\b|git\+https?:|install-packages|\./install\b|\bgit\s+(reset\s+--hard|clean)\b|"
    r"\$\{\{")


# With --extended, also beyond the checkout: what changes a cluster, a device, a user account or
# another machine (helm install, kind create cluster, terraform apply, ansible-playbook, adb,
# useradd, dpkg), a path from the root or home (a container's /build, ${HOME}), git hooks, a
# script fed to a shell (``bash < install.sh``), cloud consoles; and what is not a command line:
# docs' placeholders (``<version>``), a directory tree drawn in a shell block (``├── src``), a
# line cut out of a multi-line construct (its parentheses do not pair), a template's text
# (``{% if … %}``, ``{{ cookiecutter.x }}``: a project generator's, not the project's).
_BEYOND_MORE = re.compile(
    r"\bhelm\s+(install|upgrade|uninstall|delete|rollback|test|repo\s+(add|update)|plugin\s+"
    r"install|push|registry|dependency\s+(update|build))\b|\bkind\s+(create|delete|load|export)\b|"
    r"\bminikube\b|\bk3d\b|\bterra(form|grunt)\s+(apply|destroy|import|login|init)\b|"
    r"\bansible-playbook\b|\bmolecule\b|\bvagrant\b|\badb\b|\bemulator\b|\bsdkmanager\b|"
    r"\bavdmanager\b|\bxcrun\s+simctl\b|\bfastlane\b|\bpod\s+(trunk|repo)\b|\bwrangler\b|"
    r"\bvercel\b|\bnetlify\b|\bfirebase\b|\bdeployctl\b|\bheroku\b|\baz\s|\$AWS_CLI|"
    r"\buser(add|mod|del)\b|\bgroupadd\b|\$\{HOME\}|(^|[\s/\"'])hooks/|hooksPath|\banaconda\s+(upload|build)\b|"
    r"(^|[;&|]\s*)(ba)?sh\s*<|"
    r"(^|[\s=\"'])/(?!dev/null)[A-Za-z]|<[A-Za-z][\w .-]*>|\bdpkg\b|[\u2500-\u257f]|"
    r"\{%|\{\{\s*cookiecutter")


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


def _spans_lines(script: str) -> bool:
    """A line that bash continues onto the next one: a quote left open, or a trailing ``&&``,
    ``||``, ``|`` or ``(``."""
    for line in script.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if re.search(r"(&&|\|\||\||\()$", line):
            return True
        try:
            shlex.split(line, comments=True)
        except ValueError:
            return True
    return False


def logical_lines(script: str) -> list[str]:
    script = _OPEN_OPERATOR.sub(r"\1 ", script.replace("\\\n", " "))
    if _COMPOUND.search(script) or _spans_lines(script):
        kept = [ln for ln in script.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        return ["\n".join(kept).strip()] if kept else []
    lines = []
    for line in script.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def _mapping(value: Any) -> dict[str, Any]:
    """An ``env:`` block; one given as an expression (``env: ${{ fromJSON(…) }}``) holds no
    value known here."""
    return value if isinstance(value, dict) else {}


def workflow_lines(text: str) -> Iterator[str]:
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict):
        return
    top_env = _mapping(doc.get("env"))
    top_shell = _mapping(_mapping(doc.get("defaults")).get("run")).get("shell", "bash")
    for job in (doc.get("jobs") or {}).values():
        if not isinstance(job, dict):
            continue
        strategy = job.get("strategy") or {}
        matrix = strategy.get("matrix") if isinstance(strategy, dict) else {}
        matrix = matrix if isinstance(matrix, dict) else {}
        runs_on = str(job.get("runs-on", ""))  # a runner named by the matrix: its first value
        runs_on = _substitute(runs_on, top_env, matrix) or runs_on
        shell = ((job.get("defaults") or {}).get("run") or {}).get("shell", top_shell)
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


def package_json_lines(text: str) -> Iterator[str]:
    """The ``scripts`` of a ``package.json``: npm, yarn, pnpm and bun run each with ``sh -c``."""
    doc = json.loads(text)
    scripts = doc.get("scripts") if isinstance(doc, dict) else None
    for value in (scripts or {}).values() if isinstance(scripts, dict) else ():
        if isinstance(value, str):
            yield from logical_lines(value)


def taskfile_lines(text: str) -> Iterator[str]:
    """The ``cmds`` of a Taskfile's tasks (a line holding a ``{{ }}`` template is skipped)."""
    doc = yaml.safe_load(text)
    tasks = doc.get("tasks") if isinstance(doc, dict) else None
    for task in (tasks or {}).values() if isinstance(tasks, dict) else ():
        cmds = task.get("cmds") if isinstance(task, dict) else None
        for cmd in cmds or []:
            line = cmd.get("cmd") if isinstance(cmd, dict) else cmd
            if isinstance(line, str) and not _JUST_REF.search(line):
                yield from logical_lines(line)


def dockerfile_lines(text: str) -> Iterator[str]:
    """The shell-form ``RUN`` lines of a Dockerfile (the exec form ``RUN ["…"]`` is skipped)."""
    text = text.replace("\\\n", " ")
    for line in text.splitlines():
        found = re.match(r"\s*RUN\s+(?!\[)(?:--\S+\s+)*(.*)", line, flags=re.I)
        if found and found.group(1).strip() and "$" not in found.group(1):
            yield re.sub(r"\s+", " ", found.group(1)).strip()


def tox_lines(text: str) -> Iterator[str]:
    """The ``commands`` of tox's ``[testenv…]`` sections (``{posargs}`` is empty; a line with
    any other substitution is skipped; a leading ``-`` only ignores the exit status)."""
    section = ""
    in_commands = False
    for raw in text.replace("\\\n", " ").splitlines():
        line = raw.strip()
        if line.startswith("["):
            section, in_commands = line, False
            continue
        if not section.startswith("[testenv"):
            continue
        key = re.match(r"(\w[\w_-]*)\s*=\s*(.*)", raw)
        if key and not raw[:1].isspace():
            in_commands = key.group(1) in ("commands", "commands_pre")
            line = key.group(2).strip()
        if not in_commands or not line or line.startswith("#"):
            continue
        line = re.sub(r"\s*\[?\{posargs(:[^}]*)?\}\]?", "", line).lstrip("-! ").strip()
        line = re.sub(r"^\w[\w,-]*:\s+", "", line)  # a factor-conditional line: ``py39: cmd``
        if line and "{" not in line:
            yield line


def noxfile_lines(text: str) -> Iterator[str]:
    """The ``session.run(…)`` calls of a noxfile whose words are all string literals."""
    import ast
    for node in ast.walk(ast.parse(text)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "run" and node.args
                and all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                        for a in node.args)):
            yield shlex.join(str(a.value) for a in node.args)  # type: ignore[attr-defined]


_FENCED = re.compile(r"^```(bash|sh|shell|console|shell-session)\s*\n(.*?)^```", re.M | re.S)


def doc_lines(text: str) -> Iterator[str]:
    """The shell blocks of contributor docs: a ``console`` block's ``$ `` lines, every line of
    a ``bash``/``sh``/``shell`` block."""
    for kind, body in _FENCED.findall(text):
        if kind in ("console", "shell-session"):
            body = "\n".join(_PROMPT.sub("", ln.strip()) for ln in body.splitlines()
                             if _PROMPT.match(ln.strip()))
        else:
            body = "\n".join(_PROMPT.sub("", ln.strip()) for ln in body.splitlines())
        yield from logical_lines(body)


_PROMPT = re.compile(r"^(\([\w.-]+\)\s*)?\$ ")  # ``$ `` or a virtualenv's ``(venv) $ ``
_DOCS = re.compile(r"(^|/)(CONTRIBUTING|DEVELOPMENT|DEVELOPING|HACKING|contributing|"
                   r"development)(\.[\w-]+)?\.md$")


def _reader(path: str) -> tuple[str, Any] | None:
    """The origin name and reader of a file the corpus draws on, or None."""
    if re.search(r"(^|/)(vendor|third_party|deps|node_modules|testdata|fixtures?|"
                 r"syntax-tests|__fixtures__|templates?)/", path):
        return None
    name = path.rsplit("/", 1)[-1]
    if name == "package.json":
        return "package.json", package_json_lines
    if re.fullmatch(r"Taskfile(\.dist)?\.ya?ml", name):
        return "taskfile", taskfile_lines
    if re.fullmatch(r"(\w+\.)?Dockerfile(\.\w+)?|Containerfile", name):
        return "dockerfile", dockerfile_lines
    if name == "tox.ini":
        return "tox", tox_lines
    if name == "noxfile.py":
        return "noxfile", noxfile_lines
    if _DOCS.search(path) and path.count("/") <= 2:
        return "docs", doc_lines
    return None


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
        elif EXTENDED and (found_reader := _reader(path)) is not None:
            origin, reader = found_reader
        else:
            continue
        try:
            lines = list(reader(git_show(git_dir, path)))
        except (yaml.YAMLError, subprocess.CalledProcessError, ValueError, SyntaxError):
            continue
        for line in lines:
            if _BEYOND.search(line) or (EXTENDED and _BEYOND_MORE.search(line)) or (
                    EXTENDED and "\n" not in line and (
                        _spans_lines(line) or line.count("(") != line.count(")"))) or \
                    not line.strip("{}()[]; ") or (
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
        if arg == "--extended":
            continue
        repo, git_dir = arg.split("=", 1)
        for row in extract(repo, git_dir):
            if row["command"] not in seen:
                seen.add(row["command"])
                print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
