"""Executors: run approved commands on the host, in bubblewrap or in Docker, under one spawn cap.

``Executor.run(ExecRequest) -> ExecResult`` (and ``arun`` for asyncio) is the whole contract.
Every executor of a process shares one ``SpawnLimiter`` per cap (5 unless ``Limits`` says
otherwise). A sandbox that is missing raises ``SandboxUnavailable``; nothing falls back to the
host. Executors never decide anything: the caller has decided already.
"""

from __future__ import annotations

from clawgate.executors.base import (
    SAFE_ENV_NAMES,
    TIMEOUT_EXIT,
    ExecRequest,
    ExecResult,
    Executor,
    Limits,
)
from clawgate.executors.bwrap import BwrapExecutor
from clawgate.executors.docker_engine import DockerSettings
from clawgate.executors.docker_exec import DockerExecutor
from clawgate.executors.fake import FakeExecutor
from clawgate.executors.host import HostExecutor
from clawgate.executors.limiter import SpawnLimiter, shared_limiter
from clawgate.executors.settings import executor_from_settings, limits_from_settings

__all__ = [
    "SAFE_ENV_NAMES",
    "TIMEOUT_EXIT",
    "BwrapExecutor",
    "DockerExecutor",
    "DockerSettings",
    "ExecRequest",
    "ExecResult",
    "Executor",
    "FakeExecutor",
    "HostExecutor",
    "Limits",
    "SpawnLimiter",
    "executor_from_settings",
    "limits_from_settings",
    "shared_limiter",
]
