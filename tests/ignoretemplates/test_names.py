"""The names derived from the ignore templates: how a template line is read, how the reviewed
rules keep or drop a name, and that the committed ``names.json`` is what the rules make of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawgate import ignoretemplates
from clawgate.ignoretemplates import template_names
from clawgate.ignoretemplates.build import MECHANICAL, build, collect, name_of, reviewed, verdict
from clawgate.ignoretemplates.curation import REVIEWED
from clawgate.validators.regenerable import REGENERABLE_NAMES

DATA = json.loads((Path(ignoretemplates.__file__).parent / "names.json")
                  .read_text(encoding="utf-8"))


@pytest.mark.parametrize(("line", "expected"), [
    ("build/\n", "build"),
    ("/build\n", "build"),
    ("**/build\n", "build"),
    ("build/**\n", "build"),
    ("cover/*\r\n", "cover"),
    ("Referenced Packages/  \n", "Referenced Packages"),
    ("# build\n", None),
    ("!build/\n", None),
    ("*.log\n", None),
    ("cmake-build-*/\n", None),
    ("docs/_build/\n", None),  # one ecosystem's layout, not a name
    ("\\#notes#\n", None),
    ("/\n", None),
    ("\n", None),
])
def test_a_template_line_names_one_thing_or_nothing(line: str, expected: str | None) -> None:
    assert name_of(line) == expected


def test_the_rules_keep_output_and_drop_sources_settings_sites_and_files(tmp_path: Path) -> None:
    (tmp_path / "Global").mkdir()
    (tmp_path / "community" / "PHP").mkdir(parents=True)
    (tmp_path / "Python.gitignore").write_text(
        "cover/\nlib/\n.env.local\ndb.sqlite3\n*.pyc\n/Build\n__history/\ncrash.log\n",
        encoding="utf-8")
    (tmp_path / "Global" / "Vim.gitignore").write_text("Session\nbuild/\n", encoding="utf-8")
    (tmp_path / "WordPress.gitignore").write_text("uploaded/\n", encoding="utf-8")
    (tmp_path / "community" / "PHP" / "Magento2.gitignore").write_text("uploaded/\n",
                                                                        encoding="utf-8")
    found = collect(str(tmp_path))
    assert found["build"] == {"Python", "Global/Vim"}
    data = build(found, "c0ffee")
    assert data["regenerable"] == {"build": ["Global/Vim", "Python"], "cover": ["Python"],
                                   "crash.log": ["Python"]}
    assert data["dropped"] == {"lib": "source", ".env.local": "credentials",
                               "db.sqlite3": "extension", "__history": "kept",
                               "session": "global", "uploaded": "sites"}
    assert data["source"] == {"repository": "github/gitignore", "commit": "c0ffee",
                              "license": "CC0-1.0"}


def test_the_committed_names_are_what_the_rules_make_of_the_templates() -> None:
    dropped_by = reviewed()
    assert set(DATA["rules"]) == {*MECHANICAL, *REVIEWED}
    for name, templates in DATA["regenerable"].items():
        assert name == name.lower()
        assert verdict(name, set(templates), dropped_by) is None, name
    for name, rule in DATA["dropped"].items():
        assert rule in DATA["rules"], name
        assert (dropped_by.get(name) == rule) or (rule in MECHANICAL and name not in dropped_by)
    assert set(dropped_by) <= set(DATA["dropped"])  # every reviewed name is in the templates
    assert template_names() == frozenset(DATA["regenerable"])


@pytest.mark.parametrize("name", [
    "src", "lib", "bin", "include", "pkg", "packages", "modules", "plugins", "vendor", "deps",
    "data", "db", "var", "storage", "uploads", "docs", "doc", "public", "config", "env",
    "scripts", "test", "debug", "release", "log", "logs", "cache", "output", "artifacts",
    "reports", ".vscode", ".idea", ".vs", ".bundle", ".yarn", ".env", ".env.local",
    "makefile", "configure", "composer.json", "pom.xml", "local_settings.py",
    "web-inf", "cookbooks", "_checkouts", ".snapshots", "sdkconfig", ".aptos", "wheels",
    "rcf", "csx", "pids", "__history", "autobackups",
])
def test_names_that_hold_sources_data_or_settings_somewhere_are_not_kept(name: str) -> None:
    assert name not in template_names()
    assert name not in REGENERABLE_NAMES


@pytest.mark.parametrize("name", ["cover", "_boot", ".psci_modules", "cdk.out", "cover_db",
                                  "blib", ".spago", "__pypackages__", "out-tsc", "elm-stuff"])
def test_output_the_templates_name_is_kept(name: str) -> None:
    assert name in template_names()
