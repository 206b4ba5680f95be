"""The public API is exactly ``__all__``, sorted, and every name resolves."""

from __future__ import annotations

import clawgate


def test_all_is_sorted_and_resolves() -> None:
    assert clawgate.__all__ == sorted(clawgate.__all__)
    for name in clawgate.__all__:
        assert getattr(clawgate, name) is not None


def test_check_is_the_one_call_entry_point() -> None:
    decision = clawgate.check("git status")
    assert decision.outcome is clawgate.Outcome.ALLOW
    assert decision.as_dict()["outcome"] == "allow"


def test_dir_is_the_public_api() -> None:
    assert dir(clawgate) == sorted([*clawgate.__all__, "__version__"])


def test_version_is_pyproject_s() -> None:
    import tomllib
    from pathlib import Path

    with (Path(__file__).resolve().parents[1] / "pyproject.toml").open("rb") as handle:
        assert clawgate.__version__ == tomllib.load(handle)["project"]["version"]


def test_outcome_and_risk_print_as_labels() -> None:
    assert str(clawgate.Outcome.ASK) == "ask" and f"{clawgate.Outcome.DENY:>5}" == " deny"
    assert f"{clawgate.Risk.HIGH}" == "high" and format(clawgate.Outcome.ALLOW) == "allow"
    assert repr(clawgate.Outcome.ASK) == "<Outcome.ASK: 2>"
    assert clawgate.Outcome.DENY > clawgate.Outcome.ASK and int(clawgate.Risk.LOW) == 1


def test_import_clawgate_is_cheap() -> None:
    import subprocess
    import sys

    code = ("import sys; import clawgate; dir(clawgate); "
            "print(sorted(m for m in sys.modules if m.startswith(('clawgate', 'pydantic', "
            "'yaml', 'click', 'rich', 'typing', 'importlib.metadata'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "['clawgate']", done.stdout
