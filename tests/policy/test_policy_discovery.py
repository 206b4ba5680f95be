"""Policy discovery: the user file, the project's, ``$CLAWGATE_POLICY``, then ``--policy``;
``policy config`` shows them; a locked user file can only be narrowed. Every test points
``XDG_CONFIG_HOME`` and ``HOME`` at temporary directories (never the real user's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clawgate.cli import main
from clawgate.errors import PolicyError
from clawgate.policy.discovery import policy_paths, sources
from clawgate.policy.loader import load_policy
from clawgate.policy.settings import Autonomy
from clawgate.policy.visibility import ToolContext

DENY_TOUCH = """version: 1
shell:
  rules:
    - {{id: {name}, command: [touch], decision: deny, why: {name} says no}}
"""


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A home, a config directory and a repository with a subdirectory, all temporary."""
    home, config, repo = tmp_path / "home", tmp_path / "config", tmp_path / "home" / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "pkg").mkdir(parents=True)
    (config / "clawgate").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.delenv("CLAWGATE_POLICY", raising=False)
    return {"home": home, "config": config, "repo": repo, "sub": repo / "src" / "pkg"}


def user_file(places: dict[str, Path], text: str) -> Path:
    path = places["config"] / "clawgate" / "policy.yaml"
    path.write_text(text)
    return path


def origins(cwd: Path, explicit: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    return [(s.origin, os.path.basename(s.path)) for s in sources(explicit, str(cwd))]


def test_nothing_found_is_the_embedded_default_alone(places: dict[str, Path]) -> None:
    assert sources((), str(places["sub"])) == []


def test_order_user_project_env_then_explicit(places: dict[str, Path], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    user_file(places, DENY_TOUCH.format(name="user"))
    (places["repo"] / ".clawgate.yaml").write_text(DENY_TOUCH.format(name="project"))
    env = tmp_path / "env.yaml"
    env.write_text(DENY_TOUCH.format(name="env"))
    monkeypatch.setenv("CLAWGATE_POLICY", str(env))
    explicit = tmp_path / "explicit.yaml"
    explicit.write_text(DENY_TOUCH.format(name="explicit"))
    assert origins(places["sub"], (str(explicit),)) == [
        ("user", "policy.yaml"), ("project", ".clawgate.yaml"), ("env", "env.yaml"),
        ("--policy", "explicit.yaml")]
    decision = load_policy(*policy_paths((str(explicit),), str(places["sub"])))
    assert [layer.label for layer in decision.layers] == [
        "default.yaml", "policy.yaml", ".clawgate.yaml", "env.yaml", "explicit.yaml"]


def test_the_project_search_stops_at_the_repository_root(places: dict[str, Path]) -> None:
    (places["home"] / ".clawgate.yaml").write_text(DENY_TOUCH.format(name="above"))
    assert origins(places["sub"]) == []
    (places["repo"] / "src" / ".clawgate.yaml").write_text(DENY_TOUCH.format(name="src"))
    assert origins(places["sub"]) == [("project", ".clawgate.yaml")]


def test_the_project_search_stops_before_home(places: dict[str, Path]) -> None:
    (places["repo"] / ".git").rmdir()
    (places["home"] / ".clawgate.yaml").write_text(DENY_TOUCH.format(name="home"))
    assert origins(places["sub"]) == []


def test_the_project_search_goes_up_to_the_root_outside_home(
        places: dict[str, Path], tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "deep"
    outside.mkdir(parents=True)
    (tmp_path / "elsewhere" / ".clawgate.yaml").write_text(DENY_TOUCH.format(name="up"))
    assert origins(outside) == [("project", ".clawgate.yaml")]


def test_pyproject_table_is_a_project_policy(places: dict[str, Path]) -> None:
    pyproject = places["repo"] / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n\n[tool.clawgate]\nversion = 1\n'
                         'autonomy = "readonly"\n\n[tool.clawgate.executor]\ntimeout_s = 7\n')
    assert origins(places["sub"]) == [("project", "pyproject.toml")]
    policy = load_policy(*policy_paths((), str(places["sub"])))
    assert policy.engine_settings().autonomy is Autonomy.READONLY
    assert policy.executor.timeout_s == 7


def test_pyproject_errors_name_the_line(places: dict[str, Path]) -> None:
    pyproject = places["repo"] / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n\n[tool.clawgate]\nversion = 1\n'
                         '\n[tool.clawgate.executor]\ntimeout = 7\n')
    with pytest.raises(PolicyError) as caught:
        load_policy(*policy_paths((), str(places["sub"])))
    assert str(caught.value).startswith(f"{pyproject}:8: executor.timeout: unknown key")


def test_a_pyproject_without_the_table_is_not_a_policy(places: dict[str, Path]) -> None:
    (places["repo"] / "pyproject.toml").write_text('[tool.ruff]\nline-length = 99\n')
    assert origins(places["sub"]) == []


def test_both_project_forms_in_one_directory_is_an_error(places: dict[str, Path]) -> None:
    (places["repo"] / "pyproject.toml").write_text("[tool.clawgate]\nversion = 1\n")
    (places["repo"] / ".clawgate.yaml").write_text("version: 1\n")
    with pytest.raises(PolicyError, match="keep one of them"):
        sources((), str(places["sub"]))


def test_a_missing_env_file_is_an_error(places: dict[str, Path],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWGATE_POLICY", str(places["home"] / "nope.yaml"))
    with pytest.raises(PolicyError, match="CLAWGATE_POLICY"):
        sources((), str(places["sub"]))


LOCKED_USER = """version: 1
locked: true
tools: {profile: minimal, deny: [web_fetch]}
executor: {kind: bwrap}
shell:
  rules:
    - {id: ask-make, command: [make], decision: ask, why: the user reviews make}
"""
WIDER = """version: 1
autonomy: full
tools: {profile: full, alsoAllow: [exec_shell, web_fetch]}
executor: {kind: host, timeout_s: 5}
hooks: {trusted: true}
shell:
  rules:
    - {id: allow-make, command: [make], decision: allow, overrides: ask, why: fine}
"""


@pytest.mark.parametrize("where", ["project", "env"])
def test_a_locked_user_file_cannot_be_widened(places: dict[str, Path], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              where: str) -> None:
    user_file(places, LOCKED_USER)
    if where == "project":
        (places["repo"] / ".clawgate.yaml").write_text(WIDER)
    else:
        (tmp_path / "wider.yaml").write_text(WIDER)
        monkeypatch.setenv("CLAWGATE_POLICY", str(tmp_path / "wider.yaml"))
    policy = load_policy(*policy_paths((), str(places["sub"])))
    settings = policy.engine_settings()
    assert settings.autonomy is Autonomy.SUPERVISED  # the default the user left: not widened
    assert policy.visible_tools(["read_file", "exec_shell", "web_fetch"],
                                ToolContext()).tools == ["read_file"]
    assert policy.executor.kind == "bwrap"
    assert policy.executor.timeout_s == 5  # narrower: taken
    assert policy.hooks.trusted is False
    from clawgate.engine import Engine

    assert Engine(settings).check("make all").outcome.label == "ask"
    held = {".".join(map(str, key)) for _layer, key in policy.merged.held}
    assert held == {"autonomy", "tools.profile", "executor.kind", "hooks.trusted"}


def test_a_project_may_narrow_a_locked_user_file(places: dict[str, Path]) -> None:
    user_file(places, LOCKED_USER)
    (places["repo"] / ".clawgate.yaml").write_text(
        "version: 1\nautonomy: readonly\nexecutor: {kind: docker}\n")
    policy = load_policy(*policy_paths((), str(places["sub"])))
    assert policy.engine_settings().autonomy is Autonomy.READONLY
    assert policy.executor.kind == "docker"


def test_explicit_policy_files_cannot_widen_a_locked_user_file(
        places: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    user_file(places, LOCKED_USER)
    wider = tmp_path / "wider.yaml"
    wider.write_text(WIDER)
    code = main(["check", "--policy", str(wider), "--cwd", str(places["sub"]), "make all"])
    assert code == 3


def test_policy_config_lists_the_layers(places: dict[str, Path],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    user = user_file(places, LOCKED_USER)
    project = places["repo"] / ".clawgate.yaml"
    project.write_text(WIDER)
    assert main(["config", "--cwd", str(places["sub"])]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert [line.split("\t")[0] for line in lines] == ["embedded", "user", "project"]
    assert lines[1] == f"user\t{user}  (locked)"
    assert lines[2] == f"project\t{project}"
    assert f"{project}: autonomy: not taken" in err
    assert main(["config", "--json", "--cwd", str(places["sub"])]) == 0
    value = json.loads(capsys.readouterr().out)
    assert [(x["origin"], x["locked"]) for x in value["layers"]] == [
        ("embedded", False), ("user", True), ("project", False)]
    assert {"path": str(project), "key": "executor.kind"} in value["held"]


def test_policy_config_reports_a_bad_file(places: dict[str, Path],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = user_file(places, "version: 1\ntools: {deny: [exec-shell]}\n")
    assert main(["config"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:2: tools.deny[0]: unknown tool 'exec-shell'")
    assert len(err.splitlines()) == 1


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from clawgate.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, text=True,
                          capture_output=True, env=dict(os.environ), check=False)


@pytest.mark.parametrize("args", [
    ["check", "touch x"],
    ["run", "--", "touch x"],
    ["tools"],
])
def test_every_subcommand_applies_discovery(places: dict[str, Path],
                                            args: list[str]) -> None:
    (places["repo"] / ".clawgate.yaml").write_text(
        DENY_TOUCH.format(name="project") + "tools: {deny: [spawn]}\n")
    done = run_cli(args, places["sub"])
    if args[0] == "tools":
        assert done.returncode == 0, done.stderr
        assert "exec_shell" in done.stdout.split()
        assert "spawn" not in done.stdout.split()
    else:
        assert done.returncode == 4, done.stderr
        assert not (places["sub"] / "x").exists()


def test_check_discovers_from_its_cwd_option(places: dict[str, Path],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (places["repo"] / ".clawgate.yaml").write_text(DENY_TOUCH.format(name="project"))
    assert main(["check", "touch x"]) == 0
    assert main(["check", "--cwd", str(places["sub"]), "touch x"]) == 4


def test_a_plain_check_without_files_imports_no_yaml_or_pydantic(
        places: dict[str, Path]) -> None:
    code = ("import sys; from clawgate.cli import main; rc = main(['check', 'ls']); "
            "print(rc, 'yaml' in sys.modules, 'pydantic' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=places["sub"], text=True,
                          capture_output=True, env=dict(os.environ), check=True)
    assert done.stdout.split()[-3:] == ["0", "False", "False"]
