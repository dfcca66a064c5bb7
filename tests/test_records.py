"""``floor/records.py`` against the oracle it replaces: a record and a dataclass declared alike
behave alike (construction, defaults and factories, ``__post_init__``, ``repr``, equality, hash,
frozenness, ``replace``, ``fields``, inheritance), and the ``dataclasses`` functions accept a
record."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dynamo_pulumi.floor import records
from dynamo_pulumi.floor.records import FrozenRecordError, record


def _pair(frozen: bool = True, eq: bool = True, repr: bool = True) -> tuple[type, type]:
    """The same declaration as a dataclass and as a record (each gets its own class body)."""

    def body(field: Any) -> dict[str, Any]:
        return {
            "__annotations__": {"kind": str, "count": int, "tags": tuple, "note": str, "limit": ClassVar[int]},
            "__module__": __name__,
            "__qualname__": "Thing",
            "count": 1,
            "tags": field(default_factory=tuple),
            "note": field(default="", compare=False, repr=False),
            "limit": 3,
            "doubled": lambda self: self.count * 2,
        }

    oracle = dataclasses.dataclass(frozen=frozen, eq=eq, repr=repr)(type("Thing", (), body(dataclasses.field)))
    ours = record(frozen=frozen, eq=eq, repr=repr)(type("Thing", (), body(records.field)))
    return oracle, ours


VALUES = st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 2), st.lists(st.sampled_from(["x", "y"]), max_size=2).map(tuple),
                   st.sampled_from(["", "n"]))


@given(VALUES, VALUES, st.booleans(), st.booleans(), st.booleans())
def test_a_record_behaves_as_the_dataclass_declared_alike(left: tuple, right: tuple, frozen: bool, eq: bool,
                                                         show: bool) -> None:
    oracle, ours = _pair(frozen, eq, show)
    a, b = oracle(*left), oracle(*right)
    x, y = ours(*left), ours(*right)
    assert (repr(x) == repr(a)) if show else repr(x).startswith("<")
    assert (x == y) == ((a == b) if eq else (x is y))
    assert x == x
    assert not x != x  # noqa: SIM202
    if frozen and eq:
        assert (hash(x) == hash(y)) == (hash(a) == hash(b)) or a != b
    if eq and not frozen:
        assert ours.__hash__ is None and oracle.__hash__ is None
    assert x.doubled() == a.doubled() and ours.limit == oracle.limit == 3
    assert ours.__match_args__ == oracle.__match_args__
    assert [f.name for f in records.fields(x)] == [f.name for f in dataclasses.fields(a)]
    changed = records.replace(x, count=5)
    assert (changed.kind, changed.count, changed.tags, changed.note) == (x.kind, 5, x.tags, x.note)
    assert dataclasses.replace(x, kind="z").kind == "z" and dataclasses.asdict(x) == dataclasses.asdict(a)


def test_defaults_and_factories_are_fresh_per_instance() -> None:
    oracle, ours = _pair()
    one = ours("k")
    assert one.tags == () and one.count == 1 and ours.count == oracle.count == 1  # the class attribute is the default

    @record
    class Bag:
        items: list = records.field(default_factory=list)

    assert Bag().items == [] and Bag().items is not Bag().items and Bag(["t"]).items == ["t"]
    assert "tags" not in vars(ours) and "tags" not in vars(oracle)  # a factory field has no class attribute
    with pytest.raises(TypeError):
        ours()  # the field without a default is required


def test_a_frozen_record_refuses_assignment_and_deletion() -> None:
    _, ours = _pair(frozen=True)
    thing = ours("k")
    with pytest.raises(FrozenRecordError, match="cannot assign to field 'count'"):
        thing.count = 2
    with pytest.raises(AttributeError, match="cannot delete field 'kind'"):
        del thing.kind
    _, mutable = _pair(frozen=False)
    loose = mutable("k")
    loose.count = 2
    assert loose.count == 2


def test_post_init_runs_on_construction_and_on_replace() -> None:
    @record
    class Squared:
        side: int
        area: int = 0

        def __post_init__(self) -> None:
            object.__setattr__(self, "area", self.side * self.side)

    assert Squared(3).area == 9 and records.replace(Squared(3), side=4).area == 16


def test_a_record_extends_a_record_and_keeps_the_fields_order() -> None:
    @record
    class Base:
        a: int
        b: int = 2

    @record
    class Child(Base):
        c: int = 3

    assert [f.name for f in records.fields(Child)] == ["a", "b", "c"] and Child(1).c == 3
    assert repr(Child(1)) == "test_a_record_extends_a_record_and_keeps_the_fields_order.<locals>.Child(a=1, b=2, c=3)"
    assert Child(1) != Base(1)  # another class is never equal, as with dataclasses
    with pytest.raises(TypeError, match="non-default argument"):
        @record
        class Broken(Base):
            d: int


def test_a_classs_own_methods_win_and_copies_and_pickles_work() -> None:
    @record
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

    assert repr(Named("n")) == "<n>"
    assert copy.deepcopy(Named("n")) == Named("n") and pickle.loads(pickle.dumps(_Picklable(1))) == _Picklable(1)


@record
class _Picklable:
    value: int


def test_making_a_record_does_not_import_dataclasses() -> None:
    code = ("import sys\nfrom dynamo_pulumi.floor.records import record, field\n"
            "@record\nclass A:\n    x: int\n    y: tuple = field(default_factory=tuple)\n"
            "A(1) == A(1); hash(A(1)); repr(A(1))\n"
            "print('dataclasses' in sys.modules, 'inspect' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_field_refuses_both_a_default_and_a_factory() -> None:
    with pytest.raises(ValueError, match="both default and default_factory"):
        records.field(default=1, default_factory=list)
    with pytest.raises(TypeError, match="record"):
        records.fields(object())


def test_the_package_defines_its_data_classes_as_records() -> None:
    """One way to declare a data class in the package, the one that keeps ``inspect`` out of a
    start (``floor/records.py`` itself only reaches ``dataclasses`` when asked for compatibility)."""
    from pathlib import Path

    root = Path(records.__file__).resolve().parent.parent
    offenders = [
        str(path.relative_to(root)) for path in sorted(root.rglob("*.py"))
        if path.name != "records.py" and any(
            line.startswith(("import dataclasses", "from dataclasses ")) or line.strip().startswith("@dataclass")
            for line in path.read_text().splitlines())
    ]
    assert offenders == []


def test_a_plain_subclass_of_a_record_is_still_a_dataclass_to_dataclasses() -> None:
    _, ours = _pair()

    class Plain(ours):  # type: ignore[misc, valid-type]
        pass

    assert dataclasses.is_dataclass(Plain("k")) and [f.name for f in dataclasses.fields(Plain)] == [
        "kind", "count", "tags", "note"]


def test_a_field_out_of_comparison_changes_neither_equality_nor_hash() -> None:
    oracle, ours = _pair()
    assert oracle("k", note="one") == oracle("k", note="two")
    assert ours("k", note="one") == ours("k", note="two")
    assert hash(ours("k", note="one")) == hash(ours("k", note="two"))
    assert ours("k", 1) != ours("k", 2) and hash(ours("k", 1)) != hash(ours("k", 2))
