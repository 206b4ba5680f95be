"""Archive and copy tools that write entries the line does not name, judged by where they put
them (CG-FS-002): an option value glued to its name and known only at run time (``-o$HOME``,
``-C"$HOME"``), extractors that take their destination by option or operand (7-Zip's builds,
``unar``, ``cpio -D``, ``ditto``, ``pax -s``/``-rw``), the working directory when none is
given (``cd ~ && ar x``), a directory below ``~/.config`` and a tilde after ``--work-tree=``."""

from __future__ import annotations

import pytest
from vtables import DENY, assert_allowed, assert_caught

from clawgate.decision import Outcome
from clawgate.programs.scan import literal_head
from clawgate.shell import parse_one
from clawgate.validators.flags import parse_options
from clawgate.validators.writes import write_targets


@pytest.mark.parametrize(("line", "expected"), [
    # a glued option value that is a variable
    ("7z x -o$HOME a.7z", DENY),
    ("7z x -o\"$HOME\" a.7z", DENY),
    ("7z x -o${HOME}/.config a.7z", DENY),
    ("7z x a.7z -o$HOME", DENY),
    ("7za x -o$HOME a.7z", DENY),
    ("7zr x -o$HOME a.7z", DENY),
    ("7zz x -o$HOME/.ssh a.7z", DENY),
    ("tar -xf a.tar -C$HOME", DENY),
    ("tar -xzf x.tgz -C\"$HOME\"", DENY),
    ("cpio -idD$HOME < a.cpio", DENY),
    ("gcc -o$HOME/.bashrc x.c", DENY),
    # destinations the catalog did not know
    ("cat a.cpio | cpio -idm -D ~", DENY),
    ("cpio -id --directory=$HOME < a.cpio", DENY),
    ("bsdcpio -id -D ~ < a.cpio", DENY),
    ("unar -o ~ a.zip", DENY),
    ("unar -output-directory $HOME a.rar", DENY),
    ("ditto x ~", DENY),
    ("ditto -x -k a.zip $HOME", DENY),
    ("pax -r -s ',^,/root/,' < a.pax", DENY),
    ("pax -r -s ',^,~/,' -f a.pax", DENY),
    ("pax -rw src ~", DENY),
    # extracting into the working directory, after a cd home
    ("cd ~ && ar x lib.a", DENY),
    ("cd $HOME && 7z x a.7z", DENY),
    ("cd ~ && 7za e a.7z", DENY),
    ("cd ~ && cpio -id < a.cpio", DENY),
    ("cd ~/.config && unar a.zip", DENY),
    ("cd ~ && pax -r -f a.pax", DENY),
    # an application's configuration directory
    ("git clone https://example.com/x.git ~/.config/x", DENY),
    ("git clone https://example.com/x.git $HOME/.config/nvim", DENY),
    ("rsync -a dotfiles/nvim/ ~/.config/nvim", DENY),
    ("7z x -o$HOME/.config/nvim a.7z", DENY),
])
def test_tree_written_where_start_up_files_live(line: str, expected: Outcome) -> None:
    assert_caught(line, expected, "CG-FS-002")


@pytest.mark.parametrize(("line", "expected"), [
    ("git --work-tree=~ checkout .", DENY),
    ("git --work-tree=~ clean -fdx", DENY),
])
def test_tilde_after_work_tree(line: str, expected: Outcome) -> None:
    assert_caught(line, expected, "CG-DEST-002")


@pytest.mark.parametrize("line", [
    "7z x -obuild a.7z",
    "7za x -obuild a.7z",
    "7z x -o\"$PWD/build\" a.7z",
    "7z a -r out.7z src",
    "unzip -d vendor x.zip",
    "unzip -q x.zip -d \"$PWD/vendor\"",
    "tar -xzf x.tgz -C\"$PWD/build\"",
    "cpio -id -D build < a.cpio",
    "cpio -idmv < a.cpio",
    "find . -name '*.c' | cpio -o -H newc > a.cpio",
    "unar -o build a.zip",
    "ditto x build",
    "ar x lib.a",
    "ar rcs libfoo.a a.o b.o",
    "pax -r -f a.pax",
    "pax -rw src build",
    "pax -r -s ',^,vendor/,' -f a.pax",
    "gcc -o$PWD/app main.c",
    "grep -e$PAT src/main.c",
])
def test_near_misses_allowed(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "written"), [
    ("7z x -o$HOME a.7z", ["$HOME"]),
    ("7z x -o\"$OUT\" a.7z", ["\"$OUT\""]),
    ("cc -o$OUT main.c", ["$OUT"]),
    ("cpio -i --directory=$D", ["$D"]),
    ("7z x -x$SKIP a.7z", []),
])
def test_glued_values_known_at_run_time(line: str, written: list[str]) -> None:
    assert [w.text for w in write_targets(parse_one(line))] == written


@pytest.mark.parametrize(("text", "head"), [
    ("-o$HOME", "-o"),
    ("-o\"$X\"", "-o"),
    ("--directory=${D}", "--directory="),
    ("-o~", "-o~"),
    ("$HOME", ""),
])
def test_literal_head(text: str, head: str) -> None:
    assert literal_head(text) == head


def test_short_option_value_glued_to_a_variable() -> None:
    options = parse_options(parse_one("tar -xf a.tar -C$HOME").words[1:],
                            takes_value=frozenset({"C", "f"}))
    assert options.value("C") == "$HOME"
    assert options.has("x")
    assert [w.text for w in options.operands] == []
