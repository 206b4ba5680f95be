"""Red team, credential formats (issue 25, items 10 and 21): the formats the red team saw leak in
clear — Slack app tokens, Stripe webhook secrets, Azure storage keys and SAS tokens, Hugging Face,
SendGrid, Docker PATs, Telegram and Discord bot tokens, Shopify, DigitalOcean, ``.netrc``
passwords, kubeconfig keys and tokens, and a classic 40-hex GitHub token where its context names
it — each planted where no key name gives it away, and sent through every channel a secret can
take to the model or the log: a real command's stdout and stderr (the Guard on the host
executor), a tool's error message, a real ``web_fetch`` of a page served on 127.0.0.1, and the
audit log. git's 40-hex object names in the same output stay readable. Fake credentials are
drawn at run time; assertions compare lists of names, never values."""

from __future__ import annotations

import base64
import json
import re
import secrets
import string
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest
from redteam_support import EXECUTORS, guard_for

from clawgate.errors import ToolError
from clawgate.guard import Guard
from clawgate.tools.urls import UrlPolicy
from clawgate.tools.web import WebFetch

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"


def draw(alphabet: str, n: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(n))


def planted() -> dict[str, tuple[str, str]]:
    """kind -> (the secret, the text it is printed in: no secret-sounding key before it)."""
    client_key = base64.b64encode(
        b"-----BEGIN EC PRIVATE KEY-----\n" + base64.b64encode(secrets.token_bytes(96))
        + b"\n-----END EC PRIVATE KEY-----\n").decode()
    values = {
        "slack-app-token": "xa" + f"pp-1-A{draw(string.ascii_uppercase, 10)}-"
                                  f"{draw(string.digits, 13)}-{draw(HEX, 64)}",
        "stripe-webhook-secret": "wh" + "sec_" + draw(ALNUM, 32),
        "azure-storage-key": draw(B64, 86) + "==",
        "azure-sas-token": draw(ALNUM, 40) + "%2B" + draw(ALNUM, 8) + "%3D",
        "huggingface-access-token": "h" + "f_" + draw(string.ascii_letters, 34),
        "sendgrid-api-token": "S" + "G." + draw(URLSAFE, 22) + "." + draw(URLSAFE, 43),
        "docker-pat": "dckr" + "_pat_" + draw(URLSAFE, 27),
        "telegram-bot-token": draw("123456789", 1) + draw(string.digits, 9) + ":AA"
                              + draw(URLSAFE, 33),
        "discord-bot-token": "M" + draw(ALNUM, 25) + "." + draw(URLSAFE, 6) + "."
                             + draw(URLSAFE, 27),
        "shopify-access-token": "shp" + "at_" + draw(HEX, 32),
        "digitalocean-pat": "dop" + "_v1_" + draw(HEX, 64),
        "netrc-password": draw(ALNUM, 16),
        "kubeconfig-client-key": client_key,
        "kubeconfig-token": draw("abcdefghijklmnopqrstuvwxyz0123456789", 6) + "."
                            + draw("abcdefghijklmnopqrstuvwxyz0123456789", 16),
        "github-token": draw(HEX, 40),
    }
    v = values
    texts = {
        "slack-app-token": f"socket mode app {v['slack-app-token']}",
        "stripe-webhook-secret": "Ready! Your webhook signing secret is "
                                 f"{v['stripe-webhook-secret']} (^C to quit)",
        "azure-storage-key": "DefaultEndpointsProtocol=https;AccountName=acme;"
                             f"AccountKey={v['azure-storage-key']};EndpointSuffix=core.windows.net",
        "azure-sas-token": "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o"
                           f"&sp=r&se=2026-12-31T00:00:00Z&spr=https&sig={v['azure-sas-token']}",
        "huggingface-access-token": f"logged in with {v['huggingface-access-token']}",
        "sendgrid-api-token": f"sg = SendGridAPIClient('{v['sendgrid-api-token']}')",
        "docker-pat": f"echo {v['docker-pat']} | docker login -u dev --password-stdin",
        "telegram-bot-token": f"GET https://api.telegram.org/bot{v['telegram-bot-token']}/getMe",
        "discord-bot-token": f"client.run('{v['discord-bot-token']}')",
        "shopify-access-token": f"shop: acme.myshopify.com {v['shopify-access-token']}",
        "digitalocean-pat": f"doctl auth init --context ci -t {v['digitalocean-pat']}",
        "netrc-password": f"machine api.example.com\n  login bob\n  password {v['netrc-password']}",
        "kubeconfig-client-key": f"users:\n- name: admin\n  user:\n    client-certificate-data: "
                                 f"LS0tCg==\n    client-key-data: {v['kubeconfig-client-key']}",
        "kubeconfig-token": f"users:\n- name: ci\n  user:\n    token: {v['kubeconfig-token']}",
        "github-token": f"GITHUB_TOKEN {v['github-token']}",
    }
    return {kind: (values[kind], texts[kind]) for kind in values}


def leaked(planted_: dict[str, tuple[str, str]], text: str) -> list[str]:
    return sorted(kind for kind, (secret, _) in planted_.items() if secret in text)


GIT_SHA = "9fceb02d0ae598e95dc970b74767f19372d61a" + "f8"
GIT_LINES = f"commit {GIT_SHA}\n{GIT_SHA}\trefs/heads/main\n"


def document(planted_: dict[str, tuple[str, str]]) -> str:
    return GIT_LINES + "\n".join(text for _, text in planted_.values()) + "\n"


@pytest.fixture
def guard(tmp_path: Path) -> Iterator[Guard]:
    guard = guard_for(tmp_path, EXECUTORS["host"], audit=True)
    yield guard
    guard.close()


def audit_text(tmp_path: Path) -> str:
    return (tmp_path / "audit.jsonl").read_text()


def test_stdout_and_stderr_of_a_real_command(tmp_path: Path, guard: Guard) -> None:
    values = planted()
    (tmp_path / "ws" / "creds.txt").write_text(document(values))
    out = guard.call("exec_shell", {"command": "cat creds.txt"})
    err = guard.call("exec_shell", {"command": "cat creds.txt >&2"})
    seen = json.dumps([out, err], default=str)
    assert leaked(values, seen) == []
    assert seen.count("[REDACTED:") >= 2 * len(values)
    assert seen.count(GIT_SHA) == 4  # git's object names are left as they are
    assert leaked(values, audit_text(tmp_path)) == []


def test_a_tools_error_message(tmp_path: Path, guard: Guard) -> None:
    values = planted()

    @guard.tool
    def deploy(target: str) -> str:
        """Deploys, and says too much when it fails."""
        raise RuntimeError(f"deploy to {target} failed with:\n{document(values)}")

    with pytest.raises(ToolError) as refused:
        guard.call("deploy", {"target": "prod"})
    message = refused.value.message
    assert leaked(values, message) == []
    assert GIT_SHA in message
    assert leaked(values, audit_text(tmp_path)) == []


@pytest.fixture
def page_server() -> Iterator[tuple[str, dict[str, str]]]:
    pages: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path, "").encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", pages
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_web_fetch_body_from_a_local_server(
        tmp_path: Path, guard: Guard, page_server: tuple[str, dict[str, str]]) -> None:
    base, pages = page_server
    values = planted()
    pages["/creds.txt"] = document(values)
    # an operator who trusts the loopback network says so; the fetch is then a real one
    trusting = UrlPolicy(allowed_networks=("127.0.0.0/8",))
    guard.setup.path.urls = trusting
    guard.registry.register(WebFetch(trusting))
    result = guard.call("web_fetch", {"url": f"{base}/creds.txt"})
    assert isinstance(result, dict)
    assert result["status"] == 200
    assert leaked(values, result["body"]) == []
    assert result["body"].count("[REDACTED:") >= len(values)
    assert GIT_SHA in result["body"]
    assert leaked(values, audit_text(tmp_path)) == []


def test_the_audit_log_scrubs_arguments_and_results(tmp_path: Path, guard: Guard) -> None:
    """The secrets in a call's own arguments (a command line that holds them) and in its
    result reach the audit log redacted, as every other channel does."""
    values = planted()
    command = "printf '%s\\n' " + " ".join(
        "'" + text.replace("'", "'\\''") + "'" for _, text in values.values())
    out = guard.call("exec_shell", {"command": command})
    assert leaked(values, json.dumps(out, default=str)) == []
    log = audit_text(tmp_path)
    assert leaked(values, log) == []
    records = [json.loads(line) for line in log.splitlines()]
    assert records[-1]["args"]["command"].count("[REDACTED:") >= len(values)
    # the log scrubs what was scrubbed already: each redaction stays one, its hash kept
    assert re.findall(r"\[REDACTED:[a-z0-9-]+:\[", log) == []


def test_a_url_prefix_repeated_is_scrubbed_in_bounded_work(tmp_path: Path, guard: Guard) -> None:
    """256 KiB of ``a://`` took 79 s to scrub: a password pattern rescanned the rest of the
    line from every ``a://``. Shown without a clock: every pattern of the Guard's scrubber
    reads at most 32 KiB in one attempt (its width), so the work is linear in the output; then
    the same output, through a real command, comes back capped."""
    parse: Any = import_module("re._parser").parse
    widths = {p.pattern: parse(p.pattern, p.flags).getwidth()[1]
              for d in guard.setup.scrubber.detectors for p in d.patterns}
    assert [p for p, width in widths.items() if width > 1 << 15] == []
    out = guard.call("exec_shell", {"command": "python3 -c \"print('a://' * 65536)\""})
    assert isinstance(out, dict)
    assert out["exit_code"] == 0
    assert out["stdout"].startswith("a://a://")
    assert len(out["stdout"].encode()) <= 65536
