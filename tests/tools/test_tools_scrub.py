"""Credential scrubbing: every kind, look-alikes left alone, truncation.

Fake secrets are assembled at run time and test ids name the case, never the value, so that no
raw secret reaches the test output (assertions compare booleans, not strings).
"""

from __future__ import annotations

import base64
import re

import pytest

from clawgate.tools.scrub import Scrubber, digest, secret_env_name, truncate

PEM = ("-----BEGIN RSA PRIVATE KEY-----\n" + "MIIEpAIBAAKCAQEA" + "q" * 60 + "\n"
       + "-----END RSA PRIVATE KEY-----")
# (id, text, secret in it, kind expected)
SECRETS = [
    ("openai-project", "OPENAI={s}", "sk-proj-" + "Ab3_" * 12, "openai-key"),
    ("openai-legacy", "key {s} end", "sk-" + "a1" * 10 + "T3BlbkFJ" + "b2" * 10, "openai-key"),
    ("anthropic", "x-api-key: {s}", "sk-ant-api03-" + "Xy9-" * 24, "anthropic-key"),
    ("github-classic", "token {s}", "ghp_" + "A1b2C3d4" * 4 + "e5f6", "github-token"),
    ("github-fine", "{s}", "github_pat_" + "11ABCDEFG0" + "x" * 72, "github-token"),
    ("gitlab", "{s}", "glpat-" + "abcdEFGH1234ijklMNOP", "gitlab-token"),
    ("slack-bot", "SLACK {s}", "xoxb-" + "123456789012-1234567890123-" + "AbCdEf" * 4,
     "slack-token"),
    ("slack-webhook", "post {s}", "https://hooks.slack.com/services/" + "T0000/B0000/" + "Z" * 24,
     "slack-token"),
    ("stripe", "{s}", "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc", "stripe-key"),
    ("google-api", "key={s}&q=1", "AIza" + "Sy" + "A1b2" * 8 + "C", "google-key"),
    ("aws-access", "id {s}", "AKIA" + "IOSFODNN7EXAMPL3", "aws-access-key"),
    ("aws-secret", "aws_secret_access_key = {s}", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEK3Y",
     "aws-secret-key"),
    ("jwt", "Cookie: s={s}", "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0."
     + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"),
    ("private-key", "cat id_rsa\n{s}\n$", PEM, "private-key"),
    ("private-key-cut", "head\n{s}", PEM[:80], "private-key"),
    ("postgres-url", "DATABASE_URL=postgres://app:{s}@db:5432/app", "s3cr3tP4ss", "database-url"),
    ("mongodb-url", "mongodb+srv://root:{s}@cluster0.x.net/", "M0ngoPw!", "database-url"),
    ("https-userinfo", "git clone https://bob:{s}@git.example.com/r", "hunter22x", "url-password"),
    ("password-assign", "password={s} next", "hunter2x", "key-value-secret"),
    ("json-api-key", '{{"api_key": "{s}"}}', "abcd1234efgh", "key-value-secret"),
    ("yaml-client-secret", "client_secret: {s}\n", "zzTopValue99", "key-value-secret"),
    ("db-pwd", "DB_PWD='{s}'", "p@ss word", "key-value-secret"),
    ("bearer", "Authorization: Bearer {s}", "abcdef0123456789abcdef", "auth-header"),
]


@pytest.mark.parametrize(("template", "secret", "kind"),
                         [case[1:] for case in SECRETS], ids=[case[0] for case in SECRETS])
def test_every_kind_is_redacted(template: str, secret: str, kind: str) -> None:
    text = template.format(s=secret)
    out = Scrubber().scrub(text)
    leaked = secret in out
    assert not leaked
    expected_marker = f"[REDACTED:{kind}:{digest(secret)}]"
    assert expected_marker in out
    context = template.split("{s}")
    assert out.startswith(context[0].replace("{{", "{"))
    assert out.endswith(context[-1].replace("}}", "}"))


def test_same_secret_same_hash_different_secret_different_hash() -> None:
    a, b = "ghp_" + "A" * 36, "ghp_" + "B" * 36
    out = Scrubber().scrub(f"{a} {a} {b}")
    hashes = re.findall(r"\[REDACTED:github-token:([0-9a-f]{6})\]", out)
    assert len(hashes) == 3
    assert hashes[0] == hashes[1] != hashes[2]


SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
PNG = base64.b64encode(bytes(range(256)) * 4).decode()
HARMLESS = [
    ("lock-sha256", f'hash = "sha256:{SHA256}"'),
    ("npm-integrity", '"integrity": "sha512-' + base64.b64encode(bytes(range(64))).decode() + '"'),
    ("requirements-hash", f"requests==2.31.0 --hash=sha256:{SHA256}"),
    ("uuid", "request_id: 550e8400-e29b-41d4-a716-446655440000"),
    ("git-sha", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main)"),
    ("base64-image", f'<img src="data:image/png;base64,{PNG}">'),
    ("max-tokens", "max_tokens=4096 temperature=0.2"),
    ("token-type", "token_type=bearer expires_in=3600"),
    ("env-reference", "password=$DB_PASSWORD api_key=${API_KEY}"),
    ("gha-expression", "token: {{ secrets.GITHUB_TOKEN }}"),
    ("placeholder", "api_key=<your key here> password=changeme"),
    ("plain-url", "see https://example.com/a:b@c and user@example.com"),
    ("sklearn", "pip install scikit-learn  # sk-learn"),
    ("author", "author=Jane Doe keyboard=us"),
    ("pwd", "PWD=/home/user/project"),
    ("prose", "the password must be reset; tokens are rotated"),
]


@pytest.mark.parametrize("text", [case[1] for case in HARMLESS], ids=[c[0] for c in HARMLESS])
def test_look_alikes_stay_untouched(text: str) -> None:
    changed = Scrubber().scrub(text) != text
    assert not changed


def test_environment_values_by_name() -> None:
    env = {"MY_SERVICE_TOKEN": "opaque-value-42", "DB_PASSWORD": "pw-9f8e7d",
           "KEYBOARD_LAYOUT": "us-intl-alt", "HOME": "/home/someone", "API_KEY": "short"}
    text = "use opaque-value-42 and pw-9f8e7d on us-intl-alt at /home/someone"
    out = Scrubber(env=env).scrub(text)
    assert out == (f"use [REDACTED:env:{digest('opaque-value-42')}] and "
                   f"[REDACTED:env:{digest('pw-9f8e7d')}] on us-intl-alt at /home/someone")


@pytest.mark.parametrize(("name", "secret"), [
    ("GITHUB_TOKEN", True), ("OPENAI_API_KEY", True), ("DB_PASSWORD", True),
    ("AWS_SECRET_ACCESS_KEY", True), ("client-secret", True), ("KEYBOARD", False),
    ("PATH", False), ("TOKENIZERS_PARALLELISM", False), ("PWD", False), ("MONKEY", False),
])
def test_secret_env_names(name: str, secret: bool) -> None:
    assert secret_env_name(name) is secret


def test_scrub_value_walks_json() -> None:
    token = "ghp_" + "Q" * 36
    value = {"command": f"curl -H 'x: {token}'", "token": "opaque1", "n": 3,
             "nested": [{"password": "pw12345"}, "plain"]}
    out = Scrubber().scrub_value(value)
    assert out == {
        "command": f"curl -H 'x: [REDACTED:github-token:{digest(token)}]'",
        "token": f"[REDACTED:key-value-secret:{digest('opaque1')}]", "n": 3,
        "nested": [{"password": f"[REDACTED:key-value-secret:{digest('pw12345')}]"}, "plain"],
    }


def test_truncate_short_text_is_unchanged() -> None:
    assert truncate("abc", limit=100) == "abc"


def test_truncate_keeps_head_and_tail_within_the_limit() -> None:
    text = "HEAD" + "x" * 200_000 + "TAIL"
    out = truncate(text)
    assert len(out.encode()) <= 65536
    assert out.startswith("HEAD")
    assert out.endswith("TAIL")
    cut = int(re.search(r"\[\.\.\. (\d+) bytes truncated \.\.\.\]", out).group(1))  # type: ignore[union-attr]
    assert cut == len(text) - (len(out.encode()) - len(f"\n[... {cut} bytes truncated ...]\n"))


def test_truncate_never_splits_a_character() -> None:
    out = truncate("é" * 1000, limit=301)
    assert len(out.encode()) <= 301
    assert set(out.split("\n")[0]) == {"é"}
    assert set(out.split("\n")[-1]) == {"é"}


@pytest.mark.parametrize("prefix", ["", "İstanbul ", "ẞ "], ids=["ascii", "dotted-I", "sharp-s"])
def test_case_insensitive_kinds_keep_positions(prefix: str) -> None:
    """Lowering can lengthen text (İ becomes two characters); spans must still be right."""
    secret = "Hunter2Xyz"
    text = f"{prefix}DB_PASSWORD={secret} and POSTGRES://u:{secret}@h/db"
    out = Scrubber().scrub(text)
    mark = digest(secret)
    assert out == (f"{prefix}DB_PASSWORD=[REDACTED:key-value-secret:{mark}] and "
                   f"POSTGRES://u:[REDACTED:database-url:{mark}]@h/db")
