"""``clawgate.__version__``: pyproject.toml's version, the one source of truth.

From a source checkout (an editable install, or ``src`` on the path) it is read from the
checkout's ``pyproject.toml``, so it cannot lag behind an edit; from an installed wheel, from
the package's metadata, which the build wrote from the same file."""

from __future__ import annotations

from functools import cache
from pathlib import Path

UNKNOWN = "0+unknown"


@cache
def version() -> str:
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if pyproject.is_file() and Path(__file__).resolve().parents[1].name == "src":
        return _from_pyproject(pyproject)
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("clawgate")
    except PackageNotFoundError:
        return UNKNOWN


def _from_pyproject(path: Path) -> str:
    import tomllib

    with path.open("rb") as handle:
        project = tomllib.load(handle).get("project", {})
    found = project.get("version")
    return found if isinstance(found, str) else UNKNOWN
