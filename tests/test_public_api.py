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
