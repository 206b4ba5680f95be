"""CG-ESC-017: code a line clones and then runs, before anyone read it."""

from __future__ import annotations

import pytest
from vtables import ASK, assert_allowed, assert_caught


@pytest.mark.parametrize("line", [
    'git clone https://github.com/x/y && cd y && ./install.sh',
    'git clone https://github.com/x/y.git && cd y && make',
    'git clone --depth 1 -b main https://github.com/x/y repo && bash repo/setup.sh',
    'git clone git@github.com:x/y.git && cd y && npm install',
    'gh repo clone x/y && cd y && pip install -e .',
    'git clone https://github.com/x/y && make -C y',
    'git clone https://github.com/x/y && python y/setup.py install',
    'git clone https://github.com/x/y && cd y && cargo build --release',
    'git clone https://github.com/x/y /tmp/y && /tmp/y/run.sh',
    'svn co https://svn.example.org/repo/trunk proj && cd proj && ./configure',
    'git -c http.sslVerify=true clone https://github.com/x/y && cd y && make',
])
def test_fetched_then_run(line: str) -> None:
    assert_caught(line, ASK, None)
    assert_caught(line.replace("&&", ";"), ASK, None)


@pytest.mark.parametrize("line", [
    'git clone https://github.com/x/y && ls y',
    'git clone https://github.com/x/y && cd y && git log --oneline | head',
    'git clone https://github.com/x/y vendor/y && cat vendor/y/README.md',
    'cd build && make',
    'git checkout main && make',
    'git clone https://github.com/x/y && make',
    'git clone https://github.com/x/y && cd y && cd .. && npm test',
])
def test_fetched_and_read_or_run_elsewhere(line: str) -> None:
    assert_allowed(line)
