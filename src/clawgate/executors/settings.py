"""Executors from a manifest's ``executor`` section (or from CLI flags), without the policy
layer having to know the executors' constructors.

The section's shape is the policy model's: ``kind``, ``timeout_s``, ``max_timeout_s``,
``max_concurrent``, ``queue_timeout_s``, ``repo_programs``, ``mounts: [{path, mode, reason}]``
(what a sandbox shows besides its default view: ``view.py``), ``seccomp: {enabled, ...}`` (the
bubblewrap sandbox's system-call filter; the rest of it is the Guard's), ``network:
{allowed_domains, denied_domains, allow_loopback_ports}`` (what the egress proxy lets a
bubblewrap sandbox or a Docker container reach: ``egress/``) and ``docker: {image,
base_url, memory, pids, cpus, network}``; a pydantic model is accepted as it is (through
``model_dump``). ``share_network: true`` (``policy run --network``) shares the host's
network with the sandbox, as a ``docker.network`` other than ``none`` does (and ``network:
true``, the spelling from before the egress proxy); there is no proxy then.

``kind: auto`` (the embedded default's) is bubblewrap where ``bwrap`` works on this machine,
else the host, with one warning line logged (``clawgate.executors``, which Python prints on
stderr when nothing else handles it). ``host``, ``bwrap`` and ``docker`` are taken as written:
a missing sandbox is an error, and an explicit ``host`` is silent.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from clawgate.egressrules import EgressRules
from clawgate.errors import SandboxUnavailable
from clawgate.executors.base import Executor, Limits
from clawgate.executors.docker_engine import DockerSettings
from clawgate.executors.view import MountSpec

KINDS = ("auto", "host", "bwrap", "docker")
LIMIT_KEYS = ("timeout_s", "max_timeout_s", "max_concurrent", "queue_timeout_s", "output_cap",
              "kill_grace_s", "repo_programs")
LOG = logging.getLogger("clawgate.executors")
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
    """Whether the sandbox shares the host's network, around the egress proxy."""
    values = _as_mapping(section)
    if values.get("share_network") or values.get("network") is True:  # True: the old spelling
        return True
    return _as_mapping(values.get("docker")).get("network", "none") not in (None, "none", False)


def egress_from_settings(section: Mapping[str, Any] | Any) -> EgressRules:
    """The egress rules of an executor section's ``network`` part (defaults where unset)."""
    network = _as_mapping(section).get("network")
    return EgressRules.from_mapping(dict(_as_mapping(network)) if isinstance(
        network, Mapping) or hasattr(network, "model_dump") else None)


def executor_from_settings(section: Mapping[str, Any] | Any, *, kind: str | None = None,
                           workspace: str | os.PathLike[str] | None = None,
                           safe_env_names: Iterable[str] | None = None,
                           read_only: Iterable[str] = ()) -> Executor:
    """The executor an executor section asks for (``kind`` overrides the section's). Raises
    SandboxUnavailable when that sandbox is missing; only ``auto`` runs on the host instead,
    and says so. ``read_only``: files inside the workspace a sandbox mounts read-only (the
    guard's own state: loaded policy files); the host executor cannot protect them."""
    from clawgate.executors.bwrap import BwrapExecutor
    from clawgate.executors.docker_exec import DockerExecutor
    from clawgate.executors.host import HostExecutor

    values = _as_mapping(section)
    chosen = kind or values.get("kind") or "auto"
    if chosen not in KINDS:
        raise ValueError(f"unknown executor {chosen!r}; choose one of {', '.join(KINDS)}")
    common: dict[str, Any] = {"workspace": workspace, "limits": limits_from_settings(values)}
    if safe_env_names is not None:
        common["safe_env_names"] = tuple(safe_env_names)
    sandbox: dict[str, Any] = {"network": network_allowed(values), "read_only": tuple(read_only),
                               "mounts": mounts_from_settings(values)}
    bwrap = {**sandbox, "egress": egress_from_settings(values),
             "seccomp": seccomp_enabled(values)}
    if chosen == "auto":
        try:
            return BwrapExecutor(**bwrap, **common)
        except SandboxUnavailable as exc:
            LOG.warning(host_warning(exc))
            return HostExecutor(**common)
    if chosen == "host":
        return HostExecutor(**common)
    if chosen == "bwrap":
        return BwrapExecutor(**bwrap, **common)
    return DockerExecutor(docker_settings_from(values), **sandbox,
                          egress=egress_from_settings(values), **common)


def seccomp_enabled(section: Mapping[str, Any] | Any) -> bool:
    """``executor.seccomp.enabled``: the bubblewrap sandbox's system-call filter (default on)."""
    return bool(_as_mapping(_as_mapping(section).get("seccomp")).get("enabled", True))


def mounts_from_settings(section: Mapping[str, Any] | Any) -> tuple[MountSpec, ...]:
    """The ``mounts`` entries of an executor section (what a policy adds to a sandbox's
    view); an unknown key or mode is an error."""
    entries = _as_mapping(section).get("mounts") or ()
    return tuple(MountSpec.from_mapping(_as_mapping(entry)) for entry in entries)


def host_warning(exc: Exception) -> str:
    """The one line ``kind: auto`` logs when it falls back to the host."""
    why = " ".join(str(exc).split())[:200]
    return (f"clawgate: no working bubblewrap here ({why}); commands run on the host with "
            "your privileges (set executor.kind: host to accept that silently, or bwrap or "
            "docker to require a sandbox)")
