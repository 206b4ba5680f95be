"""The bubblewrap executor: the host executor's command inside a ``bwrap`` namespace sandbox.

The sandbox sees the system read-only (``/usr`` and its usual symlinks, ``/etc`` with the
password hashes masked), a private ``/tmp``, fresh ``/proc`` and ``/dev``, and no network unless
the policy allows it (a network namespace holding only loopback); over that, the view of
``view.py``: the home directory read-only minus the credential stores, the workspace writable
minus its protected paths, a per-workspace toolchain cache, the active virtual environment's
interpreter, the policy's ``executor.mounts``, and never the guard's state.

The network: none of its own. Unless the policy shares the host's (``network=True``), the
sandbox's programs find this executor's egress proxy (``egress/proxy.py``) on 127.0.0.1:3128
of the sandbox's own network namespace: where this process may join that namespace (root),
the proxy's listening socket is made there before the command starts (``egress/netns.py``);
elsewhere the egress bridge (``egress/bridge.py``) makes it inside and hands it over a Unix
socket bind-mounted in for the run, then becomes the command. Either way the proxy accepts
the connections itself. The proxy judges each by host name against ``executor.network`` and
reports it to ``egress_audit``. All namespaces are unshared, capabilities dropped, the session
is new (no TIOCSTI into the caller's terminal) and the sandbox dies with its parent: a timeout
that kills bwrap kills every process inside its pid namespace, including ones that called
``setsid``.

Unless ``seccomp=False``, the first program run in the sandbox (once bwrap, which needs
``mount``, ``unshare`` and ``pivot_root`` to build it, is done) installs the system-call filter
of ``seccomp_filter.py`` and hands its listener out (a loader compiled once per machine into
the guard's state and shown read-only, else a Python one: ``filterloader.py``), and each
refused call is recorded
(``seccomp_notify.py``) and returned in ``ExecResult.refusals``. A machine where the filter
cannot be installed makes the executor raise SandboxUnavailable: a sandbox that was asked for
a filter never runs without one.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from clawgate.egressrules import EgressRules
from clawgate.errors import SandboxUnavailable
from clawgate.executors import linkpin
from clawgate.executors.base import SAFE_ENV_NAMES, ExecRequest, ExecResult, Executor, Job
from clawgate.executors.bwraplaunch import Launch
from clawgate.executors.cgroups import Containment, with_limit_notes
from clawgate.executors.egress import inside
from clawgate.executors.egress.netns import can_join
from clawgate.executors.egress.opening import Opening
from clawgate.executors.egress.proxy import (
    Connection,
    EgressProxy,
    Lane,
    Resolver,
    Sink,
    system_resolver,
)
from clawgate.executors.filterloader import FilterLoader, choose_loader
from clawgate.executors.mounts import inside_workspace
from clawgate.executors.placeholders import PLACEHOLDERS
from clawgate.executors.process import follow_process
from clawgate.executors.seccomp_filter import supported_machine
from clawgate.executors.seccomp_notify import SyscallWatch, WatchReport
from clawgate.executors.view import Mount, MountSpec, SandboxView, build_view, sandbox_env

SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt")
MASKED_FILES = ("/etc/shadow", "/etc/gshadow", "/etc/sudoers")
PROBE_TIMEOUT_S = 10.0
_LINKPIN = Path(__file__).with_name("linkpin.py")
_WORKS: set[tuple[str, ...]] = set()  # (bwrap, the loader's file, seccomp) probed and working
_PROBE_LOCK = threading.Lock()


class BwrapExecutor(Executor):
    """Runs commands in a bubblewrap sandbox. Raises SandboxUnavailable if bwrap is missing or
    cannot create namespaces here: never a quiet run on the host."""

    name = "bwrap"

    def __init__(self, *, network: bool = False, bwrap: str = "bwrap",
                 safe_env_names: Iterable[str] = SAFE_ENV_NAMES,
                 read_only: Iterable[str | os.PathLike[str]] = (),
                 mounts: Sequence[MountSpec] = (), seccomp: bool = True,
                 egress: EgressRules | None = None,
                 egress_resolver: Resolver = system_resolver,
                 egress_audit: Sink | None = None, **kwargs: Any) -> None:
        super().__init__(safe_env_names=safe_env_names, **kwargs)
        self.network = network
        self.seccomp = seccomp
        self.egress = egress if egress is not None else EgressRules()
        self.egress_audit = egress_audit
        self.proxy = EgressProxy(self.egress, resolve=egress_resolver, sink=self._report)
        self.listen_inside = not network and can_join()  # else through the bridge
        self.read_only = inside_workspace(read_only, self.workspace)
        self.mounts = tuple(mounts)
        found = shutil.which(bwrap)
        if found is None:
            raise SandboxUnavailable(f"bubblewrap ({bwrap!r}) is not installed; install the "
                                     "'bubblewrap' package or choose another executor")
        self.bwrap = found
        with _PROBE_LOCK:  # (one compiler run, where the loader is to be compiled)
            self._loader: FilterLoader | None = self._choose_loader() if seccomp else None
            probe = (self.bwrap, self._loader.host if self._loader else "", str(seccomp))
            if probe not in _WORKS:  # the machine is probed once per process
                if seccomp:
                    self._probe_filter()
                else:
                    self._probe()
                _WORKS.add(probe)

    def view(self) -> SandboxView:
        """What a command started now would see (``view.py``)."""
        return build_view(self.workspace, base=system_view(), private=PRIVATE,
                          read_only=self.read_only, extra=self.mounts)

    def environment(self, request: ExecRequest) -> dict[str, str]:
        """As for every executor, with the toolchains pointed at the view's cache, and a
        ``TMPDIR`` the view does not show writable replaced by the sandbox's own ``/tmp`` (the
        request's own values win)."""
        env = super().environment(request)
        extra = {**sandbox_env(self.workspace), **({} if self.network else inside.proxy_env())}
        if "TMPDIR" in env and not self._writable_inside(env["TMPDIR"]):
            extra["TMPDIR"] = "/tmp"
        for name, value in extra.items():
            if name not in (request.env or {}):
                env[name] = value
        return env

    def _writable_inside(self, path: str) -> bool:
        """Whether a command in the sandbox can make files in ``path``: ``/tmp`` (private,
        fresh for each run) or a directory the view shows read-write (a host ``TMPDIR`` such
        as ``/var/tmp/me`` or ``/tmp/user-1000`` is not there)."""
        real = os.path.realpath(path)
        return real == "/tmp" or (os.path.isdir(real)
                                   and self.view().mode_of(real) == "read-write")

    def sandbox_argv(self, job: Job, channel: int | None = None,
                     lane: Lane | None = None, opening: Opening | None = None,
                     view: SandboxView | None = None) -> list[str]:
        """The bwrap command line that runs ``job.argv`` in the sandbox; given the fd of a
        ``SyscallWatch``'s channel, under the system-call filter; behind the egress bridge
        when ``lane``, the run's proxy sockets, is given (the filter covers the bridge too);
        held until the proxy listens inside when ``opening`` is given; with ``view`` (its
        placeholders' mount points made: ``placeholders.py``), else the view of now."""
        return [self.bwrap, *self.confinement(), *self.options(job, channel, lane, opening,
                                                                 view),
                "--", *self.command(job, channel, lane)]

    def confinement(self) -> list[str]:
        """``sandbox_argv``'s first options: the namespaces, the capabilities, the session
        (on bwrap's own command line when its other options come later: a bwrap that never
        got them runs in an empty root, confined all the same)."""
        return ["--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL",
                *(["--share-net"] if self.network else [])]

    def options(self, job: Job, channel: int | None = None, lane: Lane | None = None,
                opening: Opening | None = None, view: SandboxView | None = None
                ) -> list[str]:
        """``sandbox_argv``'s options after ``confinement`` (up to ``--``)."""
        argv: list[str] = []
        if opening is not None:
            argv += opening.bwrap_args()
        argv += _system_binds()
        if channel is not None and self._loader is not None:
            argv += self._loader.binds
        if lane is not None and (channel is None or self._loader is None
                                 or self._loader.compiled):  # else the loader's Python runs it
            prefix = inside.interpreter()[1]
            argv += ["--ro-bind", prefix, prefix]
        argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        argv += view_args(self.view() if view is None else view)
        if lane is not None:
            argv += ["--ro-bind", os.fspath(inside.BRIDGE_SOURCE), inside.INSIDE_BRIDGE,
                     "--ro-bind", lane.directory, inside.INSIDE_DIR]
        return [*argv, "--chdir", os.fspath(job.cwd)]

    def command(self, job: Job, channel: int | None = None, lane: Lane | None = None
                ) -> list[str]:
        """``sandbox_argv``'s command (all that comes after ``--``)."""
        if channel is not None and self._loader is not None:
            return self._loader.command(channel, job.argv, bridge=lane is not None)
        if lane is not None:
            return inside.bridged(job.argv, inside.interpreter()[0])
        return list(job.argv)

    def close(self) -> None:
        """Remove the placeholders of the workspace now where no run uses them
        (``placeholders.py``; else they go once it has had no run for a moment)."""
        PLACEHOLDERS.settle(self.workspace)

    def _report(self, connection: Connection) -> None:
        """Hand a connection to ``egress_audit`` (the Guard sets it to its audit log)."""
        if self.egress_audit is not None:
            self.egress_audit(connection)

    def _execute(self, job: Job) -> ExecResult:
        """In a control group limited to ``Limits.pids`` processes and ``Limits.memory`` bytes
        where the machine lets us make one (a fork loop or a memory hog stays inside); else
        under ``prlimit`` (``RLIMIT_NPROC``, which does not bind root, and ``RLIMIT_DATA``, the
        heap and private writable mappings: unlike ``RLIMIT_AS`` it leaves the address space
        runtimes reserve alone). bwrap's pid namespace already ends every process when the
        command does. bwrap is started before its options are built, and waits for them
        (``bwraplaunch.py``)."""
        with contextlib.ExitStack() as stack:
            # the placeholders go last, once the rest is down (``placeholders.py``)
            held = stack.enter_context(PLACEHOLDERS.hold(self.workspace))
            watch = stack.enter_context(SyscallWatch()) if self.seccomp else None
            lane = None if self.network else stack.enter_context(
                self.proxy.lane(shlex.join(job.argv), unix=not self.listen_inside))
            containment = Containment.create(pids=self.limits.pids, memory=self.limits.memory)
            port: int | None = None
            ready: Callable[[socket.socket], None] = _none
            if lane is not None and self.listen_inside:  # else through the bridge
                port, ready = inside.BRIDGE_PORT, functools.partial(self.proxy.accept_on, lane)
            opening = stack.enter_context(Opening(port, ready, lazy=True))
            if lane is not None and port is None:  # the bridge hands its listener over
                self.proxy.await_listener(lane, inside.BRIDGE_PORT)
            if containment is not None:
                stack.enter_context(containment)
            channel = None if watch is None else watch.child_fd
            bridge = None if port is not None else lane
            start = time.monotonic()
            launch = Launch(
                [*([self.bwrap] if containment is not None else
                   _rlimited([self.bwrap], self.limits.pids, self.limits.memory)),
                 *self.confinement()],
                self.command(job, channel, bridge), cwd=job.cwd, env=job.env,
                pass_fds=(*(() if channel is None else (channel,)), *opening.fds),
                containment=containment)
            opening.start()  # (once bwrap is on its way)
            if launch.proc is None:
                assert launch.failed is not None
                return launch.failed
            try:
                view = held.claim(self.view())
                links = [mount.path for mount in view.mounts if mount.link]
                opening.steps = (functools.partial(pin_links, links),) if links else ()
            except BaseException:
                launch.abandon()
                raise
            proc = launch.give(self.options(job, channel, bridge, opening, view))
            result = follow_process(proc, start, timeout_s=job.timeout_s,
                                    output_cap=job.output_cap, kill_grace_s=job.kill_grace_s,
                                    containment=containment)
            result = with_limit_notes(result, containment, pids=self.limits.pids,
                                      memory=self.limits.memory)
        return self._checked(result, lane, opening, watch)

    def _checked(self, result: ExecResult, lane: Lane | None, opening: Opening,
                 watch: SyscallWatch | None) -> ExecResult:
        """The run's result, or SandboxUnavailable where its sandbox was not set up whole."""
        handoff_failure = lane.handoff_failure if lane is not None else None
        if opening.failure is not None and not result.timed_out:
            # (a run its time limit ended first takes its sandbox, and the namespace the
            # listener was being made in, with it: that run timed out, and says so)
            raise SandboxUnavailable(f"the sandbox could not be set up ({opening.failure}); "
                                     "the command was not run")
        if handoff_failure is not None and not result.timed_out:
            raise SandboxUnavailable(f"the sandbox's egress proxy could not be set up: "
                                     f"{handoff_failure}; the command was not run")
        return result if watch is None else _with_refusals(result, watch.report)

    def _probe(self) -> None:
        """Run ``true`` in a sandbox once: user namespaces may be disabled on this machine.
        The machine is probed, not the workspace (which may not exist yet)."""
        argv = [self.bwrap, "--die-with-parent", "--new-session", "--unshare-all",
                "--cap-drop", "ALL", *_system_binds(), "--proc", "/proc", "--dev", "/dev",
                "--chdir", "/", "--", "true"]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, check=False,
                                  timeout=PROBE_TIMEOUT_S, env=self.environment(
                                      ExecRequest(["true"])))
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxUnavailable(f"bubblewrap cannot start: {exc}") from exc
        if done.returncode != 0:
            raise SandboxUnavailable(f"bubblewrap cannot create its sandbox here: "
                                     f"{done.stderr.strip() or done.returncode}")

    def _choose_loader(self) -> FilterLoader:
        """What installs the filter inside the sandbox (``filterloader.py``): compiled where
        the machine has a C compiler, else a Python one."""
        if not supported_machine():
            raise SandboxUnavailable("the sandbox's system-call filter is written for x86_64; "
                                     "set executor.seccomp.enabled: false to run without it")
        return choose_loader(self.workspace)

    def _probe_filter(self) -> None:
        """``_probe``, under the filter: the kernel may lack seccomp or its user notification
        (Linux 5.0), or a filter above us may already have a listener."""
        assert self._loader is not None
        with SyscallWatch() as watch:
            argv = [self.bwrap, "--die-with-parent", "--new-session", "--unshare-all",
                    "--cap-drop", "ALL", *_system_binds(), *self._loader.binds,
                    "--proc", "/proc", "--dev", "/dev", "--chdir", "/", "--",
                    *self._loader.command(watch.child_fd, ["true"])]
            try:
                done = subprocess.run(argv, capture_output=True, text=True, check=False,
                                      timeout=PROBE_TIMEOUT_S, pass_fds=(watch.child_fd,),
                                      env=self.environment(ExecRequest(["true"])))
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise SandboxUnavailable(f"bubblewrap cannot start: {exc}") from exc
        if watch.report.failure is not None:
            raise SandboxUnavailable(f"the sandbox's system-call filter cannot be installed "
                                     f"here: {watch.report.failure}; set "
                                     "executor.seccomp.enabled: false to run without it")
        if done.returncode != 0 or not watch.report.installed:
            raise SandboxUnavailable(f"bubblewrap cannot create its sandbox here: "
                                     f"{done.stderr.strip() or done.returncode}")


def _with_refusals(result: ExecResult, report: WatchReport) -> ExecResult:
    """The run's result with what its filter refused. A loader that could not install the
    filter ran nothing: that is the sandbox failing, not the command."""
    if report.failure is not None:
        raise SandboxUnavailable(f"the sandbox's system-call filter could not be installed: "
                                 f"{report.failure}")
    if not report.counts:
        return result
    return replace(result, refusals=tuple(report.refusals),
                   refusal_counts=tuple((name, kind, count)
                                        for (name, kind), count in report.counts.items()))


def _rlimited(argv: list[str], pids: int, memory: int) -> list[str]:
    """``argv`` under ``prlimit`` with the process and data limits (util-linux; without it
    the command runs with the pid namespace's containment only, as the README says)."""
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return argv
    return [prlimit, f"--nproc={pids}", f"--data={memory}", "--", *argv]


PRIVATE = ("/tmp (empty, private to the run)", "/proc (the sandbox's own processes)",
           "/dev (a minimal set of devices)")


def system_view() -> tuple[Mount, ...]:
    """The system directories ``_system_binds`` shows, as view entries."""
    shown = [Mount(os.path.realpath(f"/{name}"), "read-only", "the system")
             for name in SYSTEM_DIRS if Path("/", name).is_dir()
             and not Path("/", name).is_symlink()]
    return (*shown, *(Mount(masked, "hidden", "the system's password hashes and sudo rules",
                            is_dir=False) for masked in MASKED_FILES if Path(masked).exists()))


def view_args(view: SandboxView) -> list[str]:
    """bwrap arguments for ``view``'s mounts, parents first. A hidden directory is an empty
    tmpfs made read-only at the end (once what lies below it is mounted), a hidden file an
    empty read-only one. A placeholder is an empty tmpfs no one may write to (mode 0555:
    whoever changes the mode writes to memory that is gone with the sandbox)."""
    args: list[str] = []
    remount: list[str] = []
    for mount in view.mounts:
        if mount.link:  # bwrap mounts no link: held once the sandbox stands (``pin_links``)
            continue
        if mount.placeholder:  # a tmpfs needs no remount: bwrap's remounts cost a run most
            args += ["--perms", "0555", "--tmpfs", mount.path]
        elif mount.mode == "read-only":
            args += ["--ro-bind", mount.path, mount.path]
        elif mount.mode == "read-write":
            args += ["--bind", mount.path, mount.path]
        elif mount.is_dir:
            args += ["--tmpfs", mount.path]
            remount += ["--remount-ro", mount.path]
        else:
            args += ["--ro-bind", "/dev/null", mount.path]
    return args + remount


def _none(_listener: socket.socket) -> None:
    """No proxy to hand a listener to (none is made)."""


def pin_links(paths: Sequence[str], info: dict[str, Any], in_process: bool | None = None
              ) -> None:
    """Hold each of ``paths`` (links) in the sandbox bwrap reported (``info``) by mounting it
    onto itself (``linkpin.py``): on a thread of ours where this process holds
    ``CAP_SYS_ADMIN`` (``in_process``, by default), else in a process of its own. Raises
    OSError."""
    pid, inode = int(info["child-pid"]), int(info["mnt-namespace"])
    if can_join() if in_process is None else in_process:
        linkpin.pin_in_thread(pid, inode, list(paths))
        return
    argv = [sys.executable, "-I", "-S", os.fspath(_LINKPIN), str(pid), str(inode), *paths]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=False,
                              timeout=PROBE_TIMEOUT_S, env={})
    except subprocess.TimeoutExpired as exc:
        raise OSError(0, "holding the protected links took too long") from exc
    if done.returncode != 0:
        raise OSError(0, f"holding the protected links: {done.stderr.strip()}")


def _system_binds() -> list[str]:
    """Read-only binds of the system directories that exist; symlinks (merged /usr) recreated."""
    args: list[str] = []
    for name in SYSTEM_DIRS:
        path = Path("/", name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), f"/{name}"]
        elif path.is_dir():
            args += ["--ro-bind", f"/{name}", f"/{name}"]
    for masked in MASKED_FILES:
        if Path(masked).exists():
            args += ["--ro-bind", "/dev/null", masked]
    return args
