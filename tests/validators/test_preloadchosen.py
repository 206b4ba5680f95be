"""A preload of an installed library (asked, CG-ENV-001) on a line that can make the loaded
file one of its choosing is denied (CG-ENV-014)."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, decide

from clawgate.decision import Outcome


@pytest.mark.parametrize(("line", "expected"), [
    # the line links, copies or mounts onto a system library directory
    ("sudo ln -sf /tmp/evil.so /usr/lib/libx.so; LD_PRELOAD=/usr/lib/libx.so ls", DENY),
    ("sudo cp /tmp/evil.so /usr/lib/libx.so && LD_PRELOAD=/usr/lib/libx.so ls", DENY),
    ("sudo ln -s /tmp/e /usr/lib/e; LD_PRELOAD=/usr/lib/e/x.so ls", DENY),
    ("bwrap --bind /tmp/e /usr/lib --ro-bind / / env LD_PRELOAD=/usr/lib/x.so ls", DENY),
    ("docker run -v /tmp/e:/usr/lib img env LD_PRELOAD=/usr/lib/x.so ls", DENY),
    ("proot -b /tmp/e:/lib env LD_AUDIT=/lib/x.so ls", DENY),
    # as root, the directory written by any spelling of its path
    ("cd /usr && sudo ln -s /tmp/e.so lib/x.so; LD_PRELOAD=/usr/lib/x.so ls", DENY),
    ("sudo mv /tmp/e.so /usr/li?/x.so; LD_PRELOAD=/usr/lib/x.so ls", DENY),
    ('sudo install -D /tmp/e.so "/usr/"lib/x.so; LD_PRELOAD=/usr/lib/x.so ls', DENY),
    ("sudo dpkg -i ./x.deb && LD_PRELOAD=/usr/lib/x.so ls", DENY),
    # another root, other mounts
    ("chroot /tmp/root env LD_PRELOAD=/usr/lib/x.so ls", DENY),
    ("docker run img env LD_PRELOAD=/usr/lib/x.so ls", DENY),  # the image's library
    ("unshare -rm sh -c 'mount --bind /tmp/e /usr/lib; LD_PRELOAD=/usr/lib/x.so ls'", DENY),
    # where the compiler looks, what it is, where the loader finds a bare name
    ("export LIBRARY_PATH=/tmp/e; LD_PRELOAD=$(gcc -print-file-name=libx.so) ls", DENY),
    ("GCC_EXEC_PREFIX=/tmp/e/ LD_PRELOAD=$(gcc -print-file-name=libx.so) ls", DENY),
    ("export COMPILER_PATH=/tmp/e\nLD_PRELOAD=$(gcc -print-file-name=libx.so) ls", DENY),
    ("export CCC_OVERRIDE_OPTIONS='+-B/tmp/e'; "
     "LD_PRELOAD=$(clang -print-file-name=libx.so) ls", DENY),
    ("gcc() { echo /tmp/x.so; }; LD_PRELOAD=$(gcc -print-file-name=libx.so) ls", DENY),
    ("alias gcc='echo /tmp/x.so'; LD_PRELOAD=$(gcc -print-file-name=libx.so) ls", DENY),
    ("PATH=/tmp/e:$PATH; LD_PRELOAD=$(gcc -print-file-name=libx.so) ls", DENY),
    ("hash -p /tmp/e/gcc gcc; LD_PRELOAD=$(gcc -print-file-name=libx.so) ls", DENY),
    ("LD_LIBRARY_PATH=/tmp/e LD_PRELOAD=$(gcc -print-file-name=libevil.so) ls", DENY),
    # an installed library and nothing that chooses it: asked
    ("LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libasan.so.8 ./a.out", ASK),
    ("LD_PRELOAD=$(gcc -print-file-name=libasan.so) ./test", ASK),
    ("export CPATH=include; LD_PRELOAD=$(gcc -print-file-name=libasan.so) ./test", ASK),
    ("cd build && LD_PRELOAD=/lib/libSegFault.so ./app", ASK),
    ("LD_PRELOAD=/usr/lib/libjemalloc.so.2 make -j4", ASK),
])
def test_a_preload_the_line_may_choose(line: str, expected: Outcome) -> None:
    outcome, rules = decide(line)
    assert outcome is expected, (line, rules)
    assert ("CG-ENV-014" in rules) is (expected is DENY), rules
