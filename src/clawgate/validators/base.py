"""What a validator is, what it sees, and the registry that holds every one of them."""

from __future__ import annotations

from abc import ABC, abstractmethod

from clawgate.decision import Verdict
from clawgate.errors import RegistryError
from clawgate.lazyre import lazy_pattern
from clawgate.records import record
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators.shapes import ANY

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import ClassVar, TypeVar


_ID = lazy_pattern(r"CG-[A-Z]{2,6}-\d{3}")


@record(frozen=True, slots=True)
class Context:
    """Where a command would run. Paths are absolute and normalised."""

    cwd: str
    workspace: str
    home: str
    forbidden_paths: tuple[str, ...] = ()
    protected: tuple[str, ...] = ()  # the policy's extra protected-path patterns
    regenerable: tuple[str, ...] = ()  # the policy's extra regenerable names
    guarded: tuple[str, ...] = ()  # the guard's own state directories (protectedpaths.py)
    # (name, value) of the variables that place the state (``$CLAWGATE_STATE_HOME`` ...), as
    # the guard's environment has them: the agent's commands run with the same
    state_env: tuple[tuple[str, str], ...] = ()
    # The guard's environment sets CDPATH (a cd to a bare name may go elsewhere): read once,
    # with the rest of the context, so that a remembered decision is keyed by it
    cdpath: bool = False
    # The line is not the agent's own: text a command hands a shell, a reading made of it. It
    # may run at another moment than the one the disk was read at.
    nested: bool = False


class _Base(ABC):
    id: ClassVar[str]

    @property
    def family(self) -> str:
        return self.id.split("-")[1]


class RawValidator(_Base):
    """Looks at the raw text before any parser does (control characters, Unicode tricks)."""

    @abstractmethod
    def check_text(self, text: str, ctx: Context) -> Verdict: ...

    def reads_plain_text(self) -> bool:
        """Whether it may have an opinion on a text of printable ASCII characters alone (no
        control character, tab, line break or character outside ASCII): the engine asks it
        about such a text only if so. False must be implied by its own first test, which
        ``tests/validators/test_raw_shapes.py`` holds it to."""
        return True


class LineValidator(_Base):
    """Looks at the whole parsed line (parser agreement, comments, syntax tricks).

    ``spelling``: it judges how the line is written, not what it runs; the engine skips it on
    the lines it writes itself (same-line constants put in, ``shell/constants.py``)."""

    spelling: ClassVar[bool] = False

    @abstractmethod
    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict: ...

    def line_shapes(self) -> int:
        """The line shapes (``validators/lineshapes.py``) of lines this validator may have an
        opinion on: it is asked about a line only when the line has one of them. ``ANY``:
        every line. Each shape must be implied by the validator's own first test, which
        ``tests/validators/test_line_shapes.py`` holds it to."""
        return ANY

    def line_programs(self) -> frozenset[str]:
        """Programs (as ``SimpleCommand.program`` names them) of which a command on the line
        makes this validator worth asking whatever the line's shape: it is asked about a line
        that has one of its ``line_shapes()`` or runs one of these. Empty: by shape only.
        Like the shapes, implied by the validator's own first test (a validator that looks
        only at the commands running some programs has ``line_shapes()`` 0 and names them)."""
        return frozenset()


class Validator(_Base):
    """Looks at one simple command at a time.

    ``programs`` is its dispatch key: the programs (basenames, or their unversioned stem:
    ``python`` stands for ``python3.11``) it may have an opinion on; the engine asks it about
    no other command. None means every command. Declaring too many is safe; too few is a hole,
    which ``tests/validators/test_dispatch.py`` looks for.
    """

    programs: ClassVar[frozenset[str] | None] = None

    @abstractmethod
    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict: ...

    def shapes(self, program: str | None) -> int:
        """The command shapes (``validators/shapes.py``) of commands running ``program`` this
        validator may have an opinion on: it is asked about a command only when the command
        has one of them. ``ANY``: every command; 0: none. Each shape must be implied by the
        validator's own first test, which ``tests/validators/test_shapes.py`` holds it to."""
        return ANY


AnyValidator = RawValidator | LineValidator | Validator
if TYPE_CHECKING:
    V = TypeVar("V", bound=type[_Base])


class Registry:
    """Validator classes by ID. Registration order is check order within each kind."""

    def __init__(self) -> None:
        self._classes: dict[str, type[_Base]] = {}
        self._instances: tuple[AnyValidator, ...] | None = None

    def register(self, cls: V) -> V:
        ident = getattr(cls, "id", None)
        if not isinstance(ident, str) or not _ID.fullmatch(ident):
            raise RegistryError(f"{cls.__name__}: id {ident!r} is not of the form CG-FAMILY-NNN")
        if ident in self._classes:
            other = self._classes[ident].__name__
            raise RegistryError(f"{cls.__name__}: id {ident} is taken by {other}")
        if not (cls.__doc__ or "").strip():
            raise RegistryError(f"{cls.__name__} ({ident}) has no docstring")
        self._classes[ident] = cls
        self._instances = None
        return cls

    def classes(self) -> tuple[type[_Base], ...]:
        """The classes in check order: the order ``families.py`` lists their modules in, then
        the order each module defines them in, whichever module some import loaded first (a
        process that imported one family early checks in the same order as any other)."""
        order = _family_order()
        found = list(self._classes.values())
        ranks = [(order.get(cls.__module__, len(order)), index)
                 for index, cls in enumerate(found)]
        return tuple(found[index] for _, index in sorted(ranks))

    def instances(self) -> tuple[AnyValidator, ...]:
        """One instance of each class, made once: validators keep no state of their own (a
        decision's state lives in its ``Context``), so every engine shares them."""
        if self._instances is None:
            self._instances = tuple(cls() for cls in self.classes())  # type: ignore[misc]
        return self._instances


def _family_order() -> dict[str, int]:
    """Each family module's place in ``families.py``'s list (empty before it is loaded)."""
    import sys
    from types import ModuleType

    families = sys.modules.get("clawgate.validators.families")
    if families is None:
        return {}
    modules = [v.__name__ for v in vars(families).values() if isinstance(v, ModuleType)]
    return {name: rank for rank, name in enumerate(modules)}


REGISTRY = Registry()
register = REGISTRY.register
