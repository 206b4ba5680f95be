"""A corpus of credential formats for measuring a scrubber: one fake-but-well-formed credential
per format, in the context a tool prints it, with the kind a redaction must name; and ordinary
output that holds no secret (git logs, object names, hashes, UUIDs, base64 of plain data).

The values are drawn at run time from a generator seeded by the sample's name, with each
provider's alphabet and length, so that no credential-shaped literal sits in the source and a
run is the same every time. ``python bench/bench_scrub.py`` prints a scrubber's recall and false
positives on it; the tests use it as their table.
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"


@dataclass(frozen=True, slots=True)
class Sample:
    name: str  # the format
    kind: str  # the kind its redaction names
    text: str  # what a tool prints
    secret: str  # the part that must not come back


class _Draw:
    """Random text from one seed: ``d(ALNUM, 20)``; ``d.lit("sk", "_live_")`` joins pieces so
    that a provider prefix never appears whole in the source."""

    def __init__(self, seed: str) -> None:
        self._rng = random.Random(hashlib.sha256(seed.encode()).digest())

    def __call__(self, alphabet: str, n: int) -> str:
        return "".join(self._rng.choice(alphabet) for _ in range(n))

    @staticmethod
    def lit(*pieces: str) -> str:
        return "".join(pieces)


def _formats(d: _Draw) -> list[tuple[str, str, str, str]]:
    """(name, kind, template with ``{s}``, secret)."""
    lit = d.lit
    jwt_head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    jwt_body = base64.urlsafe_b64encode(b'{"sub":"1234567890","iat":1700000000}').decode()
    jwt = f"{jwt_head}.{jwt_body.rstrip('=')}.{d(URLSAFE, 43)}"
    pem_key = base64.b64encode(bytes(range(48))).decode()
    client_key = base64.b64encode(
        b"-----BEGIN RSA PRIVATE KEY-----\n" + base64.b64encode(bytes(range(96)))
        + b"\n-----END RSA PRIVATE KEY-----\n").decode()
    return [
        # providers named in item after item of red-team findings
        ("slack-app-token", "slack-app-token", "SLACK_APP={s}",
         lit("xa", "pp-1-A", d(UPPER_ALNUM, 10), "-", d("0123456789", 13), "-", d(HEX, 64))),
        ("stripe-webhook-secret", "stripe-webhook-secret", "endpoint secret: {s}",
         lit("wh", "sec_", d(ALNUM, 32))),
        ("azure-storage-key", "azure-storage-key",
         "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={s};"
         "EndpointSuffix=core.windows.net", d(B64, 86) + "=="),
        ("azure-sas-token", "azure-sas-token",
         "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r"
         "&se=2026-12-31T00:00:00Z&spr=https&sig={s}", d(ALNUM, 40) + "%2B" + d(ALNUM, 6) + "%3D"),
        ("huggingface-token", "huggingface-access-token", "HF token {s}",
         lit("h", "f_", d(string.ascii_letters, 34))),
        ("huggingface-org-token", "huggingface-organization-api-token", "org {s}",
         lit("api", "_org_", d(string.ascii_letters, 34))),
        ("sendgrid", "sendgrid-api-token", "sg = {s}",
         lit("S", "G.", d(URLSAFE, 22), ".", d(URLSAFE, 43))),
        ("docker-pat", "docker-pat", "docker login -u dev --password-stdin <<< {s}",
         lit("dckr", "_pat_", d(URLSAFE, 27))),
        ("telegram-bot", "telegram-bot-token",
         "GET https://api.telegram.org/bot{s}/getMe",
         lit(d("123456789", 1), d("0123456789", 9), ":AA", d(URLSAFE, 33))),
        ("discord-bot", "discord-bot-token", "client.run('{s}')",
         lit("M", d(ALNUM, 25), ".", d(URLSAFE, 6), ".", d(URLSAFE, 27))),
        ("shopify-access", "shopify-access-token", "X-Shopify-Access-Token: {s}",
         lit("shp", "at_", d(HEX, 32))),
        ("shopify-shared-secret", "shopify-shared-secret", "shared secret {s}",
         lit("shp", "ss_", d(HEX, 32))),
        ("digitalocean-pat", "digitalocean-pat", "doctl auth init -t {s}",
         lit("dop", "_v1_", d(HEX, 64))),
        ("digitalocean-oauth", "digitalocean-access-token", "access {s}",
         lit("doo", "_v1_", d(HEX, 64))),
        ("netrc-inline", "netrc-password", "machine api.example.com login bob password {s}\n",
         d(ALNUM, 14)),
        ("netrc-lines", "netrc-password",
         "machine git.example.com\n  login bob\n  password {s}\n", d(ALNUM, 14)),
        ("kubeconfig-client-key", "kubeconfig-client-key",
         "users:\n- name: admin\n  user:\n    client-key-data: {s}\n", client_key),
        ("kubeconfig-token", "kubeconfig-token",
         "users:\n- name: ci\n  user:\n    token: {s}\n",
         d(LOWER_ALNUM, 6) + "." + d(LOWER_ALNUM, 16)),
        # other provider shapes of the maintained ruleset
        ("npm", "npm-access-token", "//registry.npmjs.org/:_authToken={s}",
         lit("np", "m_", d(ALNUM, 36))),
        ("pypi", "pypi-upload-token", "twine upload -p {s}",
         lit("py", "pi-AgEIcHlwaS5vcmc", d(URLSAFE, 60))),
        ("age", "age-secret-key", "# key\n{s}",
         lit("AGE-SE", "CRET-KEY-1", d("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58))),
        ("artifactory", "artifactory-api-key", "X-JFrog-Art-Api: {s}",
         lit("AK", "Cp", d(ALNUM, 69))),
        ("atlassian", "atlassian-api-token", "jira {s}", lit("ATA", "TT3", d(URLSAFE, 186))),
        ("clojars", "clojars-api-token", "deploy {s}", lit("CLOJ", "ARS_", d(LOWER_ALNUM, 60))),
        ("databricks", "databricks-api-token", "DATABRICKS_HOST=x {s}",
         lit("da", "pi", d(HEX, 32))),
        ("doppler", "doppler-api-token", "doppler {s}", lit("dp", ".pt.", d(ALNUM, 43))),
        ("dynatrace", "dynatrace-api-token", "Api-Token {s}",
         lit("dt0", "c01.", d(UPPER_ALNUM, 24), ".", d(UPPER_ALNUM, 64))),
        ("easypost", "easypost-api-token", "EasyPost::Client.new({s})",
         lit("EZ", "AK", d(ALNUM, 54))),
        ("flyio", "flyio-access-token", "fly tokens: {s}", lit("fo", "1_", d(URLSAFE, 43))),
        ("grafana-cloud", "grafana-cloud-api-token", "grafana {s}",
         lit("gl", "c_", d(ALNUM, 60), "==")),
        ("grafana-service-account", "grafana-service-account-token", "sa {s}",
         lit("gl", "sa_", d(ALNUM, 32), "_", d(HEX, 8))),
        ("terraform-cloud", "hashicorp-tf-api-token", "credentials {s}",
         lit(d(LOWER_ALNUM, 14), ".atl", "asv1.", d(URLSAFE, 67))),
        ("vault-service", "vault-service-token", "VAULT {s}", lit("hv", "s.", d(URLSAFE, 95))),
        ("vault-batch", "vault-batch-token", "batch {s}", lit("hv", "b.", d(URLSAFE, 140))),
        ("linear", "linear-api-key", "linear {s}", lit("lin", "_api_", d(ALNUM, 40))),
        ("new-relic", "new-relic-user-api-key", "newrelic_key = {s}",
         lit("NR", "AK-", d(UPPER_ALNUM, 27))),
        ("notion", "notion-api-token", "notion {s}",
         lit("nt", "n_", d("0123456789", 11), d(ALNUM, 35))),
        ("openshift", "openshift-user-token", "oc login --token {s}",
         lit("sha", "256~", d(URLSAFE, 43))),
        ("planetscale-password", "planetscale-password", "pw {s}",
         lit("psc", "ale_pw_", d(ALNUM, 43))),
        ("planetscale-token", "planetscale-api-token", "tk {s}",
         lit("psc", "ale_tkn_", d(ALNUM, 43))),
        ("postman", "postman-api-token", "postman {s}",
         lit("PM", "AK-", d(HEX, 24), "-", d(HEX, 34))),
        ("prefect", "prefect-api-token", "prefect {s}", lit("pn", "u_", d(ALNUM, 36))),
        ("pulumi", "pulumi-api-token", "PULUMI {s}", lit("pu", "l-", d(HEX, 40))),
        ("readme", "readme-api-token", "readme {s}", lit("rd", "me_", d(LOWER_ALNUM, 70))),
        ("rubygems", "rubygems-api-token", ":rubygems_api_key: {s}",
         lit("ruby", "gems_", d(HEX, 48))),
        ("scalingo", "scalingo-api-token", "scalingo {s}", lit("tk-", "us-", d(URLSAFE, 48))),
        ("sentry-user", "sentry-user-token", "sentry {s}", lit("sntr", "yu_", d(HEX, 64))),
        ("shippo", "shippo-api-token", "shippo {s}", lit("shippo", "_live_", d(HEX, 40))),
        ("square", "square-access-token", "square {s}", lit("sq0", "atp-", d(URLSAFE, 22))),
        ("twilio", "twilio-api-key", "twilio {s}", lit("S", "K", d(HEX, 32))),
        ("typeform", "typeform-api-token", "typeform_token = {s}",
         lit("tf", "p_", d(LOWER_ALNUM, 59))),
        ("perplexity", "perplexity-api-key", "pplx {s}", lit("pp", "lx-", d(ALNUM, 48))),
        ("alibaba", "alibaba-access-key-id", "aliyun {s}", lit("LT", "AI", d(ALNUM, 20))),
        ("azure-ad-secret", "azure-ad-client-secret", "client_secret={s}",
         lit(d(ALNUM, 3), "8Q~", d(ALNUM, 34))),
        ("heroku-v2", "heroku-api-key-v2", "heroku {s}", lit("HR", "KU-AA", d(URLSAFE, 58))),
        ("frameio", "frameio-api-token", "frame {s}", lit("fio", "-u-", d(URLSAFE, 64))),
        ("infracost", "infracost-api-token", "infracost {s}", lit("ic", "o-", d(ALNUM, 32))),
        ("sendinblue", "sendinblue-api-token", "brevo {s}",
         lit("xkey", "sib-", d(HEX, 64), "-", d(ALNUM, 16))),
        ("adobe-secret", "adobe-client-secret", "adobe {s}", lit("p8", "e-", d(ALNUM, 32))),
        ("duffel", "duffel-api-token", "duffel {s}", lit("duffel", "_test_", d(ALNUM, 43))),
        ("gitlab-runner", "gitlab-token", "runner {s}", lit("gl", "rt-", d(ALNUM, 20))),
        ("sourcegraph", "sourcegraph-access-token", "src {s}", lit("sg", "p_", d(HEX, 40))),
        ("cloudflare-origin-ca", "cloudflare-origin-ca-key", "origin {s}",
         lit("v1", ".0-", d(HEX, 24), "-", d(HEX, 146))),
        ("1password-service-account", "1password-service-account-token", "OP {s}",
         lit("ops", "_eyJ", d(B64, 260))),
        # kinds clawgate knew before the ruleset (their kinds unchanged)
        ("github-pat", "github-token", "token {s}", lit("gh", "p_", d(ALNUM, 36))),
        ("github-fine-grained", "github-token", "{s}",
         lit("github", "_pat_", d(ALNUM, 22), "_", d(ALNUM, 59))),
        ("github-40hex-env", "github-token", "GITHUB_TOKEN={s}", d(HEX, 40)),
        ("gitlab-pat", "gitlab-token", "PRIVATE-TOKEN {s}", lit("gl", "pat-", d(URLSAFE, 20))),
        ("slack-bot", "slack-token", "SLACK {s}",
         lit("xo", "xb-", d("0123456789", 12), "-", d("0123456789", 13), "-", d(ALNUM, 24))),
        ("slack-webhook", "slack-token", "post {s}",
         lit("https://hooks.", "slack.com/services/T", d(UPPER_ALNUM, 8), "/B",
             d(UPPER_ALNUM, 8), "/", d(ALNUM, 24))),
        ("stripe-secret", "stripe-key", "stripe {s}", lit("sk", "_live_", d(ALNUM, 24))),
        ("google-api", "google-key", "key={s}", lit("AI", "za", d(URLSAFE, 35))),
        ("google-oauth-secret", "google-key", "secret {s}", lit("GOC", "SPX-", d(URLSAFE, 28))),
        ("aws-access-key", "aws-access-key", "id {s}", lit("AK", "IA", d(UPPER_ALNUM, 16))),
        ("aws-secret-key", "aws-secret-key", "aws_secret_access_key = {s}", d(B64, 40)),
        ("openai", "openai-key", "OPENAI {s}", lit("sk", "-proj-", d(URLSAFE, 48))),
        ("anthropic", "anthropic-key", "x-api-key: {s}", lit("sk", "-ant-api03-", d(URLSAFE, 95))),
        ("jwt", "jwt", "jwt {s}", jwt),
        ("pem-private-key", "private-key", "{s}", lit(
            "-----BEGIN ", "PRIVATE KEY-----\n", pem_key, "\n-----END ", "PRIVATE KEY-----")),
        ("postgres-url", "database-url", "postgres://app:{s}@db:5432/app", d(ALNUM, 16)),
        ("https-userinfo", "url-password", "https://bob:{s}@git.example.com/r", d(ALNUM, 12)),
        ("bearer", "auth-header", "Authorization: Bearer {s}", d(ALNUM, 32)),
        ("password-assign", "key-value-secret", "password={s}", d(ALNUM, 12)),
        ("mysql-p", "command-line-password", "mysql -uroot -p{s} app", d(ALNUM, 10)),
        ("cookie", "cookie", "Cookie: sessionid={s}; theme=dark", d(HEX, 32)),
    ]


def planted() -> list[Sample]:
    """Every format, one sample each."""
    d = _Draw("clawgate secret corpus")
    return [Sample(name, kind, template.format(s=secret), secret)
            for name, kind, template, secret in _formats(d)]


def ordinary() -> list[tuple[str, str]]:
    """(name, text) of output that holds no secret and must come back unchanged."""
    d = _Draw("clawgate ordinary output")
    sha = [d(HEX, 40) for _ in range(6)]
    short = [s[:7] for s in sha]
    png = base64.b64encode(bytes(range(256)) * 3).decode()
    text_b64 = base64.b64encode(b"The quick brown fox jumps over the lazy dog. " * 4).decode()
    sha512 = base64.b64encode(hashlib.sha512(b"pkg").digest()).decode()
    uuid = f"{d(HEX, 8)}-{d(HEX, 4)}-4{d(HEX, 3)}-a{d(HEX, 3)}-{d(HEX, 12)}"
    return [
        ("git-log", f"commit {sha[0]}\nAuthor: Dev <dev@example.com>\nDate:   Mon Dec 1 "
         f"10:00:00 2026 +0000\n\n    Fix the parser\n\ncommit {sha[1]}\nMerge: {short[2]} "
         f"{short[3]}\n"),
        ("git-log-oneline", f"{short[0]} (HEAD -> main, origin/main) Fix\n{short[1]} Add tests\n"),
        ("git-rev-parse", f"{sha[2]}\n"),
        ("git-ls-remote", f"{sha[3]}\tHEAD\n{sha[3]}\trefs/heads/main\n{sha[4]}\trefs/tags/v1.0\n"),
        ("git-show-ref", f"{sha[5]} refs/remotes/origin/token-refresh\n"),
        ("git-branch-vv", f"* main {short[4]} [origin/main] token handling: {sha[0][:12]}\n"),
        ("git-submodule", f" {sha[1]} vendor/lib (v2.1.0)\n"),
        ("git-blame", f"{short[5]} (Dev 2026-12-01 10:00:00 +0000 12) token = read_token()\n"),
        ("git-cat-file", f"tree {sha[2]}\nparent {sha[3]}\nauthor Dev <d@x> 1700000000 +0000\n"),
        ("sha256sum", f"{hashlib.sha256(b'a').hexdigest()}  dist/app.tar.gz\n"),
        ("sha1sum", f"{hashlib.sha1(b'a').hexdigest()}  README.md\n"),
        ("md5sum", f"{hashlib.md5(b'a').hexdigest()}  setup.py\n"),
        ("uuid", f"request_id: {uuid}\n"),
        ("uuids-listed", f"{uuid}  running  2026-12-01\n"),
        ("npm-integrity", f'"integrity": "sha512-{sha512}"'),
        ("pip-hash", f"requests==2.31.0 --hash=sha256:{hashlib.sha256(b'r').hexdigest()}"),
        ("go-sum", "golang.org/x/text v0.14.0 h1:"
         + base64.b64encode(hashlib.sha256(b"g").digest()).decode()),
        ("docker-digest", f"python@sha256:{hashlib.sha256(b'p').hexdigest()}"),
        ("docker-images", f"python  3.12  {d(HEX, 12)}  2 weeks ago  1.01GB\n"),
        ("base64-image", f'<img src="data:image/png;base64,{png}">'),
        ("base64-text", text_b64),
        ("base64-json", base64.b64encode(b'{"name": "demo", "version": "1.0.0"}').decode()),
        ("ls-l", "-rw-r--r-- 1 dev dev  4096 Dec  1 10:00 token_refresh.py\n"),
        ("ps", "dev  4242  0.0  0.1  12345  6789 pts/0  S+  10:00  0:00 python -m http.server\n"),
        ("traceback", 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
         "KeyError: 'token'\n"),
        ("pip-install", "Successfully installed numpy-1.26.4 pandas-2.2.1 tokenizers-0.15.0\n"),
        ("semver", "version: 2.31.0-rc.1+build.5\n"),
        ("plain-url", "see https://example.com/docs/auth#tokens and user@example.com\n"),
        ("ipv4", "listening on 10.0.0.12:8080 and 18.141.232.136\n"),
        ("etc-passwd", "root:x:0:0:root:/root:/bin/bash\n"),
        ("passwd-prose", "passwd: password updated successfully\n"),
        ("token-prose", "token: the value is read from the environment\n"),
        ("max-tokens", "max_tokens=4096 temperature=0.2\n"),
        ("env-reference", "password=$DB_PASSWORD api_key=${API_KEY}\n"),
        ("kubectl-get", "NAME                     READY   STATUS    RESTARTS   AGE\n"
         "web-7d4b9c8f6d-x2k9p     1/1     Running   0          2d\n"),
        ("kubeconfig-public", "clusters:\n- cluster:\n    server: https://10.0.0.1:6443\n"
         "  name: dev\ncontexts:\n- context:\n    cluster: dev\n    user: admin\n"),
        ("cargo-lock", f'checksum = "{hashlib.sha256(b"c").hexdigest()}"\n'),
        ("pytest", "tests/test_tokens.py::test_refresh PASSED  [ 50%]\n"),
        ("mkdir-p", "mkdir -p build/out && cp -p a b\n"),
        ("signature-prose", "sig=verified by gpg\n"),
    ]
