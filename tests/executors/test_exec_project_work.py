"""Real project work in the default sandbox: what a project's setup and test suite need of it.

Each test runs a real program in real bubblewrap (the default executor of ``policy run``),
against servers on 127.0.0.1 only.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from clawgate.cli import main
from clawgate.executors import BwrapExecutor, ExecRequest, HostExecutor, Limits, SpawnLimiter
from clawgate.executors.cgroups import Containment
from clawgate.executors.npmsettings import settings_lines
from clawgate.policy.loader import load_policy
from clawgate.trustenv import TRUST_ENV_NAMES
from egress_support import PYTHON, https_server, urlopen_script
from sandboxview import CANARY

pytestmark = pytest.mark.bwrap
_PROBE = Containment.create(pids=8, memory=64 * 1024 * 1024)
if _PROBE is not None:
    _PROBE.close()
needs_cgroups = pytest.mark.skipif(_PROBE is None and not os.environ.get("CI"),
                                   reason="this machine lets us make no control group")
OPENSSL = shutil.which("openssl")
CURL = shutil.which("curl")
NPM = shutil.which("npm")


@pytest.fixture
def certificate(workspace: Path) -> tuple[Path, Path]:
    """A self-signed certificate for ``localhost`` (the CA of a TLS-inspecting proxy, as a
    machine behind one trusts it) and its key; the certificate lies in the workspace, which
    the sandbox shows."""
    if OPENSSL is None:
        pytest.skip("openssl is not installed")
    cert, key = workspace / "inspecting-ca.pem", workspace.parent / "key.pem"
    subprocess.run([OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


@pytest.fixture
def tls_port(certificate: tuple[Path, Path]) -> Iterator[int]:
    with https_server(str(certificate[0]), str(certificate[1])) as port:
        yield port


def _loopback_policy(tmp_path: Path, port: int) -> Path:
    """Only the network part: every other key (``hooks.safe_env_names`` among them) is the
    embedded default's."""
    path = tmp_path / "policy.yaml"
    path.write_text(f"version: 1\nexecutor:\n  network:\n    allowed_domains: [pypi.org]\n"
                    f"    allow_loopback_ports: [{port}]\n", encoding="utf-8")
    return path


def test_the_default_policy_passes_every_trust_variable() -> None:
    names = load_policy().hooks.safe_env_names
    assert [n for n in TRUST_ENV_NAMES if n not in names] == []


TRUSTING = [
    pytest.param("SSL_CERT_FILE", lambda port: shlex.join(urlopen_script(
        f"https://localhost:{port}/t")), id="python-ssl"),
    pytest.param("REQUESTS_CA_BUNDLE", lambda port: shlex.join([PYTHON, "-I", "-c", (
        "import os, ssl, urllib.request\n"
        "c = ssl.create_default_context(cafile=os.environ['REQUESTS_CA_BUNDLE'])\n"
        f"r = urllib.request.urlopen('https://localhost:{port}/t', context=c, timeout=20)\n"
        "print(r.status, r.read().decode())\n")]), id="requests-bundle"),
    pytest.param("CURL_CA_BUNDLE", lambda port: f"curl -sS https://localhost:{port}/t",
                 id="curl", marks=pytest.mark.skipif(CURL is None, reason="no curl")),
]


@pytest.mark.parametrize(("variable", "command"), TRUSTING)
def test_a_download_trusts_the_callers_ca_under_policy_run(
        tmp_path: Path, workspace: Path, certificate: tuple[Path, Path], tls_port: int,
        variable: str, command: Callable[[int], str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The caller trusts a CA through a variable (a machine behind a TLS-inspecting proxy):
    a download through the egress proxy inside the default sandbox trusts it too."""
    monkeypatch.setenv(variable, str(certificate[0]))
    line = command(tls_port)
    code = main(["run", "--policy", str(_loopback_policy(tmp_path, tls_port)),
                 "--workspace", str(workspace), "--yes", "--", line])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out.endswith(f"hello localhost:{tls_port} /t\n" + ("\n" if "curl" not in line
                                                                else ""))


# What a test suite or a build does that a sandbox sized for one small command refused.
WORKLOADS = [
    pytest.param("b = bytearray(1024 ** 3); b[::4096] = b'x' * len(b[::4096]); print('1 GiB')",
                 "1 GiB", id="a-heap-of-1-GiB"),  # brace-expansion's bounds tests, a tsc build
    pytest.param("import threading\nstop = threading.Event()\n"
                 "ts = [threading.Thread(target=stop.wait) for _ in range(400)]\n"
                 "[t.start() for t in ts]; stop.set(); [t.join() for t in ts]; print(len(ts))",
                 "400", id="400-threads"),  # worker pools: one per core in every job
]


@pytest.mark.parametrize(("code", "expected"), WORKLOADS)
def test_a_test_suites_resources_fit_the_default_sandbox(
        workspace: Path, code: str, expected: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    line = shlex.join([PYTHON, "-I", "-c", code])
    status = main(["run", "--workspace", str(workspace), "--yes", "--", line])
    assert (status, capsys.readouterr().out) == (0, f"{expected}\n")


HOG = "b = bytearray(512 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"
THREADS = ("import threading\nstop = threading.Event()\nn = 0\ntry:\n"
           "    for _ in range(100):\n"
           "        threading.Thread(target=stop.wait).start(); n += 1\n"
           "except RuntimeError:\n    pass\nstop.set(); print('started', n)")
MEMORY_NOTE = ("clawgate: the run reached its memory limit (64 MiB, executor.docker.memory): "
               "the kernel killed 1 process(es)\n")
TASKS_NOTE = "clawgate: the run reached its limit of 24 tasks (executor.docker.pids, threads "


@needs_cgroups
@pytest.mark.parametrize(("code", "status", "note"), [
    pytest.param(HOG, 137, MEMORY_NOTE, id="memory"),
    pytest.param(THREADS, 0, TASKS_NOTE, id="tasks"),
])
def test_a_limit_that_stopped_something_says_so(workspace: Path, limiter: SpawnLimiter,
                                                code: str, status: int, note: str) -> None:
    """A process the kernel killed at the memory limit shows only as a signal, a refused
    thread as a vague error: the run's stderr names the limit and its policy key."""
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter,
                            limits=Limits(memory=64 * 1024 * 1024, pids=24))
    result = sandbox.run(ExecRequest([PYTHON, "-I", "-c", code], timeout_s=60))
    assert result.exit_code == status
    assert note in result.stderr
    assert result.stderr.endswith("refused\n" if note is TASKS_NOTE else note)


@needs_cgroups
def test_the_host_says_so_too(workspace: Path, limiter: SpawnLimiter) -> None:
    host = HostExecutor(workspace=workspace, limiter=limiter, limits=Limits(pids=24))
    result = host.run(ExecRequest([PYTHON, "-I", "-c", THREADS], timeout_s=60))
    assert result.exit_code == 0
    assert TASKS_NOTE in result.stderr


@needs_cgroups
def test_a_run_within_its_limits_says_nothing_more(workspace: Path,
                                                   limiter: SpawnLimiter) -> None:
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter)
    result = sandbox.run(ExecRequest("echo out; echo err >&2", timeout_s=60))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "out\n", "err\n")


NPMRC = f"""; the user's npm configuration: settings and credentials in one file
registry = "https://npm.mirror.example/"
@corp:registry=https://npm.corp.example/
nodedir=/usr
update-notifier=false
cafile=/etc/ssl/certs/ca-certificates.crt
//registry.npmjs.org/:_authToken={CANARY}
//npm.corp.example/:_password={CANARY}
_auth={CANARY}
email={CANARY}@example.com
always-auth=true
init-author-name=${{NPM_AUTHOR}}
cache=/elsewhere/.npm
https-proxy=http://proxy.corp.example:8080/
"""
NPM_SEES = [  # (key, what `npm config get` prints inside the sandbox)
    ("registry", "https://npm.mirror.example/"),
    ("@corp:registry", "https://npm.corp.example/"),
    ("nodedir", "/usr"),
    ("update-notifier", "false"),
    ("cafile", "/etc/ssl/certs/ca-certificates.crt"),
    ("init-author-name", ""),
    ("https-proxy", "http://127.0.0.1:3128"),
]


@pytest.mark.skipif(NPM is None, reason="npm is not installed")
def test_npm_keeps_the_users_settings_not_their_credentials(
        home: Path, workspace: Path, limiter: SpawnLimiter) -> None:
    """``~/.npmrc`` is hidden (it holds registry tokens); its other settings (a registry
    mirror, nodedir, cafile, update-notifier) still reach npm, as on the host."""
    (home / ".npmrc").write_text(NPMRC, encoding="utf-8")
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter)
    keys = " ".join(shlex.quote(key) for key, _ in NPM_SEES)
    result = sandbox.run(ExecRequest(f"npm config get {keys}; cat ~/.npmrc; env; "
                                     'cat "$npm_config_userconfig"', timeout_s=120))
    assert result.exit_code == 0, result.stderr
    shown = dict(line.split("=", 1) for line in result.stdout.splitlines()[:len(NPM_SEES)])
    assert shown == dict(NPM_SEES)
    assert CANARY not in result.stdout + result.stderr
    assert "proxy.corp.example" not in result.stdout
    assert "email" not in result.stdout


@pytest.mark.parametrize(("line", "kept"), [
    ("registry = https://npm.mirror.example/", "registry=https://npm.mirror.example/"),
    ("@corp:registry=https://npm.corp.example/", "@corp:registry=https://npm.corp.example/"),
    ("nodedir=/usr", "nodedir=/usr"),
    ("ca[]=/etc/ssl/certs/corp.pem", "ca[]=/etc/ssl/certs/corp.pem"),
    ("//registry.npmjs.org/:_authToken=npm_xxx", None),
    ("_authToken=npm_xxx", None),
    ("@corp:_authToken=npm_xxx", None),
    ("_auth=dXNlcjpwYXNz", None),
    ("username=me", None),
    ("email=me@example.com", None),
    ("keyfile=/home/me/client.key", None),
    ("registry=https://${NPM_HOST}/", None),
    ("cache=/elsewhere", None),
    ("https-proxy=http://proxy:8080", None),
    ("userconfig=/elsewhere/.npmrc", None),
    ("; a comment", None),
    ("github-token=ghp_xxx", None),  # a key npm does not know may carry anything
    ("@corp:registry/:_authToken=npm_xxx", None),
    ("fund=false", "fund=false"),
    ("[section]", None),
])
def test_which_npmrc_lines_are_settings(line: str, kept: str | None) -> None:
    assert settings_lines(line) == ([] if kept is None else [kept])


def test_nothing_after_a_section_is_taken() -> None:
    assert settings_lines("fund=false\n[x]\naudit=false\n") == ["fund=false"]


@pytest.mark.parametrize(("where", "inside"), [
    ("host", "/tmp"),  # the caller's TMPDIR, a directory of the host the sandbox does not show
    ("workspace", None),  # shown read-write: kept as it is
])
def test_tmpdir_is_one_the_command_can_write(tmp_path: Path, workspace: Path,
                                             limiter: SpawnLimiter, where: str,
                                             inside: str | None,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """pip, npm, compilers and test runners make their temporary files under ``$TMPDIR``
    (Python's ``tempfile`` falls back to ``/tmp`` by itself; ``mktemp``, gcc and node do not)."""
    tmpdir = (tmp_path / "host-tmp") if where == "host" else (workspace / ".tmp")
    tmpdir.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmpdir))
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter,
                            safe_env_names=("PATH", "HOME", "TMPDIR"))
    result = sandbox.run(ExecRequest('dirname "$(mktemp)"', timeout_s=60))  # coreutils' own
    assert (result.exit_code, result.stdout) == (0, f"{inside or tmpdir}\n")
