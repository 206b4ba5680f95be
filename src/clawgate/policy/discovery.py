"""Which manifests are layered over the embedded default when none is named on the command line.

In order (each layer can narrow the ones before it; see ``layers.py``):

1. the user file, ``$XDG_CONFIG_HOME/clawgate/policy.yaml`` (``~/.config`` when unset);
2. the project file: ``.clawgate.yaml``, or ``[tool.clawgate]`` in ``pyproject.toml``, in the
   nearest directory from ``cwd`` upward that has one. The search stops after the directory
   that holds ``.git`` (the repository root), before the home directory (a project lives
   below it; the user file is the place for a home-wide policy) and at the filesystem root.
   Both in one directory is an error: one of them would be ignored;
3. ``$CLAWGATE_POLICY``: one path, or several separated by ``os.pathsep``;
4. then the ``--policy`` files of the command line, in order: they are layered after what
   was discovered, never instead of it, so that a locked user file holds for them too.

Only existence checks here (and a text search of ``pyproject.toml``): no YAML or pydantic is
imported when nothing is found, which keeps ``policy check`` fast.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from clawgate.errors import PolicyError

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from clawgate.records import NamedTuple

PROJECT_FILE = ".clawgate.yaml"
PYPROJECT = "pyproject.toml"
ENV_VARIABLE = "CLAWGATE_POLICY"
_TABLE = re.compile(r"^\s*\[\s*tool\s*\.\s*clawgate\s*[\].]", re.MULTILINE)


class Source(NamedTuple):
    """One manifest to layer and where it came from."""

    path: str
    origin: str  # "user", "project", "env" or "--policy"


def user_file() -> str | None:
    """``$XDG_CONFIG_HOME/clawgate/policy.yaml`` when it exists."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"),
                                                             ".config")
    path = os.path.join(base, "clawgate", "policy.yaml")
    return path if os.path.isfile(path) else None


def declares_table(path: str) -> bool:
    """Whether a ``pyproject.toml`` has a ``[tool.clawgate]`` table (a text search, no TOML)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return _TABLE.search(handle.read(1 << 20)) is not None
    except OSError:
        return False


def project_file(start: str) -> str | None:
    """The project's manifest, searched upward from ``start`` (see the module docstring)."""
    home = os.path.realpath(os.path.expanduser("~"))
    here = os.path.realpath(start)
    while here != home:
        found = _project_file_in(here)
        if found is not None:
            return found
        parent = os.path.dirname(here)
        if parent == here or os.path.exists(os.path.join(here, ".git")):
            return None
        here = parent
    return None


def _project_file_in(folder: str) -> str | None:
    yaml_file = os.path.join(folder, PROJECT_FILE)
    pyproject = os.path.join(folder, PYPROJECT)
    has_yaml, has_table = os.path.isfile(yaml_file), os.path.isfile(pyproject) and \
        declares_table(pyproject)
    if has_yaml and has_table:
        raise PolicyError(pyproject, None, f"[tool.clawgate] and {PROJECT_FILE} in one "
                          "directory: one would be ignored; keep one of them")
    return yaml_file if has_yaml else pyproject if has_table else None


def env_files() -> list[str]:
    """The paths in ``$CLAWGATE_POLICY``. A named file that does not exist is an error."""
    raw = os.environ.get(ENV_VARIABLE, "")
    paths = [p for p in raw.split(os.pathsep) if p]
    for path in paths:
        if not os.path.isfile(path):
            raise PolicyError(path, None, f"named by ${ENV_VARIABLE} but not a file")
    return paths


def sources(explicit: Sequence[str] = (), cwd: str | None = None) -> list[Source]:
    """Every manifest to layer over the embedded default, in order."""
    found: list[Source] = []
    user = user_file()
    if user is not None:
        found.append(Source(user, "user"))
    project = project_file(cwd or os.getcwd())
    if project is not None:
        found.append(Source(project, "project"))
    found += [Source(p, "env") for p in env_files()]
    found += [Source(p, "--policy") for p in explicit]
    return found


def policy_paths(explicit: Sequence[str] = (), cwd: str | None = None) -> tuple[str, ...]:
    """The paths of ``sources``: what ``load_policy(*paths)`` layers."""
    return tuple(source.path for source in sources(explicit, cwd))
