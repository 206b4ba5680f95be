"""The files a JavaScript test runner's configuration makes it load: ``globalSetup``,
``globalTeardown``, ``setupFiles``, ``setupFilesAfterEnv`` and ``testEnvironment`` of Jest,
Vitest's ``globalSetup`` and ``setupFiles``. A file so named runs as Node code when the runner
starts, as a ``conftest.py`` does for pytest: written on the line before the runner, its text
is judged as that code (``staged.py`` asks ``project_files`` for them)."""

from __future__ import annotations

import posixpath
import re
import shlex

from clawgate.lazyre import lazy_pattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from clawgate.validators.runfiles import RunFile

_CONFIG = lazy_pattern(r"(?:^|/)(?:jest|vitest|vite)\.config\.[cm]?[jt]s$|(?:^|/)jest\.config"
                       r"\.json$")
_NAMED = lazy_pattern(r"""\b(?:globalSetup|globalTeardown|setupFiles(?:AfterEnv)?|"""
                      r"""testEnvironment)["']?\s*:\s*(\[[^\]]{0,2000}\]|["'][^"']{1,300}["'])""")
_STRING = lazy_pattern(r"""["']([^"']{1,300})["']""")
_RUNNERS = frozenset({"jest", "vitest", "vite", "npx", "bunx", "pnpx", "npm", "yarn", "pnpm",
                      "bun"})
_SOURCE = lazy_pattern(r"\.[cm]?[jt]sx?$")


def _node(text: str) -> list[str] | None:
    return [f"node -e {shlex.quote(text)}"]


def named_files(path: str, text: str) -> list[str]:
    """The project files (relative to the config's folder, normalised) a runner's config
    names to load: setup and teardown modules, a custom test environment."""
    if _CONFIG.search(path) is None:
        return []
    folder = posixpath.dirname(path)
    found: list[str] = []
    for match in _NAMED.finditer(text):
        for name in _STRING.findall(match.group(1)):
            name = name.replace("<rootDir>/", "./")
            if _SOURCE.search(name) and not name.startswith(("/", "~")) and (
                    name.startswith(".") or "/" in name):
                found.append(posixpath.normpath(posixpath.join(folder, name)))
    return found


def js_config_files(path: str, text: str) -> tuple[RunFile, ...]:
    """A RunFile for each file the config at ``path`` names: run as Node code by its runner."""
    from clawgate.validators.runfiles import RunFile

    return tuple(RunFile(re.compile(r"(?:^|/)" + re.escape(f) + "$"), _RUNNERS, _node)
                 for f in named_files(path, text))
