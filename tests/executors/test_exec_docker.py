"""The Docker executor against a real engine and the local image clawgate-sandbox:busybox.

Most tests share one warm container (a module-scoped fixture): an exec costs tens of
milliseconds, a fresh container a few hundred.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import docker
import pytest
from enginetunnel import ENGINE_SOCKET, Tunnel, make_certificates, server_context

from clawgate.errors import SandboxUnavailable
from clawgate.executors import (
    DockerExecutor,
    DockerSettings,
    ExecRequest,
    Limits,
    SpawnLimiter,
)
from proctable import gone, unique_sleep

pytestmark = pytest.mark.docker
IMAGE = "clawgate-sandbox:busybox"


def test_runs_in_the_workspace(warm_docker: DockerExecutor, module_workspace: Path) -> None:
    (module_workspace / "sub").mkdir(exist_ok=True)
    result = warm_docker.run(ExecRequest("echo out; echo err >&2; pwd; exit 6", cwd="sub"))
    assert (result.exit_code, result.stdout, result.stderr) == (6, "out\n/workspace/sub\n",
                                                                "err\n")
    assert not result.timed_out


def test_argv_runs_without_a_shell(warm_docker: DockerExecutor) -> None:
    assert warm_docker.run(ExecRequest(["echo", "$HOME", ";"])).stdout == "$HOME ;\n"


def test_no_network(warm_docker: DockerExecutor) -> None:
    table = warm_docker.run(ExecRequest("cat /proc/net/dev")).stdout.splitlines()[2:]
    assert [line.split(":")[0].strip() for line in table] == ["lo"]
    result = warm_docker.run(ExecRequest("wget -T 2 -q -O- http://1.1.1.1/", timeout_s=10))
    assert result.exit_code != 0


def test_the_root_is_read_only_and_writes_land_only_in_the_workspace(
        warm_docker: DockerExecutor, module_workspace: Path) -> None:
    for place in ("/", "/bin", "/etc", "/root", "/var"):
        result = warm_docker.run(ExecRequest(f"echo x > {place}/clawgate-probe"))
        assert result.exit_code != 0, place
    assert "Read-only file system" in warm_docker.run(ExecRequest("touch /bin/x")).stderr
    assert warm_docker.run(ExecRequest("echo kept > /workspace/kept.txt")).exit_code == 0
    assert (module_workspace / "kept.txt").read_text() == "kept\n"
    owner = (module_workspace / "kept.txt").stat()
    assert (owner.st_uid, owner.st_gid) == (os.getuid(), os.getgid())


def test_tmp_is_a_small_private_tmpfs(warm_docker: DockerExecutor) -> None:
    result = warm_docker.run(ExecRequest("echo x > /tmp/t && grep ' /tmp ' /proc/mounts"))
    assert result.exit_code == 0
    assert result.stdout.startswith("tmpfs /tmp tmpfs")


def test_no_capabilities_and_no_new_privileges(warm_docker: DockerExecutor) -> None:
    status = warm_docker.run(ExecRequest("cat /proc/self/status")).stdout
    fields = dict(line.split(":", 1) for line in status.splitlines())
    assert fields["CapEff"].strip() == "0000000000000000"
    assert fields["CapBnd"].strip() == "0000000000000000"
    assert fields["NoNewPrivs"].strip() == "1"


def test_limits_are_applied(warm_docker: DockerExecutor) -> None:
    container = warm_docker._client.containers.get(warm_docker._warm_container().id)
    host_config = container.attrs["HostConfig"]
    limits = warm_docker.limits
    assert host_config["Memory"] == limits.memory
    assert host_config["PidsLimit"] == limits.pids
    assert host_config["NanoCpus"] == int(limits.cpus * 1e9)
    assert host_config["ReadonlyRootfs"] is True
    assert host_config["NetworkMode"] == "none"
    assert host_config["CapDrop"] == ["ALL"]
    assert host_config["SecurityOpt"] == ["no-new-privileges"]
    pids = warm_docker.run(ExecRequest("cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/pids.max"
                                       " 2>/dev/null")).stdout.split()
    assert pids == [str(limits.pids)]


def test_a_secret_in_the_parent_environment_does_not_leak(
        warm_docker: DockerExecutor, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-leak-me-not")
    monkeypatch.setenv("LANG", "C.UTF-8")
    result = warm_docker.run(ExecRequest("env", env={"GIVEN": "1"}))
    assert "sk-leak-me-not" not in result.stdout
    assert "GIVEN=1" in result.stdout
    assert "LANG=C.UTF-8" in result.stdout
    assert "PATH=/bin" in result.stdout  # the image's, not the host's


def test_a_backgrounded_process_does_not_survive_its_exec(warm_docker: DockerExecutor) -> None:
    marker = unique_sleep()
    result = warm_docker.run(ExecRequest(f"sleep {marker} & echo started"))
    assert result.stdout == "started\n"
    assert not result.timed_out
    assert marker not in warm_docker.run(ExecRequest("ps -o args")).stdout
    assert gone(marker)


def test_output_flood_is_capped(warm_docker: DockerExecutor) -> None:
    result = warm_docker.run(ExecRequest("head -c 20000000 /dev/zero; echo done >&2"))
    assert result.truncated
    assert len(result.stdout) == 1024 * 1024
    assert result.stderr == "done\n"
    assert result.exit_code == 0


def test_concurrent_execs_respect_the_cap(module_workspace: Path) -> None:
    limiter = SpawnLimiter(5)
    with DockerExecutor(DockerSettings(image=IMAGE), workspace=module_workspace,
                        limiter=limiter, limits=Limits(queue_timeout_s=60)) as executor, \
            ThreadPoolExecutor(12) as pool:
        results = list(pool.map(executor.run, [ExecRequest("sleep 0.2; echo ok")] * 12))
    assert [r.stdout for r in results] == ["ok\n"] * 12
    assert limiter.peak == 5


def test_timeout_kills_the_container(warm_docker: DockerExecutor) -> None:
    marker = unique_sleep()
    first = warm_docker._warm_container().id
    result = warm_docker.run(ExecRequest(f"sleep {marker}", timeout_s=0.5))
    assert result.timed_out
    assert result.exit_code == 124
    with pytest.raises(docker.errors.NotFound):
        warm_docker._client.containers.get(first)
    assert gone(marker)
    assert warm_docker.run(ExecRequest("echo again")).stdout == "again\n"  # a fresh container
    assert warm_docker._warm_container().id != first


def test_per_call_containers_run_and_are_removed(module_workspace: Path) -> None:
    marker = unique_sleep()
    with DockerExecutor(DockerSettings(image=IMAGE, warm=False), workspace=module_workspace,
                        limiter=SpawnLimiter(5)) as cold:
        result = cold.run(ExecRequest(f"echo {marker}; echo e >&2; exit 4"))
        assert (result.exit_code, result.stdout, result.stderr) == (4, f"{marker}\n", "e\n")
        timed = cold.run(ExecRequest(f"sleep {marker}", timeout_s=0.5))
        assert timed.timed_out
        left = [c for c in cold._client.containers.list(
            all=True, filters={"label": "org.clawgate.sandbox"})
            if marker in " ".join(c.attrs["Config"]["Cmd"] or [])]
    assert left == []
    assert gone(marker)


def test_a_fork_bomb_is_stopped_by_the_pid_limit(module_workspace: Path) -> None:
    limits = Limits(pids=32, kill_grace_s=0.2)
    with DockerExecutor(DockerSettings(image=IMAGE, warm=False), workspace=module_workspace,
                        limiter=SpawnLimiter(5), limits=limits) as cold:
        result = cold.run(ExecRequest("bomb() { bomb | bomb; }; bomb", timeout_s=60))
    assert "can't fork: Resource temporarily unavailable" in result.stderr
    assert not result.timed_out  # the bomb collapsed on the limit; the timeout was not needed


@pytest.fixture
def tcp_engine() -> Iterator[str]:
    """The local engine on a loopback TCP port, as a remote engine would be."""
    if not os.path.exists(ENGINE_SOCKET):
        pytest.skip("the engine is not on the local socket")
    tunnel = Tunnel()
    yield f"tcp://127.0.0.1:{tunnel.port}"
    tunnel.close()


@pytest.fixture(scope="module")
def tls_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The local engine behind mutual TLS on a loopback port: (url, client cert directory)."""
    if not os.path.exists(ENGINE_SOCKET):
        pytest.skip("the engine is not on the local socket")
    server, client = make_certificates(tmp_path_factory.mktemp("tls"))
    tunnel = Tunnel(server_context(server))
    yield f"tcp://127.0.0.1:{tunnel.port}", client
    tunnel.close()


def test_a_tcp_engine_from_settings_or_docker_host(tcp_engine: str, module_workspace: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    settings = DockerSettings(image=IMAGE, base_url=tcp_engine)
    with DockerExecutor(settings, workspace=module_workspace, limiter=SpawnLimiter(5)) as remote:
        # Output that arrives with the response headers must not be lost (docker-py#3332).
        outputs = {remote.run(ExecRequest(f"echo {n}")).stdout for n in range(30)}
        assert outputs == {f"{n}\n" for n in range(30)}
    monkeypatch.setenv("DOCKER_HOST", tcp_engine)
    with DockerExecutor(DockerSettings(image=IMAGE, warm=False), workspace=module_workspace,
                        limiter=SpawnLimiter(5)) as remote:
        assert remote.run(ExecRequest("echo via env")).stdout == "via env\n"


def test_a_warm_container_that_died_is_replaced(warm_docker: DockerExecutor) -> None:
    first = warm_docker._warm_container()
    first.remove(force=True)  # as an OOM kill or a person with `docker rm -f` would
    assert warm_docker.run(ExecRequest("echo back")).stdout == "back\n"
    assert warm_docker._warm_container().id != first.id


def test_a_remote_engine_over_mutual_tls(tls_engine: tuple[str, Path],
                                         module_workspace: Path) -> None:
    url, certs = tls_engine
    settings = DockerSettings(image=IMAGE, base_url=url, cert_path=str(certs))
    with DockerExecutor(settings, workspace=module_workspace, limiter=SpawnLimiter(5)) as remote:
        assert remote.run(ExecRequest("echo via tls")).stdout == "via tls\n"
        timed = remote.run(ExecRequest("sleep 30", timeout_s=0.5))
        assert timed.timed_out


def test_a_tls_engine_refuses_a_client_without_certificates(
        tls_engine: tuple[str, Path], module_workspace: Path) -> None:
    url, _ = tls_engine
    with pytest.raises(SandboxUnavailable):
        DockerExecutor(DockerSettings(image=IMAGE, base_url=url), workspace=module_workspace)
