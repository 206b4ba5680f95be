"""Red team, GTFOBins: every documented way an ordinary program runs shells and commands,
writes and reads files, moves data or loads libraries, decided by the engine.

``gtfobins.jsonl`` is generated from a GTFOBins snapshot by ``bench/gtfobins_cases.py``
(its ``source`` field names the commit). Each judged case must not be ALLOW: a shell, a
command, a reverse or bind shell, a library load, a transfer over the network, a write whose
target is ``~/.bashrc`` (or another startup file), a read of ``~/.ssh/id_rsa`` (or another
secret), and every ``sudo`` form. Cases that need an interactive step after the command
(``less f`` then ``!/bin/sh`` typed at its prompt) are kept in the data with the reason they
are skipped, and counted here.

The near-misses are ordinary uses of the same programs, which stay ALLOW.

These lines are data: they are decided by the engine, never run.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

CWD = "/tmp/workspace"
DATA = Path(__file__).with_name("gtfobins.jsonl")
ROWS: list[dict[str, Any]] = [json.loads(line) for line in DATA.read_text("utf-8").splitlines()]

# (binary, function, example, context) -> the written cause of a remaining miss
XFAIL: dict[tuple[str, str, int, str], str] = {}


def _key(row: dict[str, Any]) -> tuple[str, str, int, str]:
    return (row["binary"], row["function"], row["example"], row["context"])


def _params() -> list[Any]:
    out = []
    for row in ROWS:
        if row["skipped"]:
            continue
        marks = []
        cause = XFAIL.get(_key(row))
        if cause is not None:
            marks.append(pytest.mark.xfail(strict=True, reason=cause))
        ident = f"{row['binary']}-{row['function']}-{row['example']}-{row['context']}"
        out.append(pytest.param(row["code"], id=ident, marks=marks))
    return out


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def test_data_shape() -> None:
    """Every case names its source commit; the skipped ones say why, and stay a minority."""
    assert ROWS
    assert all(row["source"].startswith("GTFOBins/GTFOBins.github.io@") for row in ROWS)
    assert all(row["expect"] == "not_allow" for row in ROWS)
    skipped = Counter(row["function"] for row in ROWS if row["skipped"])
    judged = Counter(row["function"] for row in ROWS if not row["skipped"])
    assert sum(judged.values()) > 2 * sum(skipped.values())
    for function in ("shell", "command", "reverse-shell", "bind-shell", "library-load",
                     "file-write", "file-read", "upload", "download"):
        assert judged[function] > 0, function
    keys = [_key(row) for row in ROWS if not row["skipped"]]
    assert len(keys) == len(set(keys))
    assert set(XFAIL) <= set(keys), "an XFAIL entry names no judged case"


@pytest.mark.parametrize("line", _params())
def test_gtfobins_case_is_not_allow(engine: Engine, line: str) -> None:
    assert engine.check(line, cwd=CWD).outcome is not Outcome.ALLOW


# ordinary uses of the same programs: they read, build and list inside the workspace
NEAR_MISSES = [
    "tar -czf out.tgz src",
    "tar -xzf vendor.tgz -C build",
    "tar -tvf release.tar",
    "awk '{print $1}' data.txt",
    "awk -F, 'NR > 1 {s += $3} END {print s}' sales.csv",
    "find . -name '*.py'",
    "find src -type f -newer Makefile -print",
    "sed -n '1,20p' README.md",
    "sed -i 's/foo/bar/g' src/app.py",
    "cpio -t < archive.cpio",
    "split -l 1000 big.csv part_",
    "csplit -f chunk_ notes.txt '/^##/' '{*}'",
    "file src/app.py",
    "wc -l src/app.py",
    "dd if=disk.img of=copy.img bs=1M",
    "openssl enc -aes-256-cbc -pbkdf2 -in notes.txt -out notes.enc -pass pass:x",
    "openssl dgst -sha256 dist/app.tar.gz",
    "diff -ru old/ new/",
    "gcc -O2 -o build/app src/main.c",
    "gdb -batch -ex bt ./build/app core",
    "git apply fix.patch",
    "git diff --stat",
    "mypy src --junit-xml reports/mypy.xml",
    "exiftool photo.jpg",
    "dos2unix -n win.txt unix.txt",
    "strace -o trace.log ./build/app",
    "ltrace -o ltrace.log ./build/app",
    "script -q -c 'make test' build/session.log",
    "screen -ls",
    "zip -r out.zip src",
    "unzip -l dist/app.zip",
    "sqlite3 app.db 'select count(*) from users'",
    "python3 -c 'import json; print(json.dumps([1]))'",
    "node -e 'console.log(1+1)'",
    "perl -ne 'print if /TODO/' src/app.py",
    "jq '.name' package.json",
    "xargs -n1 echo < names.txt",
    "make -C build all",
    "latex paper.tex",
    "pdflatex -interaction=nonstopmode paper.tex",
    "base64 -d notes.b64 > notes.txt",
    "sort -o sorted.txt data.txt",
    "cat $(< files.txt)",
    "rustdoc src/lib.rs -o target/doc",
    "csvtool col 1 data.csv -o cols.csv",
    # the programs whose options the catalog learnt from GTFOBins, used as intended
    "strace -f -e trace=file -o build/trace.log make",
    "rlwrap -H build/.history sqlite3 app.db",
    "script -q -e -c 'npm test' build/test.typescript",
    "screen -list",
    "dmidecode --from-dump build/dmi.bin",
    "unix2dos notes.txt",
    "exiftool -o out/ -r photos",
    "exiftool -all= photos/img.jpg",
    "gtester -o build/tests.xml build/test-suite",
    "mypy --html-report build/mypy src",
    "varnishncsa -r build/varnish.log",
    "arj x release.arj build/",
    "file -f filelist.txt",
    "wc --files0-from=build/files0.txt",
    "restic -r build/restic-repo snapshots",
    "openssl x509 -in certs/server.crt -noout -text",
    "tar -cPf build/cache.tar src",
    "tar -xf vendor.tar -C build",
    "unzip -o dist/app.zip -d build/app",
    "git apply --check fix.patch",
    "find . -name '*.md' -exec head -n 1 {} +",
    "echo src/main.c | cpio -o > build/src.cpio",
    "gdb -batch -ex 'dump memory build/mem.bin 0x1000 0x2000' build/app core",
    "sqlite3 app.db '.output build/users.csv' 'select * from users'",
    "pdflatex -output-directory build paper.tex",
    "latexmk -pdf paper.tex",
    "julia -e 'using Pkg; Pkg.status()'",
    "octave-cli --eval 'disp(pi)'",
    "jrunscript -e 'print(java.lang.System.getProperty(\"java.version\"))'",
    "go run ./cmd/tool",
    'v="$(< VERSION)"; echo "$v"',
    "dd if=build/disk.img of=build/copy.img bs=4k",
]


@pytest.mark.parametrize("line", NEAR_MISSES)
def test_gtfobins_near_miss_is_allow(engine: Engine, line: str) -> None:
    assert engine.check(line, cwd=CWD).outcome is Outcome.ALLOW
