"""``policy tools`` and ``policy schema`` through ``main``."""

from __future__ import annotations

import json

import jsonschema
import yaml

from clawgate.cli import main
from clawgate.policy.embedded import policies_dir


def test_tools_json(write, capsys):
    path = write("version: 1\ntools: {profile: minimal, alsoAllow: ['gh__*']}\n")
    assert main(["tools", "--policy", str(path), "--tool", "gh__issue", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["tools"] == ["gh__issue", "list_directory", "read_file"]
    assert next(s["step"] for s in result["steps"]) == "profile"
    assert result["steps"][-1]["tools"] == result["tools"]


def test_tools_explain(write, capsys):
    path = write("version: 1\ntools: {profile: coding, deny: [web_fetch]}\n")
    assert main(["tools", "--policy", str(path), "--explain", "--agent", "a",
                 "--provider", "openai", "--subagent-depth", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(" 1. profile")
    assert "12 tools" in out[0]
    assert out[7].startswith(" 8. global deny")
    assert "-web_fetch" in out[7]
    assert out[12].startswith("13. leaf deny")
    assert "-spawn" in out[12]
    assert "spawn" not in out[13:]
    assert "read_file" in out[13:]


def test_tools_bad_policy(write, capsys):
    assert main(["tools", "--policy", str(write("version: 1\ntools: {profile: x}\n"))]) == 2
    assert "p.yaml:2: tools.profile" in capsys.readouterr().err


def test_schema_validates_the_shipped_policies(capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["additionalProperties"] is False
    assert "alsoAllow" in schema["$defs"]["ToolsPolicy"]["properties"]
    for name in ("default", "readonly", "coding", "ci"):
        with open(f"{policies_dir()}/{name}.yaml", encoding="utf-8") as handle:
            jsonschema.validate(yaml.safe_load(handle), schema)
    bad = {"version": 1, "tools": {"colour": "red"}}
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(bad))
    assert errors


def test_check_uses_the_embedded_default(capsys):
    assert main(["check", "git push --force origin main"]) == 3
    assert "policy:default.yaml#git-force-push" in capsys.readouterr().out
