"""The filesystem facts a decision read: each reader notes a witness, and ``holds`` is False
once what it saw has changed; every read of the decision path goes through the module."""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from clawgate import fsfacts, fswitness

SRC = Path(fsfacts.__file__).resolve().parent

Read = Callable[[Path], object]
Change = Callable[[Path], object]


def _quiet(read: Read) -> Read:
    """``read`` with the OSError a missing path raises taken as an answer."""
    def run(base: Path) -> object:
        try:
            return read(base)
        except OSError as error:
            return error.errno
    return run


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _relink(base: Path) -> None:
    (base / "link").unlink()
    os.symlink("b", base / "link")


def _same_size_same_times(base: Path) -> None:
    info = os.stat(base / "a" / "f")
    (base / "a" / "f").write_text("two\n")
    os.utime(base / "a" / "f", ns=(info.st_atime_ns, info.st_mtime_ns))


# (what is read, the change that must make the fact no longer hold)
READS: list[tuple[str, Read, Change]] = [
    ("lstat", lambda b: fsfacts.lstat(str(b / "link")).st_ino, _relink),
    ("lstat-absent", _quiet(lambda b: fsfacts.lstat(str(b / "new"))),
     lambda b: os.symlink("a", b / "new")),
    ("stat", lambda b: fsfacts.stat(str(b / "a" / "f")).st_size,
     lambda b: _write(b / "a" / "f", "longer text\n")),
    ("stat-links", lambda b: fsfacts.stat(str(b / "a" / "f")).st_nlink,
     lambda b: os.link(b / "a" / "f", b / "b" / "g")),
    ("islink", lambda b: fsfacts.islink(str(b / "a" / "f")),
     lambda b: ((b / "a" / "f").unlink(), os.symlink("../b", b / "a" / "f"))),
    ("isdir", lambda b: fsfacts.isdir(str(b / "c")), lambda b: (b / "c").mkdir()),
    ("isfile", lambda b: fsfacts.isfile(str(b / "c")), lambda b: _write(b / "c", "x")),
    ("exists", lambda b: fsfacts.exists(str(b / "c")), lambda b: _write(b / "c", "x")),
    ("lexists", lambda b: fsfacts.lexists(str(b / "c")), lambda b: os.symlink("x", b / "c")),
    ("realpath", lambda b: fsfacts.realpath(str(b / "link" / "f")), _relink),
    ("read", lambda b: fsfacts.read(str(b / "a" / "f"), 100), _same_size_same_times),
    ("read-absent", _quiet(lambda b: fsfacts.read(str(b / "c"), 100)),
     lambda b: _write(b / "c", "x")),
    ("read-a-directory", _quiet(lambda b: fsfacts.read(str(b / "b"), 100)),
     lambda b: ((b / "b").rmdir(), _write(b / "b", "x"))),
    ("read-nofollow", _quiet(lambda b: fsfacts.read(str(b / "link"), 100, follow=False)),
     lambda b: ((b / "link").unlink(), _write(b / "link", "x"))),
    ("read-text", lambda b: fsfacts.read_text(str(b / "a" / "f"), 100),
     lambda b: _write(b / "a" / "f", "ONE\n")),
    ("listing", lambda b: fsfacts.listing(str(b / "a")), lambda b: _write(b / "a" / "g", "")),
    ("walk", lambda b: list(fsfacts.walk(str(b))), lambda b: _write(b / "b" / "deep" / "x", "")),
]


def tree(base: Path) -> Path:
    _write(base / "a" / "f", "one\n")
    (base / "b").mkdir()
    os.symlink("a", base / "link")
    return base


@pytest.mark.parametrize(("name", "read", "change"), READS, ids=[r[0] for r in READS])
def test_a_fact_holds_until_it_changes(tmp_path: Path, name: str, read: Read,
                                       change: Change) -> None:
    base = tree(tmp_path)
    with fsfacts.recording() as facts:
        read(base)
    assert facts.seen, name
    assert fsfacts.holds(facts)
    change(base)
    assert not fsfacts.holds(facts)


def test_the_readers_answer_as_the_os_does(tmp_path: Path) -> None:
    base = tree(tmp_path)
    (base / "crlf").write_bytes(b"a\r\nb\rc\n")
    assert fsfacts.realpath(str(base / "link" / "f")) == os.path.realpath(base / "link" / "f")
    assert [fsfacts.isdir(str(base / n)) for n in ("a", "link", "a/f", "no")] == \
        [True, True, False, False]
    assert [fsfacts.islink(str(base / n)) for n in ("a", "link", "no")] == [False, True, False]
    assert fsfacts.read_text(str(base / "crlf"), 100) == "a\nb\nc\n"
    assert fsfacts.read_text(str(base / "crlf"), 100, newline="") == "a\r\nb\rc\n"
    assert fsfacts.read_text(str(base / "crlf"), 3) == "a\nb"
    assert sorted(fsfacts.walk(str(base))) == sorted(os.walk(base))
    with pytest.raises(OSError):
        fsfacts.read(str(base / "link"), 10, follow=False)


def test_realpath_is_os_realpath_step_for_step(tmp_path: Path) -> None:
    base = tree(tmp_path)
    os.symlink(str(base / "a"), base / "absolute")
    os.symlink("loop2", base / "loop1")
    os.symlink("loop1", base / "loop2")
    os.symlink("link/../b", base / "up")
    os.symlink("chain2/f", base / "chain1")
    os.symlink("link", base / "chain2")
    os.symlink("self", base / "self")
    names = ["a/f", "link/f", "link/../b", "absolute/f", "absolute/../b", "loop1/x",
             "self", "up/x", "chain1", "no/such/../x", "a/f/x", "link/./f/", "..", "/",
             "a//f", "link/no/../f"]
    for name in names:
        path = name if name == "/" else f"{base}/{name}"
        with fsfacts.recording() as facts:
            assert fsfacts.realpath(path) == os.path.realpath(path), name
        assert fsfacts.holds(facts), name


def test_a_directory_holds_while_files_come_and_go_in_it(tmp_path: Path) -> None:
    base = tree(tmp_path)
    with fsfacts.recording() as facts:
        assert fsfacts.isdir(str(base / "a"))
    _write(base / "a" / "new", "x")
    assert fsfacts.holds(facts)
    (base / "a" / "new").unlink()
    (base / "a" / "f").unlink()
    (base / "a").rmdir()
    _write(base / "a", "a file now")
    assert not fsfacts.holds(facts)


@pytest.mark.parametrize("read", [
    lambda b: fsfacts.read(str(b / "a" / "f"), 100), lambda b: fsfacts.listing(str(b / "a"))])
def test_a_fact_read_while_racy_holds_once_its_times_tell(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read: Read) -> None:
    """Read within ``RACY_NS`` of its change, a file's content (a directory's names) is
    compared as well; later, when its times alone would tell, the fact still holds."""
    base = tree(tmp_path)
    monkeypatch.setattr(fswitness, "RACY_NS", 1 << 62)  # every file changed just now
    with fsfacts.recording() as facts:
        read(base)
    assert all(w[1] is not None for w in facts.seen.values())  # type: ignore[index]
    monkeypatch.setattr(fswitness, "RACY_NS", -(1 << 62))  # no file changed lately
    assert fsfacts.holds(facts)
    _write(base / "a" / "f", "two\n")
    _write(base / "a" / "g", "")
    assert not fsfacts.holds(facts)


def test_outside_a_recording_nothing_is_noted(tmp_path: Path) -> None:
    base = tree(tmp_path)
    assert fsfacts.isdir(str(base / "a"))
    with fsfacts.recording() as facts:
        pass
    assert facts.seen == {}


def test_an_inner_recording_gives_its_facts_to_the_outer(tmp_path: Path) -> None:
    base = tree(tmp_path)
    with fsfacts.recording() as outer:
        with fsfacts.recording() as inner:
            fsfacts.isdir(str(base / "a"))
        fsfacts.adopt(inner)
    assert set(outer.seen) == set(inner.seen) == {("stat", str(base / "a"), 0)}


def test_a_fact_seen_two_ways_in_one_decision_is_not_reused(tmp_path: Path) -> None:
    base = tree(tmp_path)
    with fsfacts.recording() as facts:
        fsfacts.isdir(str(base / "c"))
        (base / "c").mkdir()
        fsfacts.isdir(str(base / "c"))
    assert not facts.reusable
    assert not fsfacts.holds(facts)



def test_a_path_is_resolved_once_in_a_recording(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    base = tree(tmp_path)
    (base / "to").symlink_to(base / "a")
    path = str(base / "to" / "x")
    expected = os.path.realpath(path)
    looked: list[str] = []
    lstat = os.lstat
    monkeypatch.setattr(os, "lstat", lambda p, *a, **k: (looked.append(p), lstat(p, *a, **k))[1])
    with fsfacts.recording() as facts:
        first = fsfacts.realpath(path)
        read = len(looked)
        assert fsfacts.realpath(path) == first == expected
        assert len(looked) == read  # the links on the way are read once
    assert read and ("real", path, 1) in facts.seen
    with fsfacts.recording():  # another decision reads the disk again
        assert fsfacts.realpath(path) == first
    assert len(looked) == 2 * read


def test_a_link_changed_after_a_decision_read_it_is_seen(tmp_path: Path) -> None:
    base = tree(tmp_path)
    (base / "to").symlink_to(base / "a")
    path = str(base / "to" / "x")
    with fsfacts.recording() as facts:
        assert fsfacts.realpath(path) == fsfacts.realpath(path) == str(base / "a" / "x")
    assert fsfacts.holds(facts)
    (base / "to").unlink()
    (base / "to").symlink_to(base / "b")
    assert not fsfacts.holds(facts)

# -- every read of the decision path goes through fsfacts ---------------------------------------

# Parts of the package that do not decide, or read only what does not change under an engine:
# (prefix, why)
NOT_DECIDING = [
    ("executors/", "runs what was decided"), ("cli/", "the command line"),
    ("serve/", "the service around the engine"), ("integrations/", "the adapters"),
    ("daemon/", "the resident decider's process"), ("approval/", "approvals"),
    ("tools/", "the file tools, checked per call, no cache"), ("testing/", "the test kit"),
    ("shell/shadow/", "the shadow's sandbox: shadowing.py notes the directory it mirrors"),
    ("policy/", "manifests, loaded when an engine is made"),
    ("programs/", "the catalog: package data"), ("ignoretemplates/", "package data"),
    ("packages/__init__.py", "the popular-package lists: package data"),
    ("_version.py", "package metadata"), ("__init__.py", "the policy files of check()"),
    ("statedir.py", "the guard's own state files"), ("audit.py", "the audit log"),
    ("auditplace.py", "the audit log"), ("callpath.py", "wiring an engine to a workspace"),
    ("doctor.py", "a report on the machine"), ("fsfacts.py", "the readers themselves"),
    ("fswitness.py", "the witnesses the readers note, and their re-checks"),
]
_OS = {"stat", "lstat", "open", "listdir", "scandir", "walk", "readlink", "access"}
_OS_PATH = {"exists", "lexists", "isdir", "isfile", "islink", "realpath", "getsize",
            "getmtime", "samefile", "ismount"}
_PATHLIB = {"read_text", "read_bytes", "exists", "is_file", "is_dir", "is_symlink", "glob",
            "rglob", "iterdir", "stat", "lstat", "resolve", "open"}
_LISTING = {"os.listdir", "os.scandir", ".glob"}


def _read_call(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name) and func.id == "open":
        return "open"
    if not isinstance(func, ast.Attribute):
        return None
    owner = func.value
    if isinstance(owner, ast.Name) and owner.id == "os":
        return f"os.{func.attr}" if func.attr in _OS else None
    if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and \
            owner.value.id == "os" and owner.attr == "path":
        return f"os.path.{func.attr}" if func.attr in _OS_PATH else None
    if isinstance(owner, ast.Name) and owner.id in ("fsfacts", "re"):
        return None
    return f".{func.attr}" if func.attr in _PATHLIB else None


def _direct_reads(source: str) -> list[tuple[int, str]]:
    """The filesystem reads not made through fsfacts; a listing counts as noted where the
    function calls ``fsfacts.listing`` before it."""
    found: list[tuple[int, str]] = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module):
            continue
        calls = [n for n in ast.walk(function) if isinstance(n, ast.Call)]
        noted = [c.lineno for c in calls if isinstance(c.func, ast.Attribute)
                 and c.func.attr == "listing" and isinstance(c.func.value, ast.Name)
                 and c.func.value.id == "fsfacts"]
        for call in calls:
            kind = _read_call(call)
            if kind is None or (kind in _LISTING and any(n < call.lineno for n in noted)):
                continue
            found.append((call.lineno, kind))
    return sorted(set(found))


def test_every_read_of_the_decision_path_is_noted() -> None:
    unnoted = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if any(rel.startswith(prefix) for prefix, _ in NOT_DECIDING):
            continue
        unnoted += [f"{rel}:{line}: {kind}" for line, kind in
                    _direct_reads(path.read_text(encoding="utf-8"))]
    assert unnoted == []


def test_the_scan_finds_a_direct_read() -> None:
    source = ("import os\n"
              "def f(p):\n    return os.path.islink(p)\n"
              "def g(p):\n    fsfacts.listing(p)\n    return os.listdir(p)\n"
              "def h(p):\n    return os.listdir(p)\n")
    assert _direct_reads(source) == [(3, "os.path.islink"), (8, "os.listdir")]
