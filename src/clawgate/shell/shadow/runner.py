"""``Shadow``: runs a line in real bash in the sandbox and reads back what bash started."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import weakref
from collections.abc import Iterable
from pathlib import Path

from clawgate.shell.shadow.recorder import PRELUDE, REAL, prelude_text, recorder_text
from clawgate.shell.shadow.records import ShadowRun, Status, read_texts, read_trace
from clawgate.shell.shadow.sandbox import Limits, bwrap_argv, run_limited
from clawgate.shell.shadow.stubdir import stub_directory
from clawgate.shell.shadow.tools import SEARCH_PATH, real_programs, stub_names

MAX_DEPTH = 3  # shells inside shells followed (sh -c 'bash -c "…"')


class Shadow:
    """Shadow runs under one set of limits. The stub directory is found (or made) at the
    first run (``stubdir.py``); each run has its own trace directory. Thread-safe."""

    def __init__(self, limits: Limits | None = None, *, bwrap: str = "bwrap",
                 max_depth: int = MAX_DEPTH, names: Iterable[str] = ()) -> None:
        """``names``: programs that get a stub even where they are not installed here (a
        shell without ``command_not_found_handle``, dash, records only what it finds)."""
        self.limits = limits or Limits()
        self._names = frozenset(n for n in names if n and "/" not in n and n not in (".", ".."))
        self.max_depth = max_depth
        self._bwrap_name = bwrap
        self._lock = threading.RLock()
        self._base: Path | None = None
        self._problem: str | None = None
        self._probed = False

    def prepare(self) -> str | None:
        """What every run needs made once (the stub directory), made now; the problem, if
        shadow runs cannot happen here."""
        problem = self.problem()
        if problem is None:
            try:
                self._setup()
            except OSError as exc:  # run() says so for each line
                return f"the shadow could not be set up: {exc}"
        return problem

    def problem(self) -> str | None:
        """Why shadow runs cannot happen here, or None: bubblewrap or bash missing (looked
        for once), or a sandbox bubblewrap could not create (known after the first run)."""
        with self._lock:
            if not self._probed:
                self._problem = self._probe()
                self._probed = True
            return self._problem

    def run(self, line: str, *, cwd: str, home: str) -> ShadowRun:
        """Every execution bash attempts for ``line`` run in ``cwd`` with ``home`` as its
        home directory (both as paths: nothing of their contents is read but the names in
        ``cwd``)."""
        problem = self.problem()
        if problem is not None:
            return ShadowRun(Status.UNAVAILABLE, detail=problem)
        try:
            return self._run(line, cwd, home, self.limits)
        except (OSError, ValueError) as exc:  # no room for the trace, a NUL in the line
            return ShadowRun(Status.FAILED, detail=f"the shadow could not run it: {exc}")

    def _run(self, line: str, cwd: str, home: str, limits: Limits) -> ShadowRun:
        base = self._setup()
        run_dir = Path(tempfile.mkdtemp(prefix="clawgate-shadow-run-"))
        try:
            (run_dir / "trace").mkdir()
            argv = bwrap_argv(self._bwrap, base, run_dir, cwd, home, limits)
            argv += [f"{REAL}/bash", "-c", line]
            done = run_limited(argv, self._environment(home, cwd), limits, run_dir / "stderr")
            executions = read_trace(os.fspath(run_dir / "trace"), hide=os.fspath(run_dir))
            texts = read_texts(os.fspath(run_dir / "trace"))
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)
        if done.timed_out:
            return ShadowRun(Status.TIMEOUT, executions, f"killed after {limits.timeout_s} s",
                             texts)
        if done.stderr.startswith("bwrap:"):
            detail = done.stderr.strip()
            if not executions:  # no sandbox at all: namespaces refused here
                with self._lock:
                    self._problem = f"bubblewrap cannot create the shadow's sandbox: {detail}"
            return ShadowRun(Status.FAILED, executions, detail, texts)
        return ShadowRun(Status.OK, executions, texts=texts)

    @property
    def _bwrap(self) -> str:
        return shutil.which(self._bwrap_name) or self._bwrap_name

    def _environment(self, home: str, cwd: str) -> dict[str, str]:
        return {**self._base_env(home), "PWD": cwd, "BASH_ENV": PRELUDE, "__CG_HOME": home}

    def _base_env(self, home: str) -> dict[str, str]:
        return {"PATH": SEARCH_PATH, "HOME": home, "LANG": "C.UTF-8", "USER": "user",
                "TERM": "dumb"}

    def _setup(self) -> Path:
        """The stub directory, the recorder and the start-up file (``stubdir.py``)."""
        with self._lock:
            if self._base is not None:
                return self._base
            # one recorder for every run: the home each run starts with is in __CG_HOME
            env = {k: v for k, v in self._base_env("").items() if k != "HOME"}
            base, private = stub_directory(stub_names() | self._names, real_programs(),
                                           recorder_text(env, self.max_depth), prelude_text())
            if private:
                weakref.finalize(self, shutil.rmtree, base, True)
            self._base = base
            return base

    def _probe(self) -> str | None:
        if shutil.which(self._bwrap_name) is None:
            return f"bubblewrap ({self._bwrap_name!r}) is not installed"
        missing = [n for n in ("bash", "find") if n not in real_programs()]
        if missing:
            return f"the shadow needs {' and '.join(missing)}, not found here"
        return None
