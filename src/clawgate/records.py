"""Small record classes without ``dataclasses``, for the modules a ``policy check`` start loads.

``@dataclass`` imports ``inspect`` (with ``ast``, ``dis``, ``tokenize``: ~6 ms) and compiles
each generated method apart (~0.4 ms a class); with some twenty records on the check path that
was a fifth of the CLI's start-up. ``record`` keeps what those records use of dataclasses —
fields from the class annotations, defaults, ``field(default=, default_factory=, init=,
repr=, compare=)``, ``__post_init__``, ``frozen``, ``slots``, value equality and hashing,
``replace`` — and generates ``__init__``, ``__eq__`` and ``__hash__`` in one ``exec`` per class
(``__repr__``, off every hot path, is a shared closure). Methods behave as the dataclass ones
did (the engine's decisions and the tests do not tell them apart); type checkers read
``record`` as a dataclass (``dataclass_transform``).

Not supported, because no record here needs it: fields inherited from a base record,
``__match_args__`` and ``__dataclass_fields__``, and zero-argument ``super()`` in a record's
methods (the class is rebuilt, as ``dataclass(slots=True)`` rebuilds it).
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False  # ``typing`` costs ~2 ms to import: type checkers only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    _T = TypeVar("_T")
else:
    def dataclass_transform(**_: object) -> object:
        return lambda decorated: decorated

_MISSING: Any = object()


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a frozen record (as ``dataclasses.FrozenInstanceError``)."""


class Field:
    """One field's options, as ``field(...)`` wrote them."""

    __slots__ = ("compare", "default", "default_factory", "init", "name", "repr")

    def __init__(self, default: Any, default_factory: Any, init: bool, repr: bool,
                 compare: bool) -> None:
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | None = None,
          init: bool = True, repr: bool = True, compare: bool = True) -> Any:
    """A field's options (a subset of ``dataclasses.field``)."""
    return Field(default, _MISSING if default_factory is None else default_factory, init,
                 repr, compare)


def _fields(cls: type) -> list[Field]:
    found: list[Field] = []
    # Not ``inspect.get_annotations``: keeping ``inspect`` unimported is this module's point.
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
    for name, annotation in annotations.items():
        if "ClassVar" in str(annotation):
            continue
        value = cls.__dict__.get(name, _MISSING)
        spec = value if isinstance(value, Field) else Field(value, _MISSING, True, True, True)
        spec.name = name
        found.append(spec)
    return found


def _source(fields: list[Field], frozen: bool, post_init: bool, slots: bool = False,
            twin: bool = False) -> str:
    """``__init__``, ``__eq__`` and ``__hash__``. ``slots``: each field is set by its slot's
    own descriptor (``_s_NAME``, bound once the class is made), which a frozen record's
    ``__setattr__`` does not stand in front of and which skips the attribute lookup by name
    that ``object.__setattr__`` makes (a record is made for every word and command read).
    ``twin`` (frozen with slots): the instance wears its class's mutable twin while its fields
    are stored (``_become``), which plain attribute stores reach at about a quarter of a
    descriptor call's cost, then its own class again; a subclass's instance, whose layout may
    differ, takes the descriptors."""
    params: list[str] = ["self"]
    assigned: list[tuple[str, str]] = []
    for f in fields:
        if not f.init:
            if f.default_factory is not _MISSING or f.default is not _MISSING:
                value = f"_f_{f.name}()" if f.default_factory is not _MISSING else f"_d_{f.name}"
                assigned.append((f.name, value))
            continue
        if f.default_factory is not _MISSING:
            params.append(f"{f.name}=_MISSING")
            value = f"_f_{f.name}() if {f.name} is _MISSING else {f.name}"
        else:
            params.append(f.name if f.default is _MISSING else f"{f.name}=_d_{f.name}")
            value = f.name
        assigned.append((f.name, value))
    stores = [_assign(name, value, frozen, slots) for name, value in assigned]
    if twin and assigned:
        stores = ["if self.__class__ is _cls:",
                  "    _become(self, _twin)",
                  *(f"    self.{name} = {value}" for name, value in assigned),
                  "    self.__class__ = _cls",
                  "else:",
                  *(f"    {line}" for line in stores)]
    body = stores
    if post_init:
        body.append("self.__post_init__()")
    given = [f.name for f in fields if f.init]
    compared = "".join(f"self.{f.name}," for f in fields if f.compare)
    others = "".join(f"other.{f.name}," for f in fields if f.compare)
    return "\n".join([
        f"def __init__({', '.join(params)}):",
        *(f"    {line}" for line in body or ["pass"]),
        "def __eq__(self, other):",
        "    if other.__class__ is not self.__class__:",
        "        return NotImplemented",
        f"    return ({compared}) == ({others})",
        "def __hash__(self):",
        f"    return hash(({compared}))",
        # ``replace``: each field passed on by name, without a dictionary of every field
        "def __record_replace__(self" + "".join(
            (", *", *(f", {n}=_MISSING" for n in given)) if given else ()) + "):",
        "    return self.__class__(" + "".join(
            f"self.{n} if {n} is _MISSING else {n}, " for n in given) + ")",
    ])


def _repr(shown: tuple[str, ...]) -> Callable[[object], str]:
    """``__repr__`` as a closure: it is not on any hot path, and compiling it costs ~0.04 ms a
    class at start-up."""
    def __repr__(self: object) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{type(self).__qualname__}({inner})"
    return __repr__


def _assign(name: str, value: str, frozen: bool, slots: bool = False) -> str:
    if slots:
        return f"_s_{name}(self, {value})"
    if frozen:
        return f"_setattr(self, {name!r}, {value})"
    return f"self.{name} = {value}"


# ``object.__class__``'s setter, past a frozen record's ``__setattr__``
_BECOME = object.__dict__["__class__"].__set__


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: object) -> tuple[object, ...]:
    names: tuple[str, ...] = type(self).__slots__  # type: ignore[attr-defined]
    return tuple(getattr(self, name) for name in names)


def _setstate(self: object, state: tuple[object, ...]) -> None:
    names: tuple[str, ...] = type(self).__slots__  # type: ignore[attr-defined]
    for name, value in zip(names, state, strict=True):
        object.__setattr__(self, name, value)


@dataclass_transform(field_specifiers=(field,))
def record(*, frozen: bool = False, slots: bool = False) -> Callable[[type[_T]], type[_T]]:
    """Make the decorated class a record of its annotated fields (see the module text)."""
    def build(cls: type[_T]) -> type[_T]:
        fields = _fields(cls)
        namespace: dict[str, Any] = {"_MISSING": _MISSING, "_setattr": object.__setattr__}
        for f in fields:
            namespace[f"_d_{f.name}"] = f.default
            namespace[f"_f_{f.name}"] = f.default_factory
        exec(_source(fields, frozen and not slots, hasattr(cls, "__post_init__"), slots,
                     twin=frozen and slots), namespace)
        body = {key: value for key, value in cls.__dict__.items()
                if key not in ("__dict__", "__weakref__")}
        for f in fields:  # class attributes hold defaults only without slots, as dataclasses
            body.pop(f.name, None)
            if not slots and f.default is not _MISSING:
                body[f.name] = f.default
        for name in ("__init__", "__eq__", "__record_replace__"):
            body[name] = namespace[name]
        body["__repr__"] = _repr(tuple(f.name for f in fields if f.repr))
        body["__hash__"] = namespace["__hash__"] if frozen else None
        body["__record_fields__"] = tuple(fields)
        if frozen:
            body["__setattr__"], body["__delattr__"] = _frozen_setattr, _frozen_delattr
        if slots:
            body["__slots__"] = tuple(f.name for f in fields)
            if frozen:
                body["__getstate__"], body["__setstate__"] = _getstate, _setstate
        metaclass: Any = type(cls)
        made: type[_T] = metaclass(cls.__name__, cls.__bases__, body)
        made.__qualname__ = cls.__qualname__
        if slots:  # ``__init__`` sets each field through its slot, past a frozen __setattr__
            for f in fields:
                namespace[f"_s_{f.name}"] = getattr(made, f.name).__set__
        if frozen and slots:  # its mutable twin: the same layout, plain attribute stores
            twin = metaclass(f"{cls.__name__}Twin", (made,), {
                "__slots__": (), "__setattr__": object.__setattr__,
                "__delattr__": object.__delattr__, "__module__": made.__module__})
            namespace["_cls"], namespace["_twin"], namespace["_become"] = made, twin, _BECOME
        return made
    return build


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of the record ``obj`` with ``changes`` (as ``dataclasses.replace``)."""
    made: _T = obj.__record_replace__(**changes)  # type: ignore[attr-defined]
    return made


class _NamedTupleMeta(type):
    """``typing.NamedTuple``'s class syntax without importing ``typing``: the class body's
    annotated names become a ``collections.namedtuple``, its other names are copied on."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        if not bases:
            return super().__new__(mcls, name, bases, namespace)
        annotations = namespace.get("__annotations__", {})
        fields = list(annotations)
        defaults = [namespace[f] for f in fields if f in namespace]
        if any(f in namespace for f in fields[:len(fields) - len(defaults)]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        factory: Any = namedtuple  # called with computed fields, which mypy cannot follow
        made = factory(name, fields, defaults=defaults, module=namespace["__module__"])
        made.__annotations__ = made.__new__.__annotations__ = dict(annotations)
        for key, value in namespace.items():
            if key not in ("__module__", "__annotations__") and key not in fields:
                setattr(made, key, value)
        return made


if not TYPE_CHECKING:
    # Runtime stand-in for ``typing.NamedTuple`` (modules import that name under
    # TYPE_CHECKING and this one otherwise).
    NamedTuple = _NamedTupleMeta("NamedTuple", (), {"__module__": __name__})
