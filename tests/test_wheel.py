"""The wheel holds what a user who installed it from the package index needs beside the code:
the embedded policies and the examples (the hook settings, the MCP proxy's server and policy)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out),
                    str(ROOT)], check=True, capture_output=True, timeout=600)
    (built,) = out.glob("clawgate-*.whl")
    return zipfile.ZipFile(built)


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["examples", "policies"])
def test_the_wheel_ships_every_file_of(folder: str, wheel: zipfile.ZipFile) -> None:
    shipped = {name.removeprefix(f"clawgate/{folder}/") for name in wheel.namelist()
               if name.startswith(f"clawgate/{folder}/")}
    tracked = subprocess.run(["git", "ls-files", folder], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    assert tracked
    assert {name.removeprefix(f"{folder}/") for name in tracked} <= shipped


@pytest.mark.slow
def test_the_wheel_ships_the_program_catalog_and_its_data(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    folder = "clawgate/programs/"
    assert {f"{folder}catalog.json", f"{folder}catalog.yaml", f"{folder}data/options.tsv",
            f"{folder}data/NOTICE-program-data.txt"} <= names
    shipped = wheel.read(f"{folder}data/options.tsv")
    assert shipped == (ROOT / "src" / folder / "data" / "options.tsv").read_bytes()


@pytest.mark.slow
def test_the_wheel_ships_the_names_from_the_ignore_templates(wheel: zipfile.ZipFile) -> None:
    path = "clawgate/ignoretemplates/names.json"
    assert wheel.read(path) == (ROOT / "src" / path).read_bytes()
