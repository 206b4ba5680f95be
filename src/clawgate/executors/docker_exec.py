"""The Docker executor: commands in containers on a real engine, through the Docker SDK.

Every container gets no network of its own (unless the policy shares the host's: a
``docker.network`` other than ``none``), a read-only root, all
capabilities dropped, ``no-new-privileges``, memory, CPU and pid limits, a small private
``/tmp``, an init that reaps orphans, the workspace at ``/workspace``, and the rest of the
sandbox's view (``view.py``) bound at the same paths as on the host: the home directory
read-only minus the credential stores (each an empty read-only tmpfs or an empty file), the
workspace's protected paths and loaded policy files read-only, a per-workspace toolchain
cache, the active virtual environment's interpreter, the policy's ``executor.mounts``; never
the guard's state. The system is the image's: the view's system entries are bubblewrap's.
Two modes:

- warm (the default): one container per executor — per session — started on first use and
  reused with ``exec`` (tens of milliseconds instead of a container start). Each exec runs in a
  process group of its own that is killed when the command ends, and everything the command
  started carries a mark of that exec in its environment: what left the group (``setsid``) is
  found by the mark and killed too, and so is an orphan that left the group and emptied its
  environment (``setsid env -i …``: it carries no exec's mark), so nothing it left running
  survives into the next call, while commands of other calls running in the same container
  (and their orphans, which carry their mark) are left alone. The container
  is removed by ``close()`` (or ``with``), and at interpreter exit for executors never closed.
- per call: a fresh container per command, removed afterwards.

A timeout kills the container. Errors of the SDK become clawgate errors in ``docker_engine``.

The network: a container's only interface is its loopback, and its only way out is the
egress proxy (``egress/proxy.py``), as for bubblewrap. For each run the executor makes the
proxy's listening socket inside the container's network namespace (``egress/netns.py``: a
thread of this process joins it, binds 127.0.0.1 on a free port and leaves), points the
run's ``HTTP_PROXY``/``ALL_PROXY`` at that port, and the proxy accepts there, in this
process: no program of ours runs in the container and no byte crosses a second hop. The
proxy judges each connection by host name against ``executor.network`` and reports it to
``egress_audit``; nothing resolves inside (no resolver is reachable). Joining the namespace
needs root, and the container's process must be visible here (a local engine): else the
run fails with SandboxUnavailable, never with more network. A per-call container is started
idle and the command runs in it by ``exec`` once the proxy listens (then it is removed).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shlex
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from clawgate.egressrules import EgressRules
from clawgate.errors import ExecutorError, SandboxUnavailable
from clawgate.executors import containerlinks
from clawgate.executors.base import TIMEOUT_EXIT, ExecRequest, ExecResult, Executor, Job
from clawgate.executors.docker_engine import (
    DockerSettings,
    connect,
    sdk,
    sdk_errors,
    sdk_failures,
)
from clawgate.executors.docker_stream import collect, result_of
from clawgate.executors.egress import inside
from clawgate.executors.egress.netns import NamespaceUnavailable, listen_in
from clawgate.executors.egress.proxy import (
    Connection,
    EgressProxy,
    Resolver,
    Sink,
    system_resolver,
)
from clawgate.executors.mounts import inside_workspace
from clawgate.executors.placeholders import PLACEHOLDERS
from clawgate.executors.view import Mount, MountSpec, SandboxView, build_view, sandbox_env

WORKSPACE = "/workspace"
KEEPALIVE = ["sleep", "2147483647"]
# Runs the command in a process group of its own with the exec's mark in its environment (not
# in the wrapper's), then kills that group and, until none is left, every process carrying the
# mark: a `sleep 1000 &` and a `setsid sleep 1000 &` die with their command, and the exec's
# output stream closes as soon as the command is over. An orphan (its parent is the init,
# pid 1) that carries no exec's mark at all left its group and emptied its environment
# (`setsid env -i sleep 1000 &`): it dies too. The keep-alive, the init's first child, stays;
# so do the orphans of other execs still running, which carry their own exec's mark.
GROUP_WRAPPER = (
    'm=$1; shift; '
    'if command -v setsid >/dev/null 2>&1; then CLAWGATE_RUN=$m setsid "$@" & '
    'else CLAWGATE_RUN=$m "$@" & fi; '
    'p=$!; wait "$p"; r=$?; kill -9 -"$p" 2>/dev/null; '
    'o() { grep -q "^PPid:[[:space:]]*1$" "$1" 2>/dev/null '
    '&& ! grep -q "^State:[[:space:]]*Z" "$1" 2>/dev/null; }; '
    'k=; for s in /proc/[0-9]*/status; do q=${s#/proc/}; q=${q%/status}; '
    'if o "$s" && { [ -z "$k" ] || [ "$q" -lt "$k" ]; }; then k=$q; fi; done; n=0; '
    'while [ "$n" -lt 50 ]; do f=0; for s in /proc/[0-9]*/status; do '
    'q=${s#/proc/}; q=${q%/status}; e=/proc/$q/environ; '
    '{ [ "$q" = 1 ] || [ "$q" = "$k" ]; } && continue; '
    'if tr "\\000" "\\n" < "$e" 2>/dev/null | grep -qxF "CLAWGATE_RUN=$m"; then '
    'kill -9 "$q" 2>/dev/null; f=1; '
    'elif o "$s" && ! tr "\\000" "\\n" < "$e" 2>/dev/null | grep -q "^CLAWGATE_RUN="; then '
    'kill -9 "$q" 2>/dev/null; f=1; fi; done; '
    '[ "$f" = 0 ] && break; n=$((n+1)); done; exit "$r"')
DOCKER_ENV_NAMES = ("LANG", "LC_ALL", "TERM", "TZ")  # the image sets PATH; HOME: the view's
PRIVATE = ("/ (the image, read-only)", "/tmp (empty, private to the container)")
HIDDEN_DIR = "ro,nosuid,nodev,noexec,size=4k,mode=0500"
HIDDEN_DIR_HOLDING = "rw,nosuid,nodev,noexec,size=4k,mode=0755"  # something is mounted below
API_TIMEOUT_S = 60.0  # any one API call; an output stream gets its command's timeout + margin


class DockerExecutor(Executor):
    """Runs commands in containers. Raises SandboxUnavailable when no engine answers or the image
    is missing: never a quiet run on the host. Close it (or use ``with``) to remove the warm
    container."""

    name = "docker"

    def __init__(self, settings: DockerSettings | None = None, *, network: bool = False,
                 safe_env_names: Iterable[str] = DOCKER_ENV_NAMES,
                 read_only: Iterable[str | os.PathLike[str]] = (),
                 mounts: Sequence[MountSpec] = (), egress: EgressRules | None = None,
                 egress_resolver: Resolver = system_resolver,
                 egress_audit: Sink | None = None, **kwargs: Any) -> None:
        super().__init__(safe_env_names=safe_env_names, **kwargs)
        self.settings = settings or DockerSettings()
        self.network = network
        self.egress = egress if egress is not None else EgressRules()
        self.egress_audit = egress_audit
        self.proxy = EgressProxy(self.egress, resolve=egress_resolver, sink=self._report)
        self.read_only = inside_workspace(read_only, self.workspace)
        self.mounts = tuple(mounts)
        self._client = connect(self.settings, API_TIMEOUT_S)
        self._lock = threading.Lock()
        self._warm: Any = None
        self._warm_hold: contextlib.ExitStack | None = None  # its placeholders
        self._killed: set[str] = set()

    def environment(self, request: ExecRequest) -> dict[str, str]:
        """As for every executor, except that the image's PATH stays unless the request sets one:
        the host's PATH names the host's directories."""
        env = super().environment(request)
        if "PATH" not in (request.env or {}):
            env.pop("PATH", None)
        home = os.environ.get("HOME")
        extra = {**({"HOME": home} if home else {}), **sandbox_env(self.workspace)}
        for name, value in extra.items():
            if name not in (request.env or {}):
                env[name] = self._inside(value)
        return env

    def view(self) -> SandboxView:
        """What a container started now sees of the host (``view.py``), at the host's paths
        (the workspace's at ``/workspace``)."""
        return build_view(self.workspace, private=PRIVATE, read_only=self.read_only,
                          extra=self.mounts)

    def container_config(self, view: SandboxView | None = None) -> dict[str, Any]:
        """What every container gets, as keyword arguments of ``containers.create``: ``view``
        (its placeholders' mount points made: ``placeholders.py``), else the view of now."""
        limits = self.limits
        binds, tmpfs = self._view_config(self.view() if view is None else view)
        config: dict[str, Any] = {
            "image": self.settings.image, "detach": True, "init": True, "read_only": True,
            "cap_drop": ["ALL"], "security_opt": ["no-new-privileges"],
            "mem_limit": limits.memory, "memswap_limit": limits.memory,
            "pids_limit": limits.pids, "nano_cpus": int(limits.cpus * 1e9),
            "tmpfs": {"/tmp": "rw,nosuid,nodev,size=64m", **tmpfs}, "mounts": binds,
            "working_dir": WORKSPACE, "labels": {"org.clawgate.sandbox": self.name},
            "user": self.settings.user or f"{os.getuid()}:{os.getgid()}",
            "log_config": {"type": "none"},
        }
        if not self.network:
            config["network_mode"] = "none"
        return config

    def _view_config(self, view: SandboxView) -> tuple[list[Any], dict[str, str]]:
        """The view as Docker ``mounts`` (binds; a hidden file is ``/dev/null`` read-only) and
        ``tmpfs`` entries (a hidden directory: empty, read-only unless something is mounted
        below it). The engine applies them parents first."""
        types = sdk().types
        binds: list[Any] = []
        tmpfs: dict[str, str] = {}
        for mount in view.mounts:
            target = self._inside(mount.path)
            if mount.link:  # a bind follows a link: held once the container runs (``_hold_links``)
                continue
            if mount.mode != "hidden":
                binds.append(types.Mount(target, mount.path, type="bind",
                                         read_only=mount.mode == "read-only"))
            elif mount.is_dir:
                tmpfs[target] = HIDDEN_DIR_HOLDING if _holds(mount, view) else HIDDEN_DIR
            else:
                binds.append(types.Mount(target, "/dev/null", type="bind", read_only=True))
        return binds, tmpfs

    def _inside(self, path: str) -> str:
        """A host path as the container sees it: the workspace's under ``/workspace``, the
        others where they are."""
        if not Path(path).is_relative_to(self.workspace):
            return path
        relative = Path(path).relative_to(self.workspace).as_posix()
        return WORKSPACE if relative == "." else f"{WORKSPACE}/{relative}"

    def _execute(self, job: Job) -> ExecResult:
        with sdk_errors(self.settings, "running a command"):
            if self.settings.warm:
                return self._exec_warm(job)
            return self._run_cold(job)

    def _workdir(self, job: Job) -> str:
        relative = job.relative_cwd.as_posix()
        return WORKSPACE if relative == "." else f"{WORKSPACE}/{relative}"

    def _exec_warm(self, job: Job) -> ExecResult:
        """In the warm container; a container that died since (OOM, removed by hand) is
        replaced once."""
        for attempt in (1, 2):
            container = self._warm_container()
            try:
                return self._exec_in(container, job, functools.partial(self._kill_warm,
                                                                       container))
            except _Gone as gone:
                if attempt == 2:
                    raise gone.cause from None
                self._forget(container)
        raise AssertionError("unreachable")

    def _exec_in(self, container: Any, job: Job, on_timeout: Callable[[], None]) -> ExecResult:
        """``job`` by ``exec`` in a running ``container``, behind the egress proxy unless the
        network is shared. Raises _Gone when the container is no longer there."""
        start = time.monotonic()
        api = self._client.api
        with contextlib.ExitStack() as stack:
            env = job.env if self.network else self._behind_proxy(container, job, stack)
            argv = ["sh", "-c", GROUP_WRAPPER, "clawgate", os.urandom(8).hex(), *job.argv]
            try:
                exec_id = api.exec_create(container.id, argv, environment=env,
                                          workdir=self._workdir(job))["Id"]
            except sdk().errors.APIError as exc:
                if exc.status_code in (404, 409):
                    raise _Gone(exc) from exc
                raise
            stream = api.exec_start(exec_id, stream=True, demux=True)
            out, err, timed_out = collect(stream, job, on_timeout)
        if timed_out:
            return result_of(TIMEOUT_EXIT, out, err, start, timed_out=True)
        if container.id in self._killed:
            raise ExecutorError("the session's container was killed by the timeout of another "
                                "command while this one ran; run it again")
        code = api.exec_inspect(exec_id)["ExitCode"]
        return result_of(code if code is not None else 1, out, err, start)

    def _behind_proxy(self, container: Any, job: Job, stack: contextlib.ExitStack) -> dict[
            str, str]:
        """The run's environment pointed at a proxy lane that listens inside ``container``'s
        network namespace, open until ``stack`` closes (after the run: its connections are
        then all in the audit)."""
        pid = self._container_pid(container)
        try:
            listener = listen_in(pid, belongs=functools.partial(_runs, container.id, pid))
        except NamespaceUnavailable as exc:
            raise SandboxUnavailable(f"the container's egress proxy cannot be set up: {exc} "
                                     f"(engine: {self.settings.where()}); nothing was run"
                                     ) from exc
        stack.enter_context(self.proxy.lane(shlex.join(job.argv), listener))
        env = dict(job.env)
        for name, value in inside.proxy_env(listener.getsockname()[1]).items():
            if name not in (job.request.env or {}):
                env[name] = value
        return env

    def _links(self, view: SandboxView) -> list[str]:
        """The view's protected links, as the container sees them."""
        return [self._inside(mount.path) for mount in view.mounts if mount.link]

    def _hold_links(self, container: Any, links: Sequence[str]) -> None:
        """Hold ``links`` in the running ``container`` before anything runs in it
        (``containerlinks.py``). Raises SandboxUnavailable."""
        if not links:
            return
        try:
            pid = self._container_pid(container)
        except _Gone as gone:
            raise SandboxUnavailable(f"the container ended before its protected links were "
                                     f"held: {gone.cause}; nothing was run") from gone.cause
        containerlinks.hold(pid, links, functools.partial(_runs, container.id, pid))

    def _container_pid(self, container: Any) -> int:
        """The container's first process, as the engine reports it (``listen_in`` checks it
        is that container's). Raises _Gone when the container is not running."""
        try:
            container.reload()
        except sdk().errors.NotFound as exc:
            raise _Gone(exc) from exc
        pid = int(container.attrs.get("State", {}).get("Pid") or 0)
        if pid <= 0:
            raise _Gone(ExecutorError("the container is not running"))
        return pid

    def _run_cold(self, job: Job) -> ExecResult:
        with PLACEHOLDERS.hold(self.workspace) as held:
            view = held.claim(self.view())
            links = self._links(view)
            if not self.network or links:  # idle until the proxy listens inside it and its
                container = self._client.containers.run(  # links are held, then the command
                    **(self.container_config(view) | {"command": KEEPALIVE}))
                try:
                    self._hold_links(container, links)
                    return self._exec_in(container, job, lambda: _kill(container))
                except _Gone as gone:
                    raise gone.cause from None
                finally:
                    _remove(container)
            config = self.container_config(view) | {
                "command": job.argv, "environment": job.env, "working_dir": self._workdir(job)}
            return self._run_container(config, job, time.monotonic())

    def _run_container(self, config: dict[str, Any], job: Job, start: float) -> ExecResult:
        container = self._client.containers.create(**config)
        try:
            stream = self._client.api.attach(container.id, stdout=True, stderr=True, stream=True,
                                             logs=False, demux=True)
            container.start()
            out, err, timed_out = collect(stream, job, lambda: _kill(container))
            code = TIMEOUT_EXIT if timed_out else container.wait(
                timeout=API_TIMEOUT_S)["StatusCode"]
        finally:
            container.remove(force=True)
        return result_of(code, out, err, start, timed_out=timed_out)

    def _forget(self, container: Any) -> None:
        with self._lock:
            hold = None
            if self._warm is container:
                self._warm, hold, self._warm_hold = None, self._warm_hold, None
        _remove(container)
        if hold is not None:
            hold.close()

    def _report(self, connection: Connection) -> None:
        """Hand a connection to ``egress_audit`` (the Guard sets it to its audit log)."""
        if self.egress_audit is not None:
            self.egress_audit(connection)

    def _warm_container(self) -> Any:
        """The session's container; its placeholders are held until it is removed."""
        with self._lock:
            if self._warm is None:
                hold = contextlib.ExitStack()
                try:
                    held = hold.enter_context(PLACEHOLDERS.hold(self.workspace))
                    view = held.claim(self.view())
                    container = self._client.containers.run(
                        **(self.container_config(view) | {"command": KEEPALIVE}))
                    try:
                        self._hold_links(container, self._links(view))
                    except BaseException:
                        _remove(container)
                        raise
                    self._warm = container
                except BaseException:
                    hold.close()
                    raise
                self._warm_hold = hold
                _LEFT_RUNNING.add(self)
            return self._warm

    def _kill_warm(self, container: Any) -> None:
        """A timeout: the session's container dies; the next call starts a fresh one."""
        self._killed.add(container.id)
        self._forget(container)

    def close(self) -> None:
        with self._lock:
            warm, self._warm = self._warm, None
            hold, self._warm_hold = self._warm_hold, None
        _LEFT_RUNNING.discard(self)
        if warm is not None:
            _remove(warm)
        if hold is not None:
            hold.close()
        PLACEHOLDERS.settle(self.workspace)
        self._client.close()


_LEFT_RUNNING: weakref.WeakSet[DockerExecutor] = weakref.WeakSet()


class _Gone(Exception):
    """The container an exec was meant for is gone (``cause``: what said so)."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


@atexit.register
def _close_left_running() -> None:
    """Warm containers of executors nobody closed do not outlive the interpreter."""
    for executor in list(_LEFT_RUNNING):
        with contextlib.suppress(Exception):
            executor.close()


def _holds(hidden: Mount, view: SandboxView) -> bool:
    """Whether anything of ``view`` is mounted below the hidden directory."""
    return any(m.path.startswith(hidden.path.rstrip("/") + "/") for m in view.mounts)


def _runs(container_id: str, pid: int) -> bool:
    """Whether process ``pid`` of this machine is in container ``container_id`` (its control
    group names it): false for a remote engine's pid, or one reused since."""
    try:
        groups = Path(f"/proc/{pid}/cgroup").read_text(encoding="utf-8")
    except OSError:
        return False
    return container_id in groups


def _kill(container: Any) -> None:
    with contextlib.suppress(*sdk_failures()):  # already gone: the stream ends either way
        container.kill()


def _remove(container: Any) -> None:
    with contextlib.suppress(*sdk_failures()):  # already removed: nothing left to release
        container.remove(force=True)
