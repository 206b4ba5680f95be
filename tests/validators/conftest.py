"""Every validator test runs with the same home directory as ``vtables.HOME``."""

from __future__ import annotations

import pytest
from vtables import HOME


@pytest.fixture(autouse=True)
def _fixed_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", HOME)
