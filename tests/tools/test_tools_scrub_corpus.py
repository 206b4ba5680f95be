"""The scrubber on the corpus of credential formats (one per format, with the kind its redaction
must name), on ordinary output that must come back unchanged, on a classic 40-hex GitHub token
where its context names it (and git's 40-hex object names where nothing does), on GoClaw's own
scrubbing cases, and on the data file of rules. Ids name the case, never the value."""

from __future__ import annotations

import pytest

from clawgate.testing.secret_corpus import Sample, ordinary, planted
from clawgate.tools.ruleset import RULES, load_rules
from clawgate.tools.scrub import Scrubber, digest

PLANTED = planted()
ORDINARY = ordinary()


def test_the_corpus_covers_sixty_formats() -> None:
    assert len(PLANTED) >= 60
    assert len({s.kind for s in PLANTED}) >= 60


@pytest.mark.parametrize("sample", PLANTED, ids=[s.name for s in PLANTED])
def test_each_format_is_redacted_with_its_kind(sample: Sample) -> None:
    out = Scrubber().scrub(sample.text)
    leaked = sample.secret in out
    assert not leaked
    assert f"[REDACTED:{sample.kind}:{digest(sample.secret)}]" in out


@pytest.mark.parametrize("text", [t for _, t in ORDINARY], ids=[n for n, _ in ORDINARY])
def test_ordinary_output_is_unchanged(text: str) -> None:
    changed = Scrubber().scrub(text) != text
    assert not changed


HEX40 = "9fceb02d0ae598e95dc970b74767f19372d61a" + "f8"
NAMED_HEX40 = [
    ("token-colon", "token: {s}"),
    ("github-token-env", "GITHUB_TOKEN={s}"),
    ("github-token-export", "export GITHUB_TOKEN=\"{s}\""),
    ("gh-token-space", "GH_TOKEN {s}"),
    ("token-option", "gh auth login --token={s}"),
    ("with-token-herestring", "gh auth login --with-token <<< {s}"),
    ("authorization-token", "Authorization: token {s}"),
    ("authorization-bearer", "curl -H 'Authorization: Bearer {s}' https://api.github.com"),
    ("authorization-json", '{{"Authorization": "token {s}"}}'),
    ("url-user", "https://{s}@github.com/o/r.git"),
    ("url-user-x-oauth-basic", "https://{s}:x-oauth-basic@github.com/o/r.git"),
    ("url-password", "https://x-access-token:{s}@github.com/o/r"),
    ("github-pat-env", "GITHUB_PAT={s}"),
]


@pytest.mark.parametrize("template", [t for _, t in NAMED_HEX40], ids=[n for n, _ in NAMED_HEX40])
def test_a_classic_github_token_is_redacted_where_its_context_names_it(template: str) -> None:
    out = Scrubber().scrub(template.format(s=HEX40))
    assert out == template.format(s=f"[REDACTED:github-token:{digest(HEX40)}]")


GIT_OUTPUT = [
    ("git-log", f"commit {HEX40}\nAuthor: Dev <dev@example.com>\n\n    token refresh\n"),
    ("rev-parse", f"{HEX40}\n"),
    ("ls-remote", f"{HEX40}\tHEAD\n{HEX40}\trefs/heads/token\n"),
    ("show-ref", f"{HEX40} refs/heads/fix-token-refresh\n"),
    ("log-format", f"{HEX40} Rotate the deploy token\n"),
    ("for-each-ref", f"{HEX40} commit\trefs/tags/v1.0\n"),
    ("subject-then-hash", f"Rotate the deploy token\n{HEX40}\n"),
    ("log-body", f"commit {HEX40}\n\n    Refresh the token\n\ncommit {HEX40}\n"),
]


@pytest.mark.parametrize("text", [t for _, t in GIT_OUTPUT], ids=[n for n, _ in GIT_OUTPUT])
def test_git_object_names_in_ordinary_output_stay(text: str) -> None:
    assert Scrubber().scrub(text) == text


# GoClaw's scrubbing cases (nextlevelbuilder/goclaw, internal/tools/scrub_test.go at 80dcc04):
# its inputs, and its expectations in clawgate's redaction format. Where GoClaw expects the
# whole output, so do these; where it only expects a change, so do these, and that the secret
# is gone.
_GH = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
_OPENAI = "sk-" + "abcdefghijklmnopqrstuvwxyz1234567890"
_ANTHROPIC = "sk-ant-" + "abc123-def456-ghi789-jkl012"
_AWS = "AKIA" + "IOSFODNN7EXAMPLE"
GOCLAW_EXACT = [
    ("openai", f"Found key: {_OPENAI} in env", _OPENAI, "openai-key"),
    ("anthropic", f"key={_ANTHROPIC}", _ANTHROPIC, "anthropic-key"),
    *[(f"github-{p}", f"token {p}_{_GH} done", f"{p}_{_GH}", "github-token")
      for p in ("ghp", "gho", "ghu", "ghs", "ghr")],
]


@pytest.mark.parametrize(("text", "secret", "kind"), [c[1:] for c in GOCLAW_EXACT],
                         ids=[c[0] for c in GOCLAW_EXACT])
def test_goclaw_cases_exact(text: str, secret: str, kind: str) -> None:
    assert Scrubber().scrub(text) == text.replace(secret, f"[REDACTED:{kind}:{digest(secret)}]")


GOCLAW_CHANGED = [
    ("aws", f"aws_key: {_AWS}", _AWS),
    ("api_key", "api_key=supersecretvalue123", "supersecretvalue123"),
    ("token", "token: mysecrettoken12345", "mysecrettoken12345"),
    ("password", "password=MyStr0ngP@ssword!", "MyStr0ngP@ssword!"),
    ("bearer", "bearer: eyJhbGciOiJIUzI1NiJ9.abc", "eyJhbGciOiJIUzI1NiJ9.abc"),
    ("authorization", "authorization=eyJhbGciOiJIUzI1NiJ9abcdef", "eyJhbGciOiJIUzI1NiJ9abcdef"),
    ("multiple", f"openai=sk-abcdefghijklmnopqrstuvwxyz, github=ghp_{_GH}", f"ghp_{_GH}"),
]


@pytest.mark.parametrize(("text", "secret"), [c[1:] for c in GOCLAW_CHANGED],
                         ids=[c[0] for c in GOCLAW_CHANGED])
def test_goclaw_cases_changed(text: str, secret: str) -> None:
    out = Scrubber().scrub(text)
    assert out != text
    leaked = secret in out
    assert not leaked


GOCLAW_UNCHANGED = ["hello world", "sk-short", "ghp_tooshort", "normal text with no secrets",
                    "AKIA1234", ""]


@pytest.mark.parametrize("text", GOCLAW_UNCHANGED, ids=lambda t: t or "empty")
def test_goclaw_cases_unchanged(text: str) -> None:
    assert Scrubber().scrub(text) == text


SERVER = ("18.141.232.136", "34.160.111.145")
GOCLAW_ADDRESSES = [
    ("public-ip", "Your IP: 18.141.232.136", "Your IP: {0}"),
    ("forwarded-chain", "X-Forwarded-For: 18.141.232.136, 34.160.111.145",
     "X-Forwarded-For: {0}, {1}"),
    ("unrelated-ip", "Hello 1.2.3.4", "Hello 1.2.3.4"),
    ("ip-in-url", "http://18.141.232.136:8080/api", "http://{0}:8080/api"),
    ("multiple", "src=18.141.232.136 dst=18.141.232.136", "src={0} dst={0}"),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in GOCLAW_ADDRESSES],
                         ids=[c[0] for c in GOCLAW_ADDRESSES])
def test_goclaw_server_address_cases_as_an_opt_in_profile(text: str, expected: str) -> None:
    marks = [f"[REDACTED:server-ip:{digest(a)}]" for a in SERVER]
    assert Scrubber(addresses=SERVER).scrub(text) == expected.format(*marks)
    assert Scrubber().scrub(text) == text  # off unless asked for


@pytest.mark.parametrize("text", ["118.141.232.136", "18.141.232.1367", "18.141.232.136.5",
                                  "v18.141.232.136"])
def test_a_server_address_inside_a_longer_one_stays(text: str) -> None:
    assert Scrubber(addresses=SERVER).scrub(text) == text


def test_every_rule_names_its_source_and_the_file_is_checked() -> None:
    assert all(r.source.split(":")[0] in {"gitleaks", "detect-secrets", "clawgate"}
               for r in RULES)
    assert sum(r.source.startswith("gitleaks:") for r in RULES) >= 50
    with pytest.raises(ValueError, match="unknown or missing"):
        load_rules("[[rules]]\nkind = 'x'\nregex = 'a'\n")
    with pytest.raises(ValueError, match="keywords must be lowercase"):
        load_rules("[[rules]]\nkind = 'x'\nsource = 'clawgate'\nregex = 'a'\nkeywords = ['A']\n")
    with pytest.raises(ValueError, match="rule 1"):
        load_rules("[[rules]]\nkind = 'x'\nsource = 'clawgate'\nregex = '('\n")


@pytest.mark.parametrize("sample", PLANTED, ids=[s.name for s in PLANTED])
def test_scrubbing_twice_leaves_the_first_redaction_as_it_is(sample: Sample) -> None:
    """A result is scrubbed, then its audit line: the marker (and so its hash) must survive."""
    scrubber = Scrubber()
    once = scrubber.scrub(sample.text)
    assert scrubber.scrub(once) == once


def test_a_value_that_runs_into_a_marker_is_still_redacted() -> None:
    out = Scrubber().scrub("password=hunter2x[REDACTED:env:abcdef]")
    assert out == f"password=[REDACTED:key-value-secret:{digest('hunter2x')}][REDACTED:env:abcdef]"
