"""Built-in file and memory tools against a real temporary workspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.tools.base import ToolRegistry
from clawgate.tools.files import file_tools
from clawgate.tools.memory import MEMORY_FILE, memory_tools
from clawgate.tools.paths import Workspace


@pytest.fixture
def registry(tmp_path: Path) -> ToolRegistry:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("one\ntwo\nthree\n")
    (tmp_path / "src" / "b.txt").write_text("two words\n")
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01binary")
    workspace = Workspace(tmp_path, forbidden=(), home=str(tmp_path / "home"))
    return ToolRegistry([*file_tools(workspace), *memory_tools(workspace)])


def call(registry: ToolRegistry, name: str, **args: object) -> dict[str, object]:
    tool = registry.get(name)
    result = tool.execute(registry.validate(name, args))
    assert isinstance(result, dict)
    return result


def test_read_file_with_a_line_range(registry: ToolRegistry) -> None:
    got = call(registry, "read_file", path="src/a.py", start_line=2, end_line=3)
    assert got["content"] == "two\nthree\n"
    assert got["total_lines"] == 3


@pytest.mark.parametrize(("args", "kind"), [
    ({"path": "../outside"}, ToolErrorKind.INVALID_PATH),
    ({"path": "/etc/passwd"}, ToolErrorKind.INVALID_PATH),
    ({"path": "src/missing.py"}, ToolErrorKind.FILE_NOT_FOUND),
    ({"path": "bin.dat"}, ToolErrorKind.INVALID_ARGS),
    ({"path": "src/a.py", "start_line": 3, "end_line": 1}, ToolErrorKind.INVALID_ARGS),
    ({"path": "a\x00b"}, ToolErrorKind.INVALID_PATH),
])
def test_read_file_refusals(registry: ToolRegistry, args: dict[str, object],
                            kind: ToolErrorKind) -> None:
    with pytest.raises(ToolError) as caught:
        call(registry, "read_file", **args)
    assert caught.value.kind is kind


@pytest.mark.parametrize(("args", "where"), [
    ({}, "path"),
    ({"path": 3}, "path"),
    ({"path": "x", "extra": 1}, "extra"),
])
def test_bad_arguments_name_the_field(registry: ToolRegistry, args: dict[str, object],
                                      where: str) -> None:
    with pytest.raises(ToolError) as caught:
        registry.validate("read_file", args)
    assert caught.value.kind is ToolErrorKind.INVALID_ARGS
    assert where in caught.value.message


def test_write_file_creates_parents_and_never_leaves_a_temp_file(
        registry: ToolRegistry, tmp_path: Path) -> None:
    got = call(registry, "write_file", path="new/deep/f.txt", content="hi")
    assert got == {"path": "new/deep/f.txt", "bytes_written": 2}
    assert (tmp_path / "new/deep/f.txt").read_text() == "hi"
    assert os.listdir(tmp_path / "new/deep") == ["f.txt"]


def test_edit_file_needs_exactly_one_match(registry: ToolRegistry, tmp_path: Path) -> None:
    assert call(registry, "edit_file", path="src/a.py", old_text="two",
                new_text="2")["replacements"] == 1
    assert (tmp_path / "src/a.py").read_text() == "one\n2\nthree\n"
    (tmp_path / "src/c.txt").write_text("x x")
    with pytest.raises(ToolError, match="matches 2 times") as caught:
        call(registry, "edit_file", path="src/c.txt", old_text="x", new_text="y")
    assert caught.value.kind is ToolErrorKind.INVALID_ARGS
    assert (tmp_path / "src/c.txt").read_text() == "x x"


def test_list_directory_is_sorted(registry: ToolRegistry) -> None:
    got = call(registry, "list_directory", path="src")
    assert got["entries"] == [{"name": "a.py", "is_dir": False, "size": 14},
                              {"name": "b.txt", "is_dir": False, "size": 10}]


def test_glob_and_grep(registry: ToolRegistry) -> None:
    assert call(registry, "glob", pattern="**/*.py")["matches"] == ["src/a.py"]
    with pytest.raises(ToolError):
        call(registry, "glob", pattern="../*")
    found = call(registry, "grep", pattern="two")
    assert [(m["path"], m["line"]) for m in found["matches"]] == [  # type: ignore[index, union-attr]
        ("src/a.py", 2), ("src/b.txt", 1)]
    with pytest.raises(ToolError, match="not a regular expression"):
        call(registry, "grep", pattern="(")


def test_memory_append_and_search(registry: ToolRegistry, tmp_path: Path) -> None:
    call(registry, "memory_write", content="The build uses make.")
    call(registry, "memory_write", content="Tests run with pytest.")
    assert (tmp_path / MEMORY_FILE).read_text() == (
        "The build uses make.\n\nTests run with pytest.\n")
    assert call(registry, "memory_read", query="pytest")["paragraphs"] == [
        "Tests run with pytest."]
    call(registry, "memory_write", content="Fresh.", mode="overwrite")
    assert call(registry, "memory_read")["paragraphs"] == ["Fresh."]


def test_registry_specs_in_three_formats(registry: ToolRegistry) -> None:
    openai = registry.specs("openai", ["read_file"])
    assert openai[0]["function"]["name"] == "read_file"
    assert registry.specs("anthropic", ["read_file"])[0]["input_schema"]["required"] == ["path"]
    assert "inputSchema" in registry.specs("mcp", ["read_file"])[0]
    with pytest.raises(ToolError) as caught:
        registry.get("nope")
    assert caught.value.kind is ToolErrorKind.NOT_FOUND


def test_second_registration_replaces_the_first(registry: ToolRegistry) -> None:
    from clawgate.tools.base import FunctionTool

    def read_file(path: str) -> dict[str, str]:
        """Another reader."""
        return {"path": path}

    registry.register(FunctionTool.from_function(read_file))
    assert registry.get("read_file").description == "Another reader."
