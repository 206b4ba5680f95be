"""How layers combine: the embedded default, then each ``--policy`` file in order.

- ``executor.mounts`` concatenate (under a lock, only locked layers' and hidden entries).
- Deny lists concatenate (``tools.deny``, agents' ``deny``, subagent ``deny``/``leafDeny``,
  ``forbidden_paths``, ``hooks.deny_tools``/``deny_tool_prefixes``, ``web.blocked_domains``,
  ``executor.network.denied_domains``).
- ``alsoAllow`` lists concatenate too.
- Allow lists intersect: each layer's ``allow`` narrows what the previous layers let through.
- Every other value (autonomy, ``hooks.trusted``, executor fields, profiles, a custom tool, ...)
  is taken from the last layer that sets it explicitly: the last explicit ``trusted`` wins.
- Command rules accumulate; the strictest matching rule decides.
- A layer with ``locked: true`` (an admin layer, or a locked user file) cannot be widened by any
  other layer, earlier or later: a value it sets can only be replaced by a narrower one (a
  stricter autonomy, a false permission, a lower limit, a profile with fewer tools, a
  sandboxed executor), and so can every value in force when it is layered, defaults
  included: an unlocked layer after it may narrow ``autonomy`` or ``executor.timeout_s`` it
  left unset, never widen them, and a value whose order is unknown (a new custom tool, a
  hook command, a Docker image) is not taken from it. Under a lock, ``alsoAllow`` and allow
  rules of unlocked layers are ignored.
- A ``[tool.clawgate]`` table in a ``pyproject.toml`` may only narrow what the layers before it
  allow, as if they were locked (``narrow_only``): the file is one the agent edits as a
  matter of course, and a table added to it must not loosen the next call. Its allow rules,
  ``alsoAllow``, ``paths.regenerable`` and mounts other than hidden ones are not taken.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from clawgate.records import NamedTuple


P = tuple[str, ...]
CONCAT = (("forbidden_paths",), ("executor", "mounts"), ("paths", "protected"),
          ("paths", "regenerable"),
          ("tools", "deny"), ("tools", "alsoAllow"),
          ("tools", "agents", "*", "deny"), ("tools", "agents", "*", "alsoAllow"),
          ("tools", "subagents", "deny"), ("tools", "subagents", "leafDeny"),
          ("hooks", "deny_tools"), ("hooks", "deny_tool_prefixes"), ("web", "blocked_domains"),
          ("executor", "network", "denied_domains"))
# Lists whose entries let more through: a narrow-only layer's are not taken.
WIDENING = (("executor", "mounts"), ("paths", "regenerable"), ("tools", "alsoAllow"),
            ("tools", "agents", "*", "alsoAllow"))
INTERSECT = (("tools", "allow"), ("tools", "byProvider", "*", "allow"),
             ("tools", "agents", "*", "allow"),
             ("tools", "agents", "*", "byProvider", "*", "allow"),
             ("tools", "byGroup", "*", "allow"))
WHOLE = (("tools", "custom", "*"), ("tools", "groups", "*"), ("shell", "rules"))
AUTONOMY_ORDER = {"readonly": 0, "supervised": 1, "full": 2}
NARROW_WHEN_TRUE = frozenset({("require_approval_for_medium_risk",),
                              ("block_high_risk_commands",), ("shell", "shadow"),
                              ("executor", "seccomp", "enabled")})
# more time: more is seen; more anomaly lines: more is recorded
NARROW_WHEN_LARGER = frozenset({("shell", "shadow_timeout_ms"),
                                ("executor", "seccomp", "max_alerts_per_minute")})
NARROW_WHEN_FALSE = frozenset({("permissions", "write"), ("permissions", "shell"),
                               ("permissions", "unsafe"), ("hooks", "trusted")})


NO_LINES: Mapping[tuple[str | int, ...], int] = MappingProxyType({})


class Layer(NamedTuple):
    """One validated manifest: its explicit values only (``exclude_unset``), as plain data.
    (NamedTuples rather than dataclasses here: they cost far less to define at import, and
    this module is on the ``policy check`` start-up path.)"""

    label: str  # the name in rule ids: the file's basename, made unique
    path: str
    data: Mapping[str, Any]
    locked: bool = False
    lines: Mapping[tuple[str | int, ...], int] = NO_LINES
    narrow_only: bool = False  # a pyproject.toml table: it may narrow, never widen


class Entry(NamedTuple):
    value: Any
    layer: str
    locked: bool


class Shapes:
    """Path patterns, ``"*"`` matching any one key, grouped by shape (length and where the
    stars are): a path matches when its keys, starred at a shape's places, are one of that
    shape's patterns. One set lookup per shape of the path's length, not a walk over every
    pattern: every key of every layer is matched on each load, which the resident decider's
    hook calls do once each."""

    def __init__(self, patterns: tuple[P, ...]) -> None:
        shapes: dict[tuple[int, tuple[int, ...]], set[P]] = {}
        for pattern in patterns:
            stars = tuple(i for i, key in enumerate(pattern) if key == "*")
            shapes.setdefault((len(pattern), stars), set()).add(pattern)
        self._by_length: dict[int, list[tuple[tuple[int, ...], frozenset[P]]]] = {}
        for (length, stars), found in shapes.items():
            self._by_length.setdefault(length, []).append((stars, frozenset(found)))

    def __contains__(self, path: P) -> bool:
        for stars, found in self._by_length.get(len(path), ()):
            if not stars:
                if path in found:
                    return True
                continue
            starred = list(path)
            for at in stars:
                starred[at] = "*"
            if tuple(starred) in found:
                return True
        return False


_CONCAT, _INTERSECT, _WHOLE = Shapes(CONCAT), Shapes(INTERSECT), Shapes(WHOLE)
_WIDENING = Shapes(WIDENING)


def _leaves(data: Mapping[str, Any], prefix: P = ()) -> Iterator[tuple[P, Any]]:
    for key, value in data.items():
        path = (*prefix, key)
        if isinstance(value, Mapping) and path not in _WHOLE:
            yield from _leaves(value, path)
        else:
            yield path, value


EXECUTOR_ISOLATION = {"host": 0, "auto": 1, "bwrap": 2, "docker": 2}  # auto: bwrap if it works


def narrower(path: P, old: Any, new: Any) -> bool:
    """Whether ``new`` widens nothing compared with ``old`` (what a locked value allows)."""
    if old is _UNKNOWN:
        return False
    if new == old:
        return True
    if path == ("autonomy",):
        return AUTONOMY_ORDER[new] < AUTONOMY_ORDER[old]
    if path == ("executor", "kind"):
        return EXECUTOR_ISOLATION[new] >= EXECUTOR_ISOLATION[old]
    if path == ("executor", "seccomp", "on_anomaly"):
        return bool(new == "end-session")
    if path[0] == "tools" and path[-1] == "profile":
        from clawgate.policy.catalog import BUILTIN_TOOLS, Groups

        groups = Groups()
        return groups.profile(new, BUILTIN_TOOLS) <= groups.profile(old, BUILTIN_TOOLS)
    if isinstance(new, list | tuple) and isinstance(old, list | tuple) \
            and path != ("web", "allowed_domains"):  # an empty allowed_domains allows all
        return set(new) <= set(old)
    if path in NARROW_WHEN_TRUE:
        return bool(new)
    if path in NARROW_WHEN_FALSE:
        return not new
    if path in NARROW_WHEN_LARGER:
        return bool(new > old)
    if isinstance(new, int | float) and isinstance(old, int | float) \
            and not isinstance(new, bool):
        return bool(new < old)
    return False


class Merged:
    """Every layer combined. ``value``, ``concat`` and ``intersections`` read it by path."""

    def __init__(self, layers: tuple[Layer, ...] = ()) -> None:
        self.layers = layers
        self.frozen = False  # a locked layer has been merged: later layers may only narrow
        self.held: list[tuple[Layer, P]] = []  # values not taken: they would widen a lock
        self.scalars: dict[P, Entry] = {}
        self.lists: dict[P, list[Entry]] = {}
        self.narrowing: dict[P, list[tuple[str, ...]]] = {}
        self.rules: list[tuple[Layer, Mapping[str, Any]]] = []

    @property
    def locked(self) -> bool:
        return any(layer.locked for layer in self.layers)

    def value(self, *path: str, default: Any = None) -> Any:
        entry = self.scalars.get(path)
        return default if entry is None else entry.value

    def concat(self, *path: str, locked_only: bool = False) -> list[Any]:
        return [e.value for e in self.lists.get(path, ()) if e.locked or not locked_only]

    def intersections(self, *path: str) -> list[tuple[str, ...]]:
        return list(self.narrowing.get(path, ()))

    def children(self, *prefix: str) -> list[str]:
        """The keys found under ``prefix`` in any layer (agents, providers, custom tools)."""
        n = len(prefix)
        keys = {p[n] for table in (self.scalars, self.lists, self.narrowing) for p in table
                if len(p) > n and p[:n] == prefix}
        return sorted(keys)


_UNKNOWN = object()


def _in_force(old: Entry | None, path: P) -> Any:
    """The value a locked layer accepted at ``path``: the one set so far, else the default."""
    if old is not None:
        return old.value
    from clawgate.policy.defaults import default_of

    found = default_of(path)
    return _UNKNOWN if found is None else found[0]


def merge(layers: tuple[Layer, ...]) -> Merged:
    merged = Merged(layers)
    for layer in layers:
        for path, value in _leaves(layer.data):
            _add(merged, layer, path, value)
        merged.frozen = merged.frozen or layer.locked
    return merged


def _add(merged: Merged, layer: Layer, path: P, value: Any) -> None:
    if path == ("shell", "rules"):
        taken = [r for r in value if not (layer.narrow_only and r["decision"] == "allow")]
        if len(taken) < len(value):
            merged.held.append((layer, path))
        merged.rules.extend((layer, rule) for rule in taken)
    elif path in (("locked",), ("version",)):
        return
    elif path in _CONCAT:
        if layer.narrow_only and path in _WIDENING:
            kept = [v for v in value if path == ("executor", "mounts")
                    and v.get("mode") == "hidden"]
            if len(kept) < len(value):
                merged.held.append((layer, path))
            value = kept
        merged.lists.setdefault(path, []).extend(Entry(v, layer.label, layer.locked)
                                                 for v in value)
    elif path in _INTERSECT:
        if value is not None:
            merged.narrowing.setdefault(path, []).append(tuple(value))
    else:
        old = merged.scalars.get(path)
        bound = layer.narrow_only or merged.frozen or (old is not None and old.locked)
        if not layer.locked and bound and not narrower(path, _in_force(old, path), value):
            merged.held.append((layer, path))
            return
        merged.scalars[path] = Entry(value, layer.label, layer.locked or bool(
            old is not None and old.locked))
