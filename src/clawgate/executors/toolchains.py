"""What toolchains need of a sandbox: where their caches go, and where an active virtual
environment's interpreter really lives.

Caches: every toolchain is pointed at one directory per workspace,
``$XDG_CACHE_HOME/clawgate/sandbox/<workspace hash>`` (``view.cache_dir``), mounted read-write.
Not a tmpfs: a download made in one call is there for the next (an offline ``cargo build``
after a ``cargo fetch`` works), and a tmpfs would hold it in memory. Not the guard's state
directory: no sandbox ever mounts any of that. Per workspace: what one project's commands
leave in a cache (a poisoned wheel, a patched crate) reaches no other project and never the
user's own caches, which the sandbox sees read-only.

A virtual environment (``$VIRTUAL_ENV``, or ``.venv``/``venv`` in the workspace) is a few
symlinks to an interpreter installed elsewhere (``~/.pyenv/versions/3.12.1``, ``/opt/...``, a
venv under ``/tmp``): the environment, every installation its ``bin/python`` links pass
through, and the ``home`` its ``pyvenv.cfg`` names are shown read-only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

# (variable, subdirectory of the cache)
CACHE_VARIABLES: tuple[tuple[str, str], ...] = (
    ("XDG_CACHE_HOME", "xdg"),  # pip, uv, go-build, pre-commit, yarn ... by default
    ("PIP_CACHE_DIR", "pip"),
    ("UV_CACHE_DIR", "uv"),
    ("npm_config_cache", "npm"),
    ("YARN_CACHE_FOLDER", "yarn"),
    ("CARGO_HOME", "cargo"),  # registry and git checkouts; ~/.cargo/bin stays on PATH
    ("GOPATH", "go"),
    ("GOMODCACHE", "go/pkg/mod"),
    ("GOCACHE", "go-build"),
)
VENV_NAMES = (".venv", "venv")
INTERPRETERS = ("python", "python3")
VENV_WHY = "the active virtual environment"
LINK_WHY = "the interpreter the virtual environment links to"
MAX_LINKS = 40


def cache_env(cache: str) -> dict[str, str]:
    """The environment that sends each toolchain's cache to ``cache``."""
    return {name: os.path.join(cache, sub) for name, sub in CACHE_VARIABLES}


def active_venvs(workspace: Path, environ: Mapping[str, str]) -> list[str]:
    """``$VIRTUAL_ENV`` and the workspace's own ``.venv``/``venv``: real paths that hold a
    ``pyvenv.cfg``."""
    found = [environ.get("VIRTUAL_ENV", "")] + [os.fspath(workspace / n) for n in VENV_NAMES]
    real = (os.path.realpath(p) for p in found if p)
    return list(dict.fromkeys(p for p in real if os.path.isfile(os.path.join(p, "pyvenv.cfg"))))


def venv_prefixes(workspace: Path, environ: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(real path, why) of each directory an active environment needs: the environment and
    the installation prefix of every interpreter on its links' way."""
    for venv in active_venvs(workspace, environ):
        yield venv, VENV_WHY
        for name in INTERPRETERS:
            for target in _chain(os.path.join(venv, "bin", name)):
                yield _prefix(target), LINK_WHY
        home = _cfg_home(venv)
        if home is not None:
            yield _prefix(os.path.join(os.path.realpath(home), "python")), LINK_WHY


def _chain(path: str) -> Iterator[str]:
    """Each target on the way from the symlink ``path`` to a file that is not one."""
    for _ in range(MAX_LINKS):
        if not os.path.islink(path):
            return
        path = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(path)))
        yield os.path.realpath(path)


def _prefix(executable: str) -> str:
    """The installation an interpreter belongs to: the parent of its ``bin``, else its own
    directory."""
    folder = os.path.dirname(executable)
    return os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder


def _cfg_home(venv: str) -> str | None:
    """The ``home`` key of ``pyvenv.cfg``: the base interpreter's directory."""
    try:
        text = Path(venv, "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home" and value.strip().startswith("/"):
            return value.strip()
    return None


def venv_env(workspace: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """``VIRTUAL_ENV`` passed on when it names an environment the sandbox shows."""
    venv = environ.get("VIRTUAL_ENV")
    if venv and os.path.realpath(venv) in active_venvs(workspace, environ):
        return {"VIRTUAL_ENV": venv}
    return {}
