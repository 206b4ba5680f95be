"""The packages a project's own files install: the package words of the install lines in its
CI workflows, Makefile, tox and nox files, task runners' files and Dockerfiles
(``pip install ford``, ``python -m pip install -U build twine``, ``npm install -g
live-server``), the requirement files under ``requirements/``, ``docs/`` and ``ci/``, and the
``pip:`` list of a conda ``environment.yml``.

A tool a project's CI installs, globally or not, is a tool that project uses: the name was
chosen by its maintainers, not made up by whoever types the command now, so it is no
hallucination, popular or not (``manifests.py`` reads the manifests themselves). Comments are
not read (``# pip install x`` is a note, not an install). Read only when a command names a
package that is neither popular nor declared; at most ``MAX_FILES`` files of at most
``manifests.MAX_BYTES`` each.
"""

from __future__ import annotations

import re
from pathlib import Path

from clawgate import fsfacts
from clawgate.lazyre import lazy_pattern
from clawgate.packages.manifests import small_text

MAX_FILES = 64
# Files holding shell lines, by path from the project's root (a glob each)
_LINE_FILES = (".github/workflows/*.yml", ".github/workflows/*.yaml", ".gitlab-ci.yml",
               ".circleci/config.yml", ".travis.yml", "azure-pipelines.yml", "Makefile",
               "makefile", "GNUmakefile", "tox.ini", "noxfile.py", "justfile", "Justfile",
               "Taskfile.yml", "Dockerfile", "*.Dockerfile", "environment*.yml",
               "environment*.yaml")
# Requirement files kept outside the root
_REQUIREMENT_FILES = ("requirements/*.txt", "requirements/*.in", "docs/requirements*.txt",
                      "doc/requirements*.txt", "ci/requirements*.txt")
# An installer's words up to the end of the line or the shell's next command
_PIP = lazy_pattern(r"(?:\bpip[\d.]*|\buv\s+pip|\bpython[\d.]*\s+-m\s+pip)\s+install\b"
                    r"([^\n;&|#)\"]*)")
_NPM = lazy_pattern(r"\b(?:npm\s+(?:install|i|add)|yarn\s+(?:global\s+)?add|pnpm\s+add|"
                    r"npx|pnpm\s+dlx|bunx)\b([^\n;&|#)\"]*)")
_CONDA_PIP = lazy_pattern(r"^\s*-\s*pip\s*:\s*\n((?:\s+-\s*[^\n]+\n?)+)", re.M)
# pip's options that take a value (the next word is not a package)
_PIP_VALUED = frozenset({"-r", "--requirement", "-c", "--constraint", "-e", "--editable",
                         "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
                         "-t", "--target", "--prefix", "--root", "--trusted-host",
                         "--python", "--platform", "--python-version", "--implementation",
                         "--abi", "--src", "--log", "--cache-dir", "--proxy", "--retries",
                         "--timeout", "--upgrade-strategy", "--no-binary", "--only-binary",
                         "--progress-bar", "-p", "--group"})
_NPM_VALUED = frozenset({"--registry", "--prefix", "-C", "--dir", "--filter", "--tag",
                         "--package", "-p", "--cache", "--userconfig", "-w", "--workspace"})
_PIP_NAME = lazy_pattern(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[\w,.-]*\])?(?:[=<>!~;].*)?$")
_NPM_NAME = lazy_pattern(r"^((?:@[\w.-]+/)?[\w.-]+)(?:@[^/]*)?$")
_REQUIREMENT = lazy_pattern(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
# A comment of the files' languages (YAML, make, shell, Python, TOML, INI, Dockerfile): a
# # at the start of a line or after a blank, to the end of the line
_COMMENT = lazy_pattern(r"(?:^|(?<=\s))#[^\n]*", re.M)


def installed_by_project(registry: str, directory: str) -> set[str]:
    """Names of ``registry`` (``pypi`` or ``npm``) the files of ``directory`` install."""
    if registry not in ("pypi", "npm"):
        return set()
    base = Path(directory)
    found: set[str] = set()
    for path in _files(base, _LINE_FILES):
        text = small_text(path)
        if text is None:
            continue
        text = _COMMENT.sub("", text)  # # pip install x: a note, not an install
        if registry == "pypi":
            found |= _words(_PIP, text, _PIP_VALUED, _PIP_NAME)
            for block in _CONDA_PIP.finditer(text):
                found |= {m.group(1) for line in block.group(1).splitlines()
                          if (m := _PIP_NAME.match(line.strip().lstrip("- ").strip("\"'")))}
        else:
            found |= _words(_NPM, text, _NPM_VALUED, _NPM_NAME)
    if registry == "pypi":
        for path in _files(base, _REQUIREMENT_FILES):
            text = _COMMENT.sub("", small_text(path) or "")
            found |= {m.group(1) for line in text.splitlines()
                      if not line.lstrip().startswith(("#", "-"))
                      and (m := _REQUIREMENT.match(line))}
    return found


def _files(base: Path, patterns: tuple[str, ...]) -> list[Path]:
    found: list[Path] = []
    listed: set[str] = set()
    for pattern in patterns:
        folder = str((base / pattern).parent)
        if folder not in listed:
            listed.add(folder)
            if not fsfacts.isdir(folder):
                continue
            fsfacts.listing(folder)
        found += sorted(base.glob(pattern))
        if len(found) >= MAX_FILES:
            break
    return found[:MAX_FILES]


def _words(installer: re.Pattern[str], text: str, valued: frozenset[str],
           name: re.Pattern[str]) -> set[str]:
    """The package names among the words after each install command in ``text``."""
    found: set[str] = set()
    for line in installer.finditer(text):
        words = line.group(1).replace("\\\n", " ").split()
        skip = False
        for word in words:
            word = word.strip("'\"")
            if skip:
                skip = False
                continue
            if word.startswith("-"):
                skip = word in valued
                continue
            if "$" in word or "{" in word or ("/" in word and not word.startswith("@")):
                continue  # known only at run time, a path or an address: not a name
            match = name.match(word)
            if match:
                found.add(match.group(1))
    return found
