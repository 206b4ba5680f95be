"""The secret validators' first look skips the per-word search for a word the command's text
already holds as bash reads it: the same answer as searching every word, over every command
the engine meets on the corpora and on generated lines."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_dispatch import _corpus_lines, _declared_commands
from test_shapes import _commands

from clawgate.shell.model import SimpleCommand
from clawgate.testing.strategies import any_input, lines
from clawgate.validators.credentials import HINT, hinted
from clawgate.validators.secrets import _first_look


def _every_word(cmd: SimpleCommand) -> bool:
    """The first look as it was written before: the text, then every word searched."""
    if HINT.search(cmd.text) is not None:
        return True
    return any(map(hinted, (*cmd.words, *(r.target for r in cmd.redirects
                                          if r.target is not None))))


def _assert_same(line: str) -> None:
    for cmd, _ in _commands(line):
        assert _first_look(cmd) is _every_word(cmd), (line, cmd.text)


def test_corpus_commands() -> None:
    found = _corpus_lines()
    if not found:
        pytest.skip("no shared corpus")
    for line in found:
        _assert_same(line)


@pytest.mark.parametrize("line", [
    "cat ~/.net'rc'", 'cat ~/.ne"trc"', "cat ~/.netr?", "cat ~/.ssh/id_rsa", "cat x\\.env",
    "cp $HOME/.aws/credentials /tmp", "cat notes.txt", "ls -la src", "cat < .env",
    "cat $'\\x2e'env",
])
def test_table(line: str) -> None:
    _assert_same(line)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_declared_commands(), lines(), any_input()))
def test_generated(line: str) -> None:
    _assert_same(line)


# The first look's names, one by one: the grouped pattern finds each of them, in a path and
# alone, and nothing in a path without one.
_NAMES = (".ssh .aws .env netrc .docker kube credentials id_ pgpass shadow .key gcloud .npmrc "
          ".pypirc .gnupg hosts.yml .azure vault-token my.cnf .p12 .pfx secret .jks ssh_host "
          "auth.json oauth .claude .codex .gemini token history Keychains chrom Chrome "
          "BraveSoftware microsoft-edge mozilla Firefox firefox Cookies password-store keyrings "
          "copilot .histfile .config/gh").split()


@pytest.mark.parametrize("name", _NAMES)
def test_each_name_is_a_hint(name: str) -> None:
    assert HINT.search(name) is not None
    assert HINT.search(f"cat ~/x/{name}/y") is not None


@pytest.mark.parametrize("text", ["cat notes.txt", "ls -la src", "cat .k", "cat kub", "cat .ss",
                                  "cat c.hrome", "cat id-rsa", "make check"])
def test_no_hint_without_a_name(text: str) -> None:
    assert HINT.search(text) is None
