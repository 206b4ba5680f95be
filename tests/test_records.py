"""``clawgate.records`` behaves as ``dataclasses`` does for what the check path uses, and
``clawgate.lazyre`` as ``re.compile``; a plain ``policy check`` loads neither dataclasses nor
typing (they are what the start-up budget was spent on)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import re
import subprocess
import sys

import pytest

from clawgate.lazyre import lazy_pattern
from clawgate.records import FrozenInstanceError, NamedTuple, field, record, replace


@record(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple)
    note: str = field(default="", compare=False, repr=False)


@dataclasses.dataclass(frozen=True, slots=True)
class DataPoint:
    x: int
    y: int = 0
    tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)
    note: str = dataclasses.field(default="", compare=False, repr=False)


@record()
class Counter:
    count: int = 0
    seen: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.seen.append(self.count)


class Pair(NamedTuple):
    left: int
    right: int = 2

    def total(self) -> int:
        return self.left + self.right


def test_equality_hash_and_repr_as_a_dataclass() -> None:
    a, b = Point(1, 2, ("t",), note="one"), Point(1, 2, ("t",), note="two")
    assert a == b and hash(a) == hash(b)  # note is not compared
    assert a != Point(1, 3) and a != DataPoint(1, 2, ("t",))
    assert repr(a) == "Point(x=1, y=2, tags=('t',))"
    assert repr(DataPoint(1, 2, ("t",))) == "Data" + repr(a)


def test_frozen_slots_defaults_and_replace() -> None:
    p = Point(1)
    assert (p.y, p.tags, p.note) == (0, (), "")
    with pytest.raises(FrozenInstanceError):
        p.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        p.extra = 1  # type: ignore[attr-defined]
    moved = replace(p, y=7)
    assert moved == Point(1, 7) and p.y == 0
    assert isinstance(FrozenInstanceError("x"), AttributeError)


class Labelled(Point):
    """A subclass of a frozen record with a slot of its own (a layout its base's mutable
    twin does not share)."""

    __slots__ = ("label",)


def test_frozen_instance_is_of_its_own_class_once_made() -> None:
    p = Point(1, 2)
    assert type(p) is Point and p.__class__ is Point
    with pytest.raises(FrozenInstanceError):
        p.y = 3  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del p.x  # type: ignore[misc]
    sub = Labelled(5, 6)
    assert type(sub) is Labelled and (sub.x, sub.y, sub.tags) == (5, 6, ())
    with pytest.raises(FrozenInstanceError):
        sub.x = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]


def test_replace_passes_on_every_field_it_is_not_given() -> None:
    p = Point(1, 2, ("t",), note="n")
    assert (replace(p).x, replace(p).note, replace(p, tags=()).tags) == (1, "n", ())
    assert type(replace(Labelled(1))) is Labelled
    with pytest.raises(TypeError):
        replace(p, z=1)
    counted = replace(Counter(4), count=5)  # __post_init__ runs for the copy, as dataclasses'
    assert counted.seen == [4, 5] and counted.count == 5


def test_pickle_and_copy_round_trip() -> None:
    p = Point(3, 4, ("a", "b"))
    assert pickle.loads(pickle.dumps(p)) == p
    assert copy.deepcopy(p) == p


def test_mutable_record_post_init_and_factories() -> None:
    first, second = Counter(1), Counter()
    assert first.seen == [1] and second.seen == [0]  # a fresh list each
    first.count = 5
    assert first.count == 5
    with pytest.raises(TypeError):
        hash(first)  # mutable records are unhashable, as dataclasses with eq


def test_named_tuple_stand_in() -> None:
    pair = Pair(1)
    assert pair == (1, 2) and pair.total() == 3 and pair._replace(right=5).right == 5


@pytest.mark.parametrize(("pattern", "flags", "text"), [
    (r"(?P<a>\w+)=(\d+)", 0, "x=1 y=22"),
    (r"^rm\b", re.M, "ls\nrm -rf x"),
    (r"a.b", re.S, "a\nb"),
])
def test_lazy_pattern_answers_as_a_compiled_one(pattern: str, flags: int, text: str) -> None:
    lazy, compiled = lazy_pattern(pattern, flags), re.compile(pattern, flags)
    assert lazy.pattern == compiled.pattern and lazy.flags == compiled.flags  # before first use
    assert lazy.findall(text) == compiled.findall(text)
    found, expected = lazy.search(text), compiled.search(text)
    assert (found and found.span()) == (expected and expected.span())
    assert lazy.sub("-", text) == compiled.sub("-", text)
    assert lazy.groups == compiled.groups and lazy.flags == compiled.flags


def test_a_plain_check_loads_no_dataclasses_typing_or_parser() -> None:
    code = ("import sys; from clawgate.cli import main; code = main(['check', 'git status']); "
            "print(code, sorted(m for m in ('dataclasses', 'typing', 'inspect', 'tree_sitter', "
            "'bashlex', 'pydantic', 'yaml', 'click', 'rich', 'argparse') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split("\n")[-2] == "0 []", done.stdout
