"""A record's chain value made from the pieces of its canonical JSON (handed in, then linked)
is the value ``verify`` recomputes from the whole record."""

from __future__ import annotations

import secrets

import pytest

from clawgate.serve.chain import GENESIS, Entry, canonical_parts, mac_of, spliced

KEY = secrets.token_bytes(32)


class Odd:
    """A value JSON cannot encode: written as its str, as the chain writes it."""

    def __str__(self) -> str:
        return "odd \u2603"


BODIES = [
    {},
    {"command": 'ls "x" \\ \u00e9 \u2603 \U0001f600\n\t', "cwd": None,
     "reasons": [{"rule_id": "CG-X-001", "message": "m", "hint": None}]},
    {"z": [1, 2.5, None, True, 1e-7, -0.0], "a": {"b": {"c": 10**30}}},
    {"value": Odd(), "seq": 7, "prev": "not the record's"},
]


@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("when", [1765000000.1234567, 0.0, 1e10 + 0.5])
@pytest.mark.parametrize(("seq", "prev"), [(1, GENESIS), (123456789, "ab" * 32)])
def test_spliced_is_the_records_mac(body: dict[str, object], when: float, seq: int,
                                    prev: str) -> None:
    entry = Entry("ag\u00e9nt", 's"1', "exec_shell", "allow", "CG-X-001", body)
    assert spliced(KEY, canonical_parts(when, entry), seq, prev) == \
        mac_of(KEY, seq, when, entry, prev)
