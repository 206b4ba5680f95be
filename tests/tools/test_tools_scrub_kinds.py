"""The secrets the red team saw leak past the scrubber (issue 14), their harmless look-alikes,
and adversarial text that made two patterns quadratic. Fake secrets are assembled at run time;
ids name the case, never the value."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from clawgate.tools.scrub import Scrubber

B64 = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2"  # 64 base64 chars
RSA_BODY = "MIIEowIBAAKCAQEA" + B64[:48] + "\n" + B64 + "\n" + B64[:40] + "=="
HEX40 = "9fceb02d0ae598e95dc970b74767f19372d61a" + "f8"
SECRETS = [
    ("pem-body-from-line-2", "{s}\n-----END RSA PRIVATE KEY-----", RSA_BODY),
    ("pem-body-grep", "id_rsa:{s}", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + B64[:40]),
    ("ec-body", "{s}", "MHcCAQEEI" + B64[:50]),
    ("openssh-body", "{s}", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ" + B64[:30]),
    ("putty-ppk", "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\n{s}\n",
     "Private-Lines: 2\n" + B64 + "\n" + B64[:20] + "\nPrivate-MAC: " + "ab12" * 10),
    ("aws-console-csv", "User name,Password,Access key ID,Secret access key\nbob,,"
     "AKIA" + "IOSFODNN7EXAMPL3" + ",{s}", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEK3Y"),
    ("jwt-unsigned", "token {s}", "eyJhbGciOiJub25lIn0." + "eyJzdWIiOiJhZG1pbiJ9."),
    ("github-40hex-url", "https://{s}@github.com/o/r.git", HEX40),
    ("github-40hex-token", "Authorization: token {s}", HEX40),
    ("github-40hex-user", "https://x-access-token:{s}@github.com/o/r", HEX40),
    ("url-empty-user", "redis://:{s}@cache:6379/0", "pa55word99"),
    ("https-empty-user", "https://:{s}@host.example/x", "pa55word99"),
    ("url-password-slash", "https://bob:{s}@git.example.com/r", "ab/cd+ef12"),
    ("pass-assign", "SMTP_PASS={s}", "hunter2hunter2"),
    ("key-assign", "STRIPE_KEY={s}", "rk9x7Pq2ZZ"),
    ("secret-assign", "export APP_SECRET={s}", "s3cr3tvalue"),
    ("password-option", "mysql --password {s} db", "hunter2hunter2"),
    ("password-option-eq", "tool --password={s}", "hunter2hunter2"),
    ("token-option", "gh auth login --token {s}", "abcdef123456"),
    ("mysql-p", "mysql -uroot -p{s} app", "S3cretPw"),
    ("sshpass", "sshpass -p {s} ssh host", "S3cretPw"),
    ("curl-u", "curl -u admin:{s} https://h/", "S3cretPw"),
    ("cookie", "Cookie: sessionid={s}; theme=dark", "a8f5f167f44f4964e6c998dee827110c"),
    ("set-cookie", "Set-Cookie: sid={s}; Path=/; HttpOnly", "Zx81kq0Plm55"),
    ("openai-plain", "OPENAI {s}", "sk-" + "Ab3d" * 12),
    ("openai-proj", "{s}", "sk-proj-" + "Q1w2E3r4" * 5),
    ("anthropic-short-form", "{s}", "sk-ant-" + "a1B2c3D4e5" * 4),
    ("passwd-config", "passwd: {s}", "hunter2x"),
    ("passwd-config-comment", "passwd: {s}  # production", "hunter2x"),
    ("passwd-config-indented", "db:\n  passwd: {s}\n  host: db", "hunter2x"),
    ("password-env-before-command", "PASSWORD={s} make deploy", "hunter2x"),
    ("password-quoted-prose-like", 'password: "{s}"', "correct horse"),
    ("password-after-path-word", "config/db.yml password: {s}", "hunter2x"),
    ("password-then-words", "Password: {s} Username: admin", "Hunter2x"),
    ("password-then-paren", "passwd: {s} (rotated)", "s3cretvalue"),
]


@pytest.mark.parametrize(("template", "secret"), [c[1:] for c in SECRETS],
                         ids=[c[0] for c in SECRETS])
def test_each_leak_is_redacted(template: str, secret: str) -> None:
    out = Scrubber().scrub(template.format(s=secret))
    leaked = secret in out
    assert not leaked
    assert "[REDACTED:" in out


HARMLESS = [
    ("mkdir-p", "mkdir -p build/out && cp -p a b"),
    ("port-path", "listening on http://localhost:8080/api@v2"),
    ("git-sha-40", f"commit {HEX40}"),
    ("mysql-no-password", "mysql -u root -p app"),
    ("cookie-prose", "cookie: a small baked treat"),
    ("primary-key", "primary_key=id"),
    ("password-prompt", "--password-stdin < file"),
    ("env-password-option", "tool --password $PW"),
    ("short-base64", "MIIx"),
    ("sklearn", "sk-learn"),
    ("etc-passwd-prose", "/etc/passwd: leaves the workspace"),
    ("etc-passwd-error", "cat: /etc/passwd: Permission denied"),
    ("passwd-program", "passwd: password updated successfully"),
    ("passwd-changing", "passwd: changing password for dev."),
    ("token-prose", "token: the value is read from the environment"),
    ("key-file-path", "private_key: ~/.ssh/id_rsa"),
    ("credentials-path", "credentials_file: /home/dev/.aws/credentials"),
    ("windows-path", "C:\\Users\\dev\\passwd: missing"),
]


@pytest.mark.parametrize("text", [c[1] for c in HARMLESS], ids=[c[0] for c in HARMLESS])
def test_look_alikes_stay(text: str) -> None:
    changed = Scrubber().scrub(text) != text
    assert not changed


ADVERSARIAL = ["eyJ-", "eyJa.", "a.", "a-", "a:", "x://", "a://", "sk-", "token ", "MII", "-p",
               "=a", "cookie: a=", "Private-Lines: 1\n", "/passwd: a ", "a_passwd",
               "passwd:/a/", "AKIA" + "A" * 16 + ",", "--password "]
PROBE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_CPU, (20, 20))
from clawgate.tools.scrub import Scrubber
scrubber = Scrubber()
for fragment in sys.argv[1:]:
    text = fragment * ((1 << 18) // len(fragment))
    scrubber.scrub(text)
print("done")
"""


def test_adversarial_text_is_scrubbed_in_linear_time() -> None:
    """256 KiB of each fragment repeated: a quadratic pattern needs minutes of CPU on it (one
    needed 22 s, another 79 s); linear ones need well under a second. A 20 s CPU limit, in a
    process of its own, is a hang guard; test_tools_scrub_linear.py shows the linearity itself
    without a clock."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    done = subprocess.run([sys.executable, "-c", PROBE, *ADVERSARIAL], capture_output=True,
                          text=True, env={"PYTHONPATH": src}, check=False)
    assert (done.returncode, done.stdout) == (0, "done\n")

