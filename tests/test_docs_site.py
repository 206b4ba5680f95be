"""The documentation site builds with no warning (``mkdocs build --strict``), every page is in
its navigation, the rule reference is what the validators say, and every link of the README
to a page reaches one."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def _nav_pages(entries: list[object]) -> set[str]:
    pages: set[str] = set()
    for entry in entries:
        values = entry.values() if isinstance(entry, dict) else [entry]
        for value in values:
            pages |= _nav_pages(value) if isinstance(value, list) else {str(value)}
    return pages


def test_every_page_is_in_the_navigation() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert _nav_pages(config["nav"]) == {p.name for p in (ROOT / "docs").glob("*.md")}


@pytest.mark.slow
def test_the_site_builds_without_a_warning(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                           str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                          capture_output=True, text=True, env=env, check=False, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    assert (tmp_path / "site" / "rules" / "index.html").is_file()


def test_the_rule_reference_is_current() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "rules_reference.py"),
                           "--check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_the_readme_links_reach_pages() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert links
    assert all((ROOT / link).is_file() for link in links), links
    assert len(readme.splitlines()) <= 200
