"""Whole ``run:`` steps of GitHub workflows, as a runner hands them to ``bash -e`` (never run).

    python bench/extract_ci_blocks.py [--cap N] [--recipes N] OWNER/NAME=GIT_DIR ... > out.jsonl

Reads, at each repository's HEAD, every ``run:`` step of ``.github/workflows/*.yml`` whose
shell is bash or sh and whose job does not run on Windows, and gives each step as one
command: a one-line step as that line, a multi-line step whole (comments, ``set -euo
pipefail``, functions, loops and here-documents as written; only trailing blank space is
trimmed). ``${{ }}`` expressions take a plausible value: an ``env:`` value, the first matrix
value, a workflow input's default, or the value a runner gives the ``github``/``runner``
context on a push to ``main``; each replacement is listed in the row's ``note``. A step with an
expression none of those gives a value to is skipped. Each row: ``command``, ``source``
(``owner/repo@commit:path``), ``origin`` (``workflow``), ``note`` (the replacements, or
empty). Labels are given afterwards by reading each line (tests/corpus/README.md); at most
``CAP`` steps a repository (``--cap N`` sets it), chosen by a stable hash. ``--recipes N``
adds, per repository, up to N Makefile, justfile and Taskfile recipe lines and ``package.json``
scripts (the lines an agent runs as ``make TARGET``, ``just NAME``, ``task NAME`` or ``npm run
NAME`` runs them; origin ``makefile``, ``justfile``, ``taskfile`` or ``package.json``), read
as ``extract_ci_commands.py`` reads them but with nothing left out for its effect (a lone
``echo`` of literal text, a help target's banner, and a make variable's assignment seen as a
line are not taken): labels are given by reading.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import yaml

from extract_ci_commands import (
    _first,
    _mapping,
    files,
    git_show,
    justfile_lines,
    makefile_lines,
    package_json_lines,
    taskfile_lines,
)

CAP = 30
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_CONTEXT = {
    "runner.os": "Linux", "runner.arch": "X64", "runner.temp": "/home/runner/work/_temp",
    "runner.tool_cache": "/opt/hostedtoolcache",
    "github.workspace": "/home/runner/work/project/project", "github.ref": "refs/heads/main",
    "github.ref_name": "main", "github.head_ref": "", "github.base_ref": "",
    "github.event_name": "push", "github.sha": "3f1c2a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a39",
    "github.run_id": "9876543210", "github.run_number": "412", "github.run_attempt": "1",
    "github.actor": "octocat", "github.server_url": "https://github.com",
    "github.job": "build", "github.event.repository.default_branch": "main",
}


class _Values:
    """The plausible value of each expression of one step, and the list of those given."""

    def __init__(self, repo: str, env: dict[str, Any], matrix: dict[str, Any],
                 inputs: dict[str, Any]) -> None:
        self.repo, self.env, self.matrix, self.inputs = repo, env, matrix, inputs
        self.given: list[str] = []

    def value(self, expr: str) -> str | None:
        found = self._value(expr)
        return None if found is None or "${{" in found else found

    def _value(self, expr: str) -> str | None:
        if expr.startswith("env.") and self.env.get(expr[4:]) is not None:
            return str(self.env[expr[4:]])
        if expr.startswith("matrix.") and expr[7:] in self.matrix:
            first = _first(self.matrix[expr[7:]])
            return None if isinstance(first, (dict, list)) or first is None else str(first)
        for prefix in ("inputs.", "github.event.inputs."):
            if expr.startswith(prefix):
                default = _mapping(self.inputs.get(expr[len(prefix):])).get("default")
                return None if default is None else str(default).lower() \
                    if isinstance(default, bool) else str(default)
        if expr == "github.repository":
            return self.repo
        if expr == "github.repository_owner":
            return self.repo.split("/")[0]
        return _CONTEXT.get(expr)

    def substitute(self, text: str) -> str | None:
        missing = False

        def one(found: re.Match[str]) -> str:
            nonlocal missing
            value = self.value(found.group(1))
            if value is None:
                missing = True
                return ""
            self.given.append(f"${{{{ {found.group(1)} }}}} = {value!r}")
            return value

        done = _EXPR.sub(one, text)
        return None if missing else done


def _inputs(doc: dict[Any, Any]) -> dict[str, Any]:
    on = doc.get("on", doc.get(True)) or {}  # YAML 1.1 reads a bare `on:` key as True
    found: dict[str, Any] = {}
    if isinstance(on, dict):
        for trigger in ("workflow_dispatch", "workflow_call"):
            found.update(_mapping(_mapping(on.get(trigger)).get("inputs")))
    return found


def workflow_steps(repo: str, text: str) -> Iterator[tuple[str, str]]:
    """Each bash/sh step's text with its expressions given values, and the note saying which."""
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict):
        return
    top_env, inputs = _mapping(doc.get("env")), _inputs(doc)
    top_shell = _mapping(_mapping(doc.get("defaults")).get("run")).get("shell", "bash")
    for job in _mapping(doc.get("jobs")).values():
        if not isinstance(job, dict):
            continue
        matrix = _mapping(_mapping(job.get("strategy")).get("matrix"))
        runs_on = str(job.get("runs-on", ""))
        shell = _mapping(_mapping(job.get("defaults")).get("run")).get("shell", top_shell)
        env = {**top_env, **_mapping(job.get("env"))}
        for step in job.get("steps") or []:
            if not isinstance(step, dict) or "run" not in step:
                continue
            if str(step.get("shell", shell)).split(maxsplit=1)[0] not in ("bash", "sh"):
                continue
            cond = str(step.get("if", ""))
            if "windows" in (runs_on + str(_first(matrix.get("os"))) + cond).lower():
                continue
            values = _Values(repo, {**env, **_mapping(step.get("env"))}, matrix, inputs)
            run = values.substitute(str(step["run"]).rstrip())
            if run and run.strip():
                yield run.strip("\n"), "; ".join(values.given)


_SKIP = re.compile(r"(^|/)(vendor|third_party|deps|node_modules|testdata|fixtures?|templates?|"
                   r"__fixtures__)/")


_NOT_A_STEP = re.compile(r"(echo|printf)(\s+(\"[^\"$`]*\"|'[^']*'|[^\s\"'$`|;&<>()]+))*\s*$|"
                         r"[A-Za-z_]\w*=\S*(\s+-\S+)*$")


def _ranked(found: dict[str, dict[str, str]], cap: int) -> list[dict[str, str]]:
    return sorted(found.values(),
                  key=lambda r: hashlib.sha256(r["command"].encode()).hexdigest())[:cap]


def recipes(repo: str, git_dir: str, commit: str, cap: int) -> list[dict[str, str]]:
    """Up to ``cap`` Makefile recipe lines and ``package.json`` scripts of one repository."""
    found: dict[str, dict[str, str]] = {}
    for path in files(git_dir):
        name = path.rsplit("/", 1)[-1]
        if _SKIP.search(path):
            continue
        if re.fullmatch(r"(GNU)?[Mm]akefile", name):
            origin, reader = "makefile", makefile_lines
        elif name == "package.json":
            origin, reader = "package.json", package_json_lines
        elif re.fullmatch(r"\.?[Jj]ustfile", name):
            origin, reader = "justfile", justfile_lines
        elif re.fullmatch(r"Taskfile(\.dist)?\.ya?ml", name):
            origin, reader = "taskfile", taskfile_lines
        else:
            continue
        try:
            lines = list(reader(git_show(git_dir, path)))
        except (subprocess.CalledProcessError, ValueError, yaml.YAMLError):
            continue
        for line in lines:
            if line.strip("{}()[]; ") and not _NOT_A_STEP.match(line):
                found.setdefault(line, {"command": line, "source": f"{repo}@{commit}:{path}",
                                        "origin": origin, "note": ""})
    return _ranked(found, cap)


def extract(repo: str, git_dir: str, cap: int = CAP, recipe_cap: int = 0) -> list[dict[str, str]]:
    commit = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "HEAD"],
                            capture_output=True, check=True, text=True).stdout.strip()
    found: dict[str, dict[str, str]] = {}
    for path in files(git_dir):
        if not re.match(r"\.github/workflows/[^/]+\.ya?ml$", path):
            continue
        try:
            steps = list(workflow_steps(repo, git_show(git_dir, path)))
        except (yaml.YAMLError, subprocess.CalledProcessError, ValueError):
            continue
        for command, note in steps:
            found.setdefault(command, {"command": command, "source": f"{repo}@{commit}:{path}",
                                       "origin": "workflow", "note": note})
    extra = recipes(repo, git_dir, commit, recipe_cap) if recipe_cap else []
    return _ranked(found, cap) + extra


def main(argv: list[str]) -> int:
    seen: set[str] = set()
    cap, recipe_cap, args = CAP, 0, list(argv)
    for flag in ("--cap", "--recipes"):
        if flag in args:
            at = args.index(flag)
            value = int(args[at + 1])
            del args[at:at + 2]
            cap, recipe_cap = (value, recipe_cap) if flag == "--cap" else (cap, value)
    for arg in args:
        repo, git_dir = arg.split("=", 1)
        for row in extract(repo, git_dir, cap, recipe_cap):
            if row["command"] not in seen:
                seen.add(row["command"])
                print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
