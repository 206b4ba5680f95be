"""The shadow's stub directory: made once per content, shared, never one others can write."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from clawgate.shell.shadow.recorder import RECORDER
from clawgate.shell.shadow.stubdir import cache_root, stub_directory
from clawgate.shell.shadow.tools import real_programs


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return cache_root()


def _make(names: tuple[str, ...] = ("rm", "sudo")) -> tuple[Path, bool]:
    return stub_directory(names, real_programs(), "#!/bin/sh\n", "prelude\n")


def test_made_once_and_found_again(cache: Path) -> None:
    first, private = _make()
    assert (first.parent, private) == (cache, False)
    assert sorted(os.listdir(first / "stubs")) == ["rm", "sudo"]
    assert os.readlink(first / "stubs" / "rm") == RECORDER
    assert (first / "root" / "real" / "bash").is_file()
    assert _make() == (first, False)
    assert _make(("rm",))[0] != first  # other contents, another directory


def test_one_that_others_may_write_is_not_used(cache: Path) -> None:
    first, _ = _make()
    first.chmod(0o777)
    again, private = _make()
    try:
        assert private and again.parent != cache
        assert sorted(os.listdir(again / "stubs")) == ["rm", "sudo"]
    finally:
        shutil.rmtree(again)
