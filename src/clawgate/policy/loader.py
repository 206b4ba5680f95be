"""Loading manifests into a ``Policy``: parse, validate, check rule examples, layer.

Errors name the file, the line and the key: ``project.yaml:12: shell.rules[0].decision: ...``.
The embedded default comes from its compiled form (``policies/default.json``, see
``embedded.py``) when that is in sync, so that ``policy check`` needs neither YAML nor pydantic.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from clawgate.errors import PolicyError
from clawgate.policy.layers import Layer, merge
from clawgate.policy.policy import SECTIONS, Policy

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import Any

    from pydantic import ValidationError

    from clawgate.policy.yamlload import Lines

def load_policy(*paths: str | os.PathLike[str], embedded_default: bool = True,
                check_tool_names: bool = True) -> Policy:
    """The embedded default (unless ``embedded_default`` is False), then ``paths`` in order.
    ``check_tool_names=False`` lets unknown tool names through (``policy lint`` reports them
    itself, among its other findings); every other use refuses them."""
    layers: list[Layer] = []
    if embedded_default:
        from clawgate.policy.embedded import embedded_layer

        layers.append(embedded_layer())
    labels = {layer.label for layer in layers}
    for index, path in enumerate(paths, start=len(layers)):
        label = os.path.basename(os.fspath(path)) or "policy"
        if label in labels:
            label = f"{label}[{index}]"
        labels.add(label)
        layers.append(load_layer(path, label))
    if paths:
        check_groups(layers, check_tool_names)
    policy = Policy(merge(tuple(layers)))
    if paths:
        check_sections(policy)
    return policy


def load_layer(path: str | os.PathLike[str], label: str | None = None) -> Layer:
    """One manifest file, validated, as a layer. Raises PolicyError."""
    name = os.fspath(path)
    if os.path.basename(name) == "pyproject.toml":  # its [tool.clawgate] table
        from clawgate.policy.tomlload import read_pyproject

        data, lines = read_pyproject(name)
        layer = layer_from_data(data, lines, name, label or os.path.basename(name))
        return layer._replace(narrow_only=True)  # a file agents edit: it may only narrow
    from clawgate.policy.yamlload import read_manifest

    data, lines = read_manifest(name)
    return layer_from_data(data, lines, name, label or os.path.basename(name))


def layer_from_data(data: Any, lines: Lines, name: str, label: str) -> Layer:
    """Validate parsed manifest data (with its line map) into a Layer."""
    from pydantic import ValidationError

    from clawgate.policy.models import Manifest

    if not isinstance(data, dict):
        raise PolicyError(name, 1, "a manifest is a mapping of keys (start with `version: 1`)")
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, name, lines) from exc
    explicit = manifest.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if "permissions" in explicit:  # the block makes every tier explicit: false unless set
        explicit["permissions"] = manifest.permissions.model_dump() if manifest.permissions \
            else {}
    workspace = explicit.get("workspace")
    if isinstance(workspace, str):
        base = os.path.dirname(os.path.abspath(name))
        explicit["workspace"] = os.path.normpath(
            os.path.join(base, os.path.expanduser(workspace)))
    check_examples(explicit, lines, name, label)
    return Layer(label, name, explicit, bool(explicit.get("locked", False)), lines)


def check_examples(explicit: Mapping[str, Any], lines: Lines, name: str, label: str) -> None:
    """Every rule's ``match``/``not_match`` examples must behave as written."""
    from clawgate.policy.matching import compile_rule, example_failures
    from clawgate.policy.yamlload import line_of

    for index, rule in enumerate(explicit.get("shell", {}).get("rules", ())):
        problems = example_failures(compile_rule(rule, label), rule.get("examples", {}))
        if problems:
            where = ("shell", "rules", index, "examples")
            raise PolicyError(name, line_of(lines, where),
                              f"shell.rules[{index}] ({rule['id']}): {problems[0]}")


def validation_error(exc: ValidationError, name: str, lines: Lines) -> PolicyError:
    """pydantic's error as ``file:line: key: what is wrong`` (the first error; others after)."""
    from clawgate.policy.yamlload import line_of

    found: list[tuple[int | None, str]] = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        item = re.match(r"\[(\d+)\]: ", message)  # a list validator naming the bad item
        if item:
            loc, message = (*loc, int(item.group(1))), message[item.end():]
        shown = _known_prefix(loc, lines)
        if error["type"] == "missing" and loc:
            shown = (*shown, loc[-1])
        if error["type"] == "extra_forbidden":
            message = "unknown key"
        key = _dotted(shown) or "(top level)"
        found.append((line_of(lines, shown), f"{key}: {message}"))
    line, detail = found[0]
    rest = "".join(f"\n{name}:{ln}: {text}" for ln, text in found[1:])
    return PolicyError(name, line, detail + rest)


def _known_prefix(loc: tuple[Any, ...], lines: Lines) -> tuple[Any, ...]:
    for end in range(len(loc), -1, -1):
        if tuple(loc[:end]) in lines:
            return tuple(loc[:end])
    return ()


def _dotted(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def check_groups(layers: list[Layer], check_tool_names: bool = True) -> None:
    """Every group a layer names is defined (built in or in some layer); no definition cycles;
    every tool name is known (see ``known_tool``)."""
    from clawgate.policy.catalog import is_group
    from clawgate.policy.visibility import groups_of
    from clawgate.policy.yamlload import line_of

    groups = groups_of(merge(tuple(layers)))
    cycle = groups.cycle()
    if cycle is not None:
        name, detail = cycle
        where = ("tools", "groups", name)
        layer = next((la for la in reversed(layers)
                      if name in la.data.get("tools", {}).get("groups", {})), layers[-1])
        raise PolicyError(layer.path, line_of(dict(layer.lines), where),
                          f"tools.groups.{name}: {detail}")
    custom = {name for layer in layers for name in layer.data.get("tools", {}).get("custom", {})}
    for layer in layers:
        for where, entry in _tool_entries(layer.data.get("tools", {}), ("tools",)):
            if is_group(entry) and not groups.known(entry):
                raise PolicyError(layer.path, line_of(dict(layer.lines), where),
                                  f"{_dotted(where)}: unknown group {entry!r}")
            if check_tool_names and not is_group(entry) and not known_tool(entry, custom):
                raise PolicyError(layer.path, line_of(dict(layer.lines), where),
                                  f"{_dotted(where)}: unknown tool {entry!r} (not a built-in "
                                  "tool, a group, an MCP server__tool name or a tools.custom "
                                  "tool of any layer; declare a tool added in code under "
                                  "tools.custom)")


def known_tool(entry: str, custom: set[str]) -> bool:
    """A built-in tool, a custom tool declared in any layer, a glob, ``mcp``, ``mcp:<server>``
    or an MCP ``server__tool`` name (those cannot be checked here: ``policy lint`` warns)."""
    from clawgate.policy.catalog import BUILTIN_TOOLS, is_glob, is_mcp_tool

    return (entry in BUILTIN_TOOLS or entry in custom or is_glob(entry) or entry == "mcp"
            or (entry.startswith("mcp:") and len(entry) > 4) or is_mcp_tool(entry))


def _tool_entries(tools: Mapping[str, Any], prefix: tuple[Any, ...]
                  ) -> list[tuple[tuple[Any, ...], str]]:
    """(where, entry) for every tool or group name in a ``tools`` mapping."""
    found: list[tuple[tuple[Any, ...], str]] = []
    for key, value in tools.items():
        where = (*prefix, key)
        if key in ("profile", "maxDepth", "parameters", "description", "command"):
            continue
        if isinstance(value, Mapping):
            found += _tool_entries(value, where)
        elif isinstance(value, list | tuple):
            found += [((*where, i), v) for i, v in enumerate(value) if isinstance(v, str)]
    return found


def check_sections(policy: Policy) -> None:
    """The combined sections must still be valid (``timeout_s`` under ``max_timeout_s`` ...)."""
    from pydantic import ValidationError

    where = ", ".join(layer.path for layer in policy.layers)
    for name in SECTIONS:
        try:
            getattr(policy, name)
        except ValidationError as exc:
            problem = exc.errors()[0]
            detail = str(problem["msg"]).removeprefix("Value error, ")
            raise PolicyError(where, None, f"{name} after layering: {detail}") from exc
