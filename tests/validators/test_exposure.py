"""Secrets and exposure (CG-EXPO): the whole environment into the context, the machine served
beyond loopback, tunnels: ASK."""

from __future__ import annotations

import pytest
from vtables import ASK, assert_allowed, assert_caught, decide

from clawgate.decision import Outcome


@pytest.mark.parametrize(("line", "rule"), [
    ("env", "CG-EXPO-001"),
    ("printenv", "CG-EXPO-001"),
    ("printenv | sort", "CG-EXPO-001"),
    ("compgen -e", "CG-EXPO-001"),
    ("compgen -v", "CG-EXPO-001"),
    ("compgen -A export", "CG-EXPO-001"),
    ('for v in $(compgen -e); do echo "$v=${!v}"; done', "CG-EXPO-001"),
    ("env -u X", "CG-EXPO-001"),
    ("env -i --debug", "CG-EXPO-001"),
    ("env --nu", "CG-EXPO-001"),  # --null abbreviated, as GNU getopt takes it
    ("export -p", "CG-EXPO-001"),
    ("export", "CG-EXPO-001"),
    ("declare -x", "CG-EXPO-001"),
    ("declare -p", "CG-EXPO-001"),
    ("set", "CG-EXPO-001"),
    ("ps eww", "CG-EXPO-001"),
    ("ps auxe", "CG-EXPO-001"),
    ("python -m http.server", "CG-EXPO-002"),
    ("python3.11 -m http.server 8000", "CG-EXPO-002"),
    ("python3 -m http.server -b 0.0.0.0", "CG-EXPO-002"),
    ("python3 -mhttp.server pytest", "CG-EXPO-002"),  # glued: as CPython reads it
    ("python3 -Bm http.server 9000", "CG-EXPO-002"),
    ("python3 -W ignore -m http.server", "CG-EXPO-002"),
    ("php -S 0.0.0.0:8000", "CG-EXPO-002"),
    ("nc -l 4444", "CG-EXPO-002"),
    ("nc -lvp 4444", "CG-EXPO-002"),
    ("socat TCP-LISTEN:8080,fork TCP:localhost:80", "CG-EXPO-002"),
    ("ruby -run -e httpd . -p 8000", "CG-EXPO-002"),
    ("flask run --host=0.0.0.0", "CG-EXPO-002"),
    ("uvicorn app:app --host 0.0.0.0 --port 80", "CG-EXPO-002"),
    ("npx vite --host", "CG-EXPO-002"),
    ("python manage.py runserver 0.0.0.0:8000", "CG-EXPO-002"),
    ("ttyd bash", "CG-EXPO-002"),
    ("npm run dev -- --host --port 3000", "CG-EXPO-002"),
    ("ngrok http 8000", "CG-EXPO-003"),
    ("cloudflared tunnel --url http://localhost:8000", "CG-EXPO-003"),
    ("ssh -R 80:localhost:3000 serveo.net", "CG-EXPO-003"),
    ("lt --port 8000", "CG-EXPO-003"),
    ("npx localtunnel --port 8000", "CG-EXPO-003"),
    ("bore local 8000 --to bore.pub", "CG-EXPO-003"),
    ("tailscale funnel 8080", "CG-EXPO-003"),
    ("gdb -p $PPID -batch -ex 'info proc'", "CG-EXPO-004"),
    ("gdb -batch -ex 'attach 1'", "CG-EXPO-004"),
    ("strace -p 1", "CG-EXPO-004"),
    ("strace -fp1", None),
    ("gcore 1234", "CG-EXPO-004"),
    ("py-spy dump --pid 1 --locals", "CG-EXPO-004"),
])
def test_exposure_asks(line: str, rule: str) -> None:
    assert_caught(line, ASK, rule)


@pytest.mark.parametrize("line", [
    "printenv HOME",
    "compgen -c git",
    "compgen -f src",
    'compgen -W "start stop" st',
    "env FOO=1 make",
    "env -u GITHUB_ACTIONS make test",
    "env --version",  # prints its version and exits
    "env --help",
    "env --vers",
    "env --show-stats",  # an option env does not know: an error, nothing printed
    "env --ig",  # ambiguous (--ignore-environment, --ignore-signal): an error
    "export NODE_ENV=production",
    "declare -p PATH",
    "set -euo pipefail",
    "ps aux",
    "ps -ef",
    "ps -C node",
    "python3 -m http.server 8000 --bind 127.0.0.1",
    "python3 -mhttp.server -b 127.0.0.1",
    "php -S localhost:8000",
    "uvicorn app:app --host 127.0.0.1",
    "./configure --host=x86_64-linux-gnu",
    "ngrok version",
    "code --list-extensions",  # (code . opens a folder: CG-ESC-014 asks)
    "gdb ./a.out",
    "strace ls",
])
def test_named_values_and_loopback_are_allowed(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize("line", [
    "python3 -m http.server --directory ~/.ssh 8000 --bind 0.0.0.0",
    "python3 -m http.server --directory ~ 8000",
    "php -S 0.0.0.0:8000 -t ~",
    "npx http-server ~/.aws -p 8080",
    "cd ~ && python3 -m http.server 8000",  # the working directory served
    "cd ~/.ssh; python3 -m http.server",
])
def test_a_credential_store_or_home_served_to_the_network_is_denied(line: str) -> None:
    outcome, rules = decide(line)
    assert outcome is Outcome.DENY and "CG-EXPO-002" in rules, rules


@pytest.mark.parametrize("line", [
    "cd docs && python3 -m http.server 8000",
    "cd ~ && python3 -m http.server --directory /tmp/site 8000",
])
def test_a_project_directory_served_still_asks(line: str) -> None:
    assert decide(line)[0] is Outcome.ASK
