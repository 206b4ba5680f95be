"""The tool contract: a name, a description, a JSON Schema for arguments, and ``execute``."""

from __future__ import annotations

import inspect
import json
import types
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from clawgate.errors import ToolError, ToolErrorKind

Result = dict[str, Any]
MAX_ARGUMENT_BYTES = 1 << 20  # arguments larger than 1 MiB are refused before validation


@runtime_checkable
class Tool(Protocol):
    """What the guard can call. ``execute`` may be a coroutine function."""

    name: str
    description: str
    parameters: dict[str, Any]

    def execute(self, args: dict[str, Any]) -> Result | Awaitable[Result]: ...


class ToolRegistry:
    """Tools by name. A second registration of a name replaces the first."""

    def __init__(self, tools: typing.Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> Tool:
        self._tools[tool.name] = tool
        return tool

    def get(self, name: str) -> Tool:
        tool = self._tools.get(name)
        if tool is None:
            raise ToolError(ToolErrorKind.NOT_FOUND, f"no tool named {name!r}")
        return tool

    def names(self) -> list[str]:
        return sorted(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def validate(self, name: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments as a dict, or InvalidArgs naming the first wrong field."""
        return validate_arguments(self.get(name).parameters, args)

    def specs(self, fmt: str = "openai", names: typing.Iterable[str] | None = None
              ) -> list[dict[str, Any]]:
        """Function-calling specs for ``names`` (default: all) in ``openai``, ``anthropic`` or
        ``mcp`` form."""
        chosen = self.names() if names is None else sorted(n for n in names if n in self)
        return [spec_of(self._tools[n], fmt) for n in chosen]


def spec_of(tool: Tool, fmt: str) -> dict[str, Any]:
    if fmt == "openai":
        return {"type": "function", "function": {
            "name": tool.name, "description": tool.description, "parameters": tool.parameters}}
    if fmt == "anthropic":
        return {"name": tool.name, "description": tool.description,
                "input_schema": tool.parameters}
    if fmt == "mcp":
        return {"name": tool.name, "description": tool.description,
                "inputSchema": tool.parameters}
    raise ValueError(f"unknown spec format {fmt!r}: use openai, anthropic or mcp")


def validate_arguments(schema: Mapping[str, Any], args: Any) -> dict[str, Any]:
    import jsonschema

    if not isinstance(args, Mapping):
        raise ToolError(ToolErrorKind.INVALID_ARGS,
                        f"arguments must be an object, not {type(args).__name__}")
    try:
        size = len(json.dumps(args, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    except (TypeError, ValueError) as exc:
        raise ToolError(ToolErrorKind.INVALID_ARGS, f"arguments are not JSON: {exc}") from exc
    if size > MAX_ARGUMENT_BYTES:
        raise ToolError(ToolErrorKind.INVALID_ARGS,
                        f"arguments are {size} bytes; the limit is {MAX_ARGUMENT_BYTES}")
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(dict(args)))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(arguments)"
        raise ToolError(ToolErrorKind.INVALID_ARGS, f"{where}: {error.message}")
    return dict(args)


@dataclass
class FunctionTool:
    """A tool made from a typed Python function; the schema comes from its signature."""

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., Any]

    def execute(self, args: dict[str, Any]) -> Result | Awaitable[Result]:
        value = self.function(**args)
        if inspect.isawaitable(value):
            return _wrap_async(value)
        return value if isinstance(value, dict) else {"result": value}

    @classmethod
    def from_function(cls, function: Callable[..., Any], name: str | None = None
                      ) -> FunctionTool:
        doc = inspect.getdoc(function) or ""
        return cls(name or function.__name__, doc.split("\n\n")[0], schema_of(function),
                   function)


async def _wrap_async(value: Awaitable[Any]) -> Result:
    result = await value
    return result if isinstance(result, dict) else {"result": result}


_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean",
                               dict: "object", list: "array"}


def schema_of(function: Callable[..., Any]) -> dict[str, Any]:
    """A JSON Schema for a function's keyword arguments, from its type hints."""
    hints = typing.get_type_hints(function)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in inspect.signature(function).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        properties[param.name] = _schema_of_type(hints.get(param.name, str))
        if param.default is param.empty:
            required.append(param.name)
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}


def _schema_of_type(hint: Any) -> dict[str, Any]:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        inner = _schema_of_type(options[0]) if len(options) == 1 else {}
        return {"anyOf": [inner, {"type": "null"}]} if inner else {}
    if origin is list:
        (item,) = typing.get_args(hint) or (str,)
        return {"type": "array", "items": _schema_of_type(item)}
    if origin is typing.Literal:
        return {"enum": list(typing.get_args(hint))}
    json_type = _JSON_TYPES.get(origin or hint)
    return {"type": json_type} if json_type else {}
