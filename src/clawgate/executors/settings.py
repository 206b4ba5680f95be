"""Executors from a manifest's ``executor`` section (or from CLI flags), without the policy
layer having to know the executors' constructors.

The section's shape is the policy model's: ``kind``, ``timeout_s``, ``max_timeout_s``,
``max_concurrent``, ``queue_timeout_s`` and ``docker: {image, base_url, memory, pids, cpus,
network}``; a pydantic model is accepted as it is (through ``model_dump``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from clawgate.executors.base import Executor, Limits
from clawgate.executors.docker_engine import DockerSettings

KINDS = ("host", "bwrap", "docker")
LIMIT_KEYS = ("timeout_s", "max_timeout_s", "max_concurrent", "queue_timeout_s", "output_cap",
              "kill_grace_s")
SANDBOX_KEYS = ("memory", "pids", "cpus")
_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def parse_memory(value: int | str) -> int:
    """Bytes from ``536870912``, ``"512m"`` or ``"1g"`` (binary units, as Docker reads them)."""
    if isinstance(value, int):
        return value
    match = re.fullmatch(r"\s*([0-9]+)\s*([bkmg]?)\s*", value.lower())
    if match is None:
        raise ValueError(f"not a memory size: {value!r} (use e.g. 512m or 1g)")
    return int(match.group(1)) * _UNITS[match.group(2)]


def _as_mapping(section: Mapping[str, Any] | Any) -> Mapping[str, Any]:
    if hasattr(section, "model_dump"):
        dumped: Mapping[str, Any] = section.model_dump()
        return dumped
    return section if section is not None else {}


def limits_from_settings(section: Mapping[str, Any] | Any) -> Limits:
    """``Limits`` from an executor section; the sandbox limits come from its ``docker`` part."""
    values = _as_mapping(section)
    kwargs: dict[str, Any] = {k: values[k] for k in LIMIT_KEYS if values.get(k) is not None}
    if values.get("queue_timeout_s") == 0:
        kwargs.pop("queue_timeout_s")  # 0: do not wait, the seed behaviour
    docker = _as_mapping(values.get("docker"))
    for key in SANDBOX_KEYS:
        if docker.get(key) is not None:
            kwargs[key] = docker[key]
    if "memory" in kwargs:
        kwargs["memory"] = parse_memory(kwargs["memory"])
    return Limits(**kwargs)


def docker_settings_from(section: Mapping[str, Any] | Any) -> DockerSettings:
    """``DockerSettings`` from an executor section's ``docker`` part (limits go to Limits)."""
    docker = dict(_as_mapping(_as_mapping(section).get("docker")))
    for key in (*SANDBOX_KEYS, "network"):
        docker.pop(key, None)
    return DockerSettings.from_mapping({k: v for k, v in docker.items() if v is not None})


def network_allowed(section: Mapping[str, Any] | Any) -> bool:
    values = _as_mapping(section)
    if "network" in values:
        return bool(values["network"])
    return _as_mapping(values.get("docker")).get("network", "none") not in (None, "none", False)


def executor_from_settings(section: Mapping[str, Any] | Any, *, kind: str | None = None,
                           workspace: str | os.PathLike[str] | None = None,
                           safe_env_names: Iterable[str] | None = None) -> Executor:
    """The executor an executor section asks for (``kind`` overrides the section's). Raises
    SandboxUnavailable when that sandbox is missing; never returns a host executor instead."""
    from clawgate.executors.bwrap import BwrapExecutor
    from clawgate.executors.docker_exec import DockerExecutor
    from clawgate.executors.host import HostExecutor

    values = _as_mapping(section)
    chosen = kind or values.get("kind") or "host"
    if chosen not in KINDS:
        raise ValueError(f"unknown executor {chosen!r}; choose one of {', '.join(KINDS)}")
    common: dict[str, Any] = {"workspace": workspace, "limits": limits_from_settings(values)}
    if safe_env_names is not None:
        common["safe_env_names"] = tuple(safe_env_names)
    if chosen == "host":
        return HostExecutor(**common)
    if chosen == "bwrap":
        return BwrapExecutor(network=network_allowed(values), **common)
    return DockerExecutor(docker_settings_from(values), network=network_allowed(values), **common)
