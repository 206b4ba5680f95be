"""The executor contract: ``Executor.run(ExecRequest) -> ExecResult``, its async twin, ``Limits``.

An executor never decides anything: the caller has already decided that the command may run.
What every executor shares lives here — the spawn cap, the workspace check of ``cwd``, the
environment allow-list, the timeout clamp — so that a backend only implements ``_execute``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.executors.limiter import SpawnLimiter, shared_limiter
from clawgate.executors.seccomp_notify import SyscallRefusal
from clawgate.trustenv import TRUST_ENV_NAMES

_D = TypeVar("_D")


def from_known_fields(cls: type[_D], values: Mapping[str, Any], what: str) -> _D:
    """``cls(**values)`` for a dataclass, where a key that is not one of its fields is an
    error naming it (a manifest's typo must not be ignored)."""
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown {what}: {', '.join(unknown)}")
    return cls(**dict(values))

MiB = 1024 * 1024
TIMEOUT_EXIT = 124  # the exit code of a run that timed out, as coreutils `timeout` reports it
SAFE_ENV_NAMES: tuple[str, ...] = ("PATH", "HOME", "LANG", "LC_ALL", "TERM", "TZ", "USER",
                                   *TRUST_ENV_NAMES)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Limits:
    """How long, how much and how many. Frozen; build one per policy with ``from_mapping``."""

    timeout_s: float = 30.0  # a request without its own timeout gets this one
    max_timeout_s: float = 300.0  # every timeout is clamped to this
    max_concurrent: int = 5  # the spawn cap shared by every executor of the process
    queue_timeout_s: float | None = None  # None: over the cap fail at once; else wait this long
    output_cap: int = 1 * MiB  # bytes kept per stream; the rest is dropped, `truncated` set
    kill_grace_s: float = 2.0  # between SIGTERM and SIGKILL of a timed-out process group
    # Sized for real work, as containment of a runaway, not a quota: a test suite's heap (V8
    # sizes its own up to 4 GiB), a compiler's threads times its parallel jobs (pids counts
    # threads: a Node process has ten, `go test ./...` and `cargo test` run one job per core).
    memory: int = 4096 * MiB  # sandbox memory limit in bytes (Docker, bubblewrap)
    pids: int = 4096  # tasks of one run (Docker, bubblewrap, host where cgroups allow)
    cpus: float = 1.0  # sandbox CPU share (Docker)
    repo_programs: bool = False  # let git run what a repository configures (hooks, fsmonitor)

    def __post_init__(self) -> None:
        positive = ("timeout_s", "max_timeout_s", "max_concurrent", "output_cap", "memory",
                    "pids", "cpus")
        for name in positive:
            if getattr(self, name) <= 0:
                raise ValueError(f"Limits.{name} must be positive, got {getattr(self, name)!r}")
        if self.kill_grace_s < 0 or (self.queue_timeout_s is not None and self.queue_timeout_s < 0):
            raise ValueError("Limits.kill_grace_s and queue_timeout_s must not be negative")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Limits:
        """Limits from a manifest's ``executor`` section; unknown keys are an error."""
        return from_known_fields(cls, values, "executor limits")

    def clamp(self, timeout_s: float | None) -> float:
        """The timeout a request really gets: its own or the default, never above the maximum."""
        wanted = self.timeout_s if timeout_s is None else timeout_s
        if wanted <= 0:
            raise ToolError(ToolErrorKind.INVALID_ARGS, f"timeout must be positive, got {wanted}")
        return min(wanted, self.max_timeout_s)


@dataclass(frozen=True, slots=True)
class ExecRequest:
    """One command to run: a shell string (run by ``sh -c``) or an argv, run without a shell."""

    command: str | Sequence[str]
    cwd: str | os.PathLike[str] | None = None  # inside the workspace; relative to it if relative
    env: Mapping[str, str] | None = None  # set on top of the allowed names of the caller's env
    timeout_s: float | None = 30.0  # None: the executor's default; clamped to max_timeout_s

    def argv(self) -> list[str]:
        """The argv to exec: ``sh -c COMMAND`` for a string, the sequence itself otherwise."""
        argv = ["sh", "-c", self.command] if isinstance(self.command, str) else list(self.command)
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ToolError(ToolErrorKind.INVALID_ARGS, "an argv must be non-empty strings")
        if any("\0" in a for a in argv):  # exec cannot pass it; say so instead of crashing
            raise ToolError(ToolErrorKind.INVALID_ARGS, "a command cannot contain a NUL byte")
        return argv


@dataclass(frozen=True, slots=True)
class ExecResult:
    """What a run produced. Output is decoded as UTF-8 (undecodable bytes replaced)."""

    exit_code: int  # 128+N when killed by signal N; 124 when timed out
    stdout: str = ""
    stderr: str = ""
    duration_ms: float = 0.0
    timed_out: bool = False
    truncated: bool = False  # a stream went over the output cap and was cut
    refusals: tuple[SyscallRefusal, ...] = ()  # system calls the sandbox's filter refused
    refusal_counts: tuple[tuple[str, str, int], ...] = ()  # (name, kind, count) of all of them

    def as_dict(self) -> dict[str, object]:
        """The stable JSON shape of ``policy run --json``'s ``result`` (``refused_syscalls``
        only when the sandbox's filter refused a call)."""
        shown: dict[str, object] = {
            "exit_code": self.exit_code, "stdout": self.stdout, "stderr": self.stderr,
            "duration_ms": round(self.duration_ms, 3), "timed_out": self.timed_out,
            "truncated": self.truncated}
        if self.refusal_counts:
            shown["refused_syscalls"] = self.refused_syscalls()
        return shown

    def refused_syscalls(self) -> dict[str, object]:
        """What the filter refused: each kept call, and every refused call's count."""
        return {"calls": [r.as_dict() for r in self.refusals],
                "counts": [{"syscall": name, "kind": kind, "count": count}
                           for name, kind, count in self.refusal_counts]}


@dataclass(frozen=True, slots=True)
class Job:
    """A request checked and resolved by the executor: what a backend actually runs."""

    argv: list[str]
    cwd: Path  # absolute, inside the workspace
    relative_cwd: Path  # the same, relative to the workspace root
    env: dict[str, str]
    timeout_s: float
    output_cap: int
    kill_grace_s: float
    request: ExecRequest = field(compare=False)


class Executor(ABC):
    """Runs approved commands. Subclasses implement ``_execute``; ``run`` adds the spawn cap.

    Use as a context manager when the backend holds something that must be closed (a warm
    container); closing a host executor does nothing.
    """

    def __init__(self, *, workspace: str | os.PathLike[str] | None = None,
                 limits: Limits | None = None, limiter: SpawnLimiter | None = None,
                 safe_env_names: Iterable[str] = SAFE_ENV_NAMES) -> None:
        self.limits = limits or Limits()
        self.workspace = Path(workspace if workspace is not None else os.getcwd()).resolve()
        self.limiter = limiter or shared_limiter(self.limits.max_concurrent)
        self.safe_env_names = tuple(safe_env_names)

    def run(self, request: ExecRequest) -> ExecResult:
        """Run one command under the spawn cap. Raises CapacityExceeded over the cap."""
        job = self.prepare(request)
        with self.limiter.slot(self.limits.queue_timeout_s):
            return self._execute(job)

    async def arun(self, request: ExecRequest) -> ExecResult:
        """``run`` for asyncio: waits for a slot without blocking the loop, runs in a thread."""
        job = self.prepare(request)
        await self.limiter.aacquire(self.limits.queue_timeout_s)
        # The thread releases the slot when the run ends, even if this task is cancelled first:
        # a slot is never freed while its command still runs.
        return await _in_thread(self._execute, job, self.limiter.release)

    def prepare(self, request: ExecRequest) -> Job:
        """Check and resolve a request: argv, cwd inside the workspace, env, timeout."""
        cwd = self._resolve_cwd(request.cwd)
        return Job(argv=request.argv(), cwd=cwd, relative_cwd=cwd.relative_to(self.workspace),
                   env=self.environment(request), timeout_s=self.limits.clamp(request.timeout_s),
                   output_cap=self.limits.output_cap, kill_grace_s=self.limits.kill_grace_s,
                   request=request)

    def environment(self, request: ExecRequest) -> dict[str, str]:
        """Only ``safe_env_names`` pass from the caller's environment; ``request.env`` on top;
        then, unless ``Limits.repo_programs``, git told not to run what a repository
        configures (``git_safe_env``)."""
        env = {name: os.environ[name] for name in self.safe_env_names if name in os.environ}
        env.update(request.env or {})
        return env if self.limits.repo_programs else git_safe_env(env)

    def _resolve_cwd(self, cwd: str | os.PathLike[str] | None) -> Path:
        path = self.workspace if cwd is None else (self.workspace / cwd).resolve()
        if not path.is_relative_to(self.workspace):
            raise ToolError(ToolErrorKind.INVALID_PATH,
                            f"cwd {os.fspath(cwd or '')!r} is outside the workspace "
                            f"{self.workspace}")
        if not path.is_dir():
            raise ToolError(ToolErrorKind.INVALID_PATH, f"cwd {path} is not a directory")
        return path

    @abstractmethod
    def _execute(self, job: Job) -> ExecResult:
        """Run a prepared job to its end (or its timeout). Called with a slot held."""

    def close(self) -> None:  # noqa: B027 - a no-op by default, not abstract on purpose
        """Release what the executor holds. Idempotent."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


# What a repository's own .git/config or hooks could make git run, switched off by config given
# in the environment (it outranks every config file): a file write is not code execution.
GIT_SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),  # a program git runs on every status
    ("core.hooksPath", "/dev/null"),  # no hooks: pre-commit, post-checkout, ...
    ("protocol.ext.allow", "never"),  # ext:: URLs run a command
)


def git_safe_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with ``GIT_SAFE_CONFIG`` appended after any ``GIT_CONFIG_*`` pairs it holds
    (the later pair wins)."""
    out = dict(env)
    try:
        count = int(out.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        count = 0
    for index, (key, value) in enumerate(GIT_SAFE_CONFIG, start=max(count, 0)):
        out[f"GIT_CONFIG_KEY_{index}"] = key
        out[f"GIT_CONFIG_VALUE_{index}"] = value
    out["GIT_CONFIG_COUNT"] = str(max(count, 0) + len(GIT_SAFE_CONFIG))
    return out


async def _in_thread(func: Callable[[Job], T], job: Job, done: Callable[[], None]) -> T:
    """Run ``func(job)`` on a thread of its own (the default pool may be smaller than the cap),
    then call ``done`` on that thread whatever happens."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def work() -> None:
        # The slot is released before the result is posted: whoever sees the result may
        # count on the slot being free.
        try:
            value = func(job)
        except BaseException as exc:  # handed to the awaiting task, never lost
            done()
            _post(loop, future, None, exc)
        else:
            done()
            _post(loop, future, value, None)

    try:
        threading.Thread(target=work, name="clawgate-exec", daemon=True).start()
    except BaseException:
        done()
        raise
    return await asyncio.shield(future)


def _post(loop: asyncio.AbstractEventLoop, future: asyncio.Future[T], value: T | None,
          exc: BaseException | None) -> None:
    # RuntimeError: the loop closed while the command ran; nobody waits for it any more.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(_settle, future, value, exc)


def _settle(future: asyncio.Future[T], value: T | None, exc: BaseException | None) -> None:
    if future.done():
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(value)  # type: ignore[arg-type]
