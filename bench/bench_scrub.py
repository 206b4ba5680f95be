"""clawgate's scrubber against detect-secrets on the same texts (issue 14: "prefer a maintained
ruleset ... measure both").

    pip install detect-secrets==1.5.0      # not a dependency of clawgate; only this bench
    python bench/bench_scrub.py [--rounds 3]

Corpora: written here (fake secrets assembled at run time, never printed):

- planted: one secret each, in the context tools print it (a config line, an env dump, a
  URL, a command line, a PEM body read from line 2, a JWT, provider keys ...). Recall: the
  share whose secret no longer appears in the output (clawgate) or that detect-secrets reports
  a finding on the text for (its own filters on: the way ``detect-secrets scan`` runs).
- harmless: lock-file integrity hashes, UUIDs, git SHAs and ``git log`` lines, base64 image
  data, ``/etc/passwd`` lines and error messages, package versions, prose. False positives:
  the share of texts changed (clawgate) or reported (detect-secrets).
- speed: median wall time of one pass over both corpora, and of a 1 MiB build log.

detect-secrets runs twice: with its default plugins, and without its two entropy plugins
(which account for most of its false positives on hashes).
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from clawgate.tools.scrub import Scrubber

B64 = base64.b64encode(bytes(range(7, 55))).decode()


def planted() -> list[tuple[str, str, str]]:
    """(name, text, secret): the texts a tool would print, each holding one secret."""
    hex40 = "9fceb02d0ae598e95dc970b74767f19372d61a" + "f8"
    cases = [
        ("aws-access-key", "aws_access_key_id = {s}", "AKIA" + "IOSFODNN7" + "QX4MPLE"),
        ("aws-secret", "aws_secret_access_key = {s}", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY"
         + "Q8xA91zzK3"),
        ("github-pat", "GITHUB_TOKEN={s}", "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2),
        ("github-40hex-url", "https://{s}@github.com/o/r.git", hex40),
        ("gitlab-pat", "token: {s}", "glpat-" + "Xy7Q2m9Kp4Lw8Rt3Zb1V"),
        ("slack-bot", "SLACK={s}", "xoxb-" + "123456789012-1234567890123-"
         + "AbCdEfGhIjKlMnOpQrStUvWx"),
        ("stripe-live", "stripe.api_key = '{s}'", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
        ("google-api", "key={s}", "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
        ("openai-proj", "OPENAI_API_KEY={s}", "sk-proj-" + "Q1w2E3r4T5y6" * 4),
        ("anthropic", "export ANTHROPIC_API_KEY={s}", "sk-ant-api03-" + "a1B2c3D4e5" * 5),
        ("jwt", "Authorization: Bearer {s}",
         "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0."
         + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
        ("jwt-unsigned", "token {s}", "eyJhbGciOiJub25lIn0." + "eyJzdWIiOiJhZG1pbiJ9."),
        ("pem-block", "{s}", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + B64
         + "\n-----END RSA PRIVATE KEY-----"),
        ("pem-body-line-2", "{s}\n-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA" + B64),
        ("postgres-url", "DATABASE_URL=postgres://app:{s}@db:5432/app", "pa55word99xq"),
        ("https-password", "git clone https://bob:{s}@git.example.com/r", "S3cretPw9x"),
        ("password-yaml", "db:\n  password: {s}\n", "hunter2hunter2"),
        ("passwd-config", "passwd: {s}", "hunter2x"),
        ("smtp-pass", "SMTP_PASS={s}", "hunter2hunter2"),
        ("password-option", "mysql --password {s} app", "hunter2hunter2"),
        ("mysql-p", "mysql -uroot -p{s} app", "S3cretPw"),
        ("curl-u", "curl -u admin:{s} https://h.example/", "S3cretPw"),
        ("cookie", "Cookie: sessionid={s}; theme=dark", "a8f5f167f44f4964e6c998dee827110c"),
        ("npm-token", "//registry.npmjs.org/:_authToken={s}", "npm_"
         + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"),
        ("pypi-token", "password = {s}", "pypi-AgEIcHlwaS5vcmcC" + "JGExYjJjM2Q0" * 4),
        ("json-api-key", '{{"api_key": "{s}"}}', "Zx81kq0Plm55Tr0Q"),
    ]
    return [(name, template.format(s=secret), secret) for name, template, secret in cases]


def harmless() -> list[str]:
    """Texts tools print every day that hold no secret."""
    sha512 = base64.b64encode(bytes(range(64))).decode()
    return [
        f'"integrity": "sha512-{sha512}"',
        "resolved \"https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#679591c564c3bffaae\"",
        "requests==2.31.0 --hash=sha256:"
        "58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f",
        "id: 3f2504e0-4f89-11d3-9a0c-0305e82c3301",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: Dev <dev@example.com>",
        "a1b2c3d (HEAD -> main) Merge branch 'fix'",
        f"data:image/png;base64,{B64}{B64}",
        "root:x:0:0:root:/root:/bin/bash",
        "/etc/passwd: leaves the workspace",
        "cat: /etc/passwd: Permission denied",
        "passwd: password updated successfully",
        "token: the value is read from the environment",
        "private_key: ~/.ssh/id_ed25519",
        "password_reset_url = '/accounts/reset/'",
        "max_tokens=4096",
        "secret_santa.py  tokenizer.json  keyboard.c",
        "the password: is never logged",
        "docker pull python@sha256:"
        "4e2b2b1a5f2b9fa6f4b7a7c1c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192",
        "Successfully installed numpy-1.26.4 pandas-2.2.1",
        "listening on http://localhost:8080/api@v2",
        "mysql -u root -p app",
        "export PATH=$HOME/.local/bin:$PATH",
    ]


def log_mib() -> str:
    line = "[12:00:01] INFO building target //src:lib (3f2504e0-4f89-11d3) ok 12.3 ms\n"
    return line * ((1 << 20) // len(line))


class DetectSecrets:
    """detect-secrets 1.5 run the way ``detect-secrets scan FILE`` runs: its plugins and
    filters, on a file (``output.txt``, so that no lock-file filter applies)."""

    def __init__(self, *, entropy: bool) -> None:
        from detect_secrets.core.secrets_collection import SecretsCollection
        from detect_secrets.settings import default_settings, get_settings

        self._collection = SecretsCollection
        self._context = default_settings
        self._get_settings = get_settings
        self._entropy = entropy
        self._dir = tempfile.TemporaryDirectory()

    def findings(self, text: str) -> int:
        path = Path(self._dir.name) / "output.txt"
        path.write_text(text)
        with self._context():
            if not self._entropy:
                self._get_settings().disable_plugins(
                    "Base64HighEntropyString", "HexHighEntropyString")
            found = self._collection()
            found.scan_file(str(path))
            return sum(len(s) for _, s in found.data.items())


def measure(name: str, hits: Callable[[str, str | None], bool], rounds: int) -> None:
    cases, clean = planted(), harmless()
    recall = sum(hits(text, secret) for _, text, secret in cases)
    false = sum(hits(text, None) for text in clean)
    missed = [n for n, text, secret in cases if not hits(text, secret)]
    flagged = [text.split("\n")[0][:24] for text in clean if hits(text, None)]
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _, text, secret in cases:
            hits(text, secret)
        for text in clean:
            hits(text, None)
        times.append(time.perf_counter() - start)
    log = log_mib()
    start = time.perf_counter()
    hits(log, None)
    big = time.perf_counter() - start
    print(f"{name:34} recall {recall}/{len(cases)}  false positives {false}/{len(clean)}  "
          f"pass {statistics.median(times) * 1000:7.1f} ms  1 MiB log {big * 1000:8.1f} ms")
    print(f"{'':34} missed: {', '.join(missed) or '-'}")
    print(f"{'':34} flagged: {' | '.join(flagged) or '-'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    scrubber = Scrubber()

    def clawgate(text: str, secret: str | None) -> bool:
        out = scrubber.scrub(text)
        return out != text if secret is None else secret not in out

    measure("clawgate Scrubber", clawgate, args.rounds)
    try:
        import detect_secrets  # noqa: F401
    except ImportError:
        print("detect-secrets is not installed: pip install detect-secrets==1.5.0")
        return 0
    for entropy in (True, False):
        tool = DetectSecrets(entropy=entropy)

        def detect(text: str, secret: str | None, tool: DetectSecrets = tool) -> bool:
            return tool.findings(text) > 0

        label = "detect-secrets 1.5 " + ("(default)" if entropy else "(no entropy)")
        measure(label, detect, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
