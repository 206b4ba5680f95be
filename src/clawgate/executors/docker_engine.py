"""Finding a Docker engine and turning the Docker SDK's errors into clawgate's, at one boundary.

The engine is the manifest's ``executor.docker.base_url`` when it names one (``unix://``,
``tcp://`` with TLS client certificates, ``ssh://``), else what ``DOCKER_HOST`` (with
``DOCKER_TLS_VERIFY`` and ``DOCKER_CERT_PATH``) says, else the local socket. An engine that does
not answer, or lacks the image, is ``SandboxUnavailable``; the executor never falls back to the
host.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from clawgate.errors import ExecutorError, SandboxUnavailable
from clawgate.executors.base import from_known_fields
from clawgate.extras import require

DEFAULT_IMAGE = "clawgate-sandbox:busybox"
# With a CA of its own, the client is built before it can be told to ignore REQUESTS_CA_BUNDLE,
# so the API version is fixed instead of asked for: 1.41 is Docker 20.10 (2020) and later.
TLS_API_VERSION = "1.41"


@dataclass(frozen=True, slots=True)
class DockerSettings:
    """Where the engine is and which image runs commands. Frozen; ``from_mapping`` for policies."""

    image: str = DEFAULT_IMAGE
    base_url: str | None = None  # None: DOCKER_HOST, else the local socket
    tls_verify: bool = True  # with cert_path: verify the engine against cert_path/ca.pem
    cert_path: str | None = None  # a directory with ca.pem, cert.pem, key.pem (tcp + TLS)
    use_ssh_client: bool = False  # ssh:// through the ssh program instead of paramiko
    warm: bool = True  # one container per executor (session) reused with exec; else per call
    user: str | None = None  # None: the caller's uid:gid, so workspace files stay theirs

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> DockerSettings:
        """Settings from a manifest's ``executor.docker`` section; unknown keys are an error."""
        return from_known_fields(cls, values, "executor.docker settings")

    def where(self) -> str:
        """The engine's address, for messages."""
        return self.base_url or os.environ.get("DOCKER_HOST") or "the local Docker socket"


def sdk() -> Any:
    """The Docker SDK, or MissingExtra naming the 'docker' extra."""
    return require("docker", "docker", "the Docker executor")


@contextmanager
def sdk_errors(settings: DockerSettings, doing: str) -> Iterator[None]:
    """The one boundary: Docker SDK and transport errors become clawgate errors."""
    docker = sdk()
    import requests
    import urllib3

    try:
        yield
    except docker.errors.ImageNotFound as exc:
        raise SandboxUnavailable(
            f"the image {settings.image!r} is not on the engine at {settings.where()}; build "
            "it (scripts/docker-engine.sh builds clawgate-sandbox:busybox) or pull it") from exc
    except (requests.exceptions.ConnectionError, ConnectionError, FileNotFoundError) as exc:
        raise SandboxUnavailable(
            f"no Docker engine answers at {settings.where()} while {doing}: {exc}") from exc
    except docker.errors.DockerException as exc:
        if "Error while fetching server API version" in str(exc):
            raise SandboxUnavailable(
                f"no Docker engine answers at {settings.where()}: {exc}") from exc
        raise ExecutorError(f"docker failed while {doing}: {exc}") from exc
    except (requests.exceptions.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
        raise ExecutorError(f"docker failed while {doing}: {exc}") from exc


def sdk_failures() -> tuple[type[BaseException], ...]:
    """What the SDK and its transport raise, for the few places that may ignore a failure."""
    import requests
    import urllib3

    return (sdk().errors.DockerException, requests.exceptions.RequestException,
            urllib3.exceptions.HTTPError)


def connect(settings: DockerSettings, timeout_s: float) -> Any:
    """A client for the engine, checked to answer and to hold the image."""
    docker = sdk()
    _socket_exists(settings)
    with sdk_errors(settings, "connecting"):
        if settings.base_url is None:
            client = docker.from_env(timeout=int(timeout_s))
        elif settings.cert_path is not None and settings.tls_verify:
            client = docker.DockerClient(base_url=settings.base_url, timeout=int(timeout_s),
                                         tls=_tls(settings), version=TLS_API_VERSION)
            # requests lets REQUESTS_CA_BUNDLE override the CA the client was given; the
            # engine's own CA must win, so the environment is not consulted on this session.
            client.api.trust_env = False
        else:
            client = docker.DockerClient(base_url=settings.base_url, timeout=int(timeout_s),
                                         tls=_tls(settings), use_ssh_client=settings.use_ssh_client)
        try:
            client.ping()
            client.images.get(settings.image)
        except BaseException:
            client.close()
            raise
    return client


def _socket_exists(settings: DockerSettings) -> None:
    """A local socket that is not there: said plainly, before the SDK leaks a socket on it."""
    url = settings.base_url or os.environ.get("DOCKER_HOST")
    if url is None:
        if os.environ.get("DOCKER_CONTEXT") or os.path.exists(
                os.path.expanduser("~/.docker/config.json")):
            return  # a CLI context may name the engine; the SDK reads it
        url = "unix:///var/run/docker.sock"
    if url.startswith("unix://") and not os.path.exists(url.removeprefix("unix://")):
        raise SandboxUnavailable(f"no Docker engine answers at {url}: the socket does not "
                                 "exist (start one with scripts/docker-engine.sh)")


def _tls(settings: DockerSettings) -> Any:
    """TLS client configuration for a ``tcp://`` engine when certificates are given."""
    if settings.cert_path is None:
        return False
    docker = sdk()
    path = settings.cert_path
    return docker.tls.TLSConfig(
        client_cert=(os.path.join(path, "cert.pem"), os.path.join(path, "key.pem")),
        ca_cert=os.path.join(path, "ca.pem") if settings.tls_verify else None,
        verify=settings.tls_verify)
