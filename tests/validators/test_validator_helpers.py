"""The helpers validators share: option normalisation, path resolution, write targets and
credential paths."""

from __future__ import annotations

import pytest

from clawgate.shell import parse_one
from clawgate.validators.base import Context
from clawgate.validators.credentials import is_credential
from clawgate.validators.flags import git_subcommand, parse_options
from clawgate.validators.paths import resolve
from clawgate.validators.writes import write_targets

CTX = Context("/home/dev/project/src", "/home/dev/project", "/home/dev")
RM = {"R": "r", "--recursive": "r", "--force": "f"}


@pytest.mark.parametrize("line", ["rm -rf x", "rm -fr x", "rm -r -f x", "rm --recursive --force x",
                                  "rm -R --force x", "rm x -rf", "rm -f x --recursive"])
def test_every_spelling_of_recursive_force(line: str) -> None:
    options = parse_options(parse_one(line).words[1:], aliases=RM)
    assert options.has("r") and options.has("f")
    assert options.operand_values == ("x",)


def test_double_dash_ends_options() -> None:
    options = parse_options(parse_one("rm -f -- -rf").words[1:], aliases=RM)
    assert not options.has("r")
    assert options.operand_values == ("-rf",)


@pytest.mark.parametrize(("line", "value"), [("sort -o out.txt in", "out.txt"),
                                             ("sort -oout.txt in", "out.txt"),
                                             ("sort --output=out.txt in", "out.txt"),
                                             ("sort --output out.txt in", "out.txt")])
def test_option_values_glued_or_apart(line: str, value: str) -> None:
    options = parse_options(parse_one(line).words[1:], aliases={"--output": "o"},
                            takes_value=frozenset({"o"}))
    assert options.value("o") == value
    assert options.operand_values == ("in",)


def test_git_subcommand_skips_global_options() -> None:
    name, args = git_subcommand(parse_one("git -C repo -c core.pager=cat --no-pager log -1"))
    assert name == "log"
    assert [w.shown for w in args] == ["-1"]


@pytest.mark.parametrize(("word", "path", "if_unset"), [
    ("~", "/home/dev", None),
    ("~/x", "/home/dev/x", None),
    ("$HOME/x", "/home/dev/x", None),
    ("${HOME}", "/home/dev", None),
    ('"$HOME"/.ssh', "/home/dev/.ssh", None),
    ("..", "/home/dev/project", None),
    ("../../..", "/home", None),
    ("/usr/../etc", "/etc", None),
    ("//", "/", None),
    ("$X/", None, "/"),
    ('"$STEAMROOT/"*', None, "/"),
    ("${DIR:?}/", None, None),
    ("${DIR:-build}/out", None, "/home/dev/project/src/build/out"),
    ("$(pwd)/x", None, None),
    ("'~'", "/home/dev/project/src/~", None),
])
def test_resolve(word: str, path: str | None, if_unset: str | None) -> None:
    found = resolve(parse_one(f"ls {word}").words[1], CTX)
    assert (found.path, found.if_unset) == (path, if_unset)


def test_a_glob_stands_for_the_directory_contents() -> None:
    found = resolve(parse_one("ls /usr/*").words[1], CTX)
    assert found.path == "/usr"
    assert found.contents


@pytest.mark.parametrize(("line", "targets"), [
    ("ls > out 2>&1", ["out"]),
    ("cmd 2> err.log >&2", ["err.log"]),
    ("tee -a a b", ["a", "b"]),
    ("cp -r a b dest", ["dest"]),
    ("cp -t dest a b", ["dest"]),
    ("mv a b", ["b"]),
    ("sed -i s/a/b/ f1 f2", ["f1", "f2"]),
    ("sed -e s/a/b/ -i f1", ["f1"]),
    ("sed s/a/b/ f1", []),
    ("dd if=a of=b", ["b"]),
    ("git diff --output=p.patch", ["p.patch"]),
    ("rm -f a b", ["a", "b"]),
    ("chmod 644 a", ["a"]),
    ("rsync -a src/ host:dest/", []),
    ("cat a", []),
])
def test_write_targets(line: str, targets: list[str]) -> None:
    assert [w.shown for w in write_targets(parse_one(line))] == targets


@pytest.mark.parametrize(("path", "expected"), [
    ("/home/dev/.ssh/id_rsa", True),
    ("/home/dev/.ssh/id_rsa.pub", False),
    ("/home/dev/.ssh/known_hosts", False),
    ("/home/dev/.aws/credentials", True),
    ("/home/dev/.kube/config", True),
    ("/home/dev/project/.env", True),
    ("/home/dev/project/.env.local", True),
    ("/home/dev/project/.env.example", False),
    ("/home/dev/project/src/environment.py", False),
    ("/etc/shadow", True),
    ("/home/dev/project/shadow", False),
])
def test_credential_paths(path: str, expected: bool) -> None:
    assert is_credential(path, CTX) is expected
