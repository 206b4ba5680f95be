"""Detectors of secrets, one small class per kind, in the manner of detect-secrets.

Each has a kind, compiled patterns, the group of a match that is the secret, and ``needles``:
lowercase substrings one of which every match contains, so the patterns are skipped on text
that cannot match. Detectors look for the shapes providers give their keys (``ghp_``, ``AKIA``)
rather than for entropy, so that lock-file hashes, UUIDs, git SHAs and base64 images pass.

Every pattern runs in time linear in the text, by its structure: each repeat has an upper
bound, so one attempt reads at most a bounded stretch of text (the pattern's width) whatever the
text's length, and no repeat sits inside another or over alternatives that start alike
(``policy.redos``), so an attempt's work is bounded too; ``finditer`` makes at most one attempt
per position. What a secret spans beyond one bounded stretch (a PEM block, the lines of a key
body) is followed by a loop that moves forward only. ``tests/tools/test_tools_scrub_linear.py``
checks the widths and counts the loops' work on n and 4n characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import ClassVar

_QUOTED_OR_BARE = r"(\"[^\"\n]{0,1024}\"|'[^'\n]{0,1024}'|[^\s\"',;]{1,1024})"
MAX_WIDTH = 1 << 15  # the most one attempt of any pattern may read: a long JWT or key line


class Detector:
    """A kind of secret. ``group`` names the part of each match that is the secret."""

    kind: ClassVar[str]
    patterns: ClassVar[tuple[re.Pattern[str], ...]]
    group: ClassVar[int | str] = 0
    # lowercase substrings one of which every match contains: a cheap test that skips the
    # regular expressions on text that cannot match (most output)
    needles: ClassVar[tuple[str, ...]] = ()

    # patterns written in lowercase, run on the lowercased text: several times faster than
    # re.IGNORECASE, and spans still line up when lowering did not change the length
    lowercase: ClassVar[bool] = False

    def may_match(self, lowered: str) -> bool:
        return not self.needles or any(n in lowered for n in self.needles)

    def find(self, text: str, lowered: str | None = None) -> Iterator[tuple[int, int]]:
        for pattern in self.patterns:
            subject = text
            if self.lowercase:
                lowered = text.lower() if lowered is None else lowered
                if len(lowered) == len(text):
                    subject = lowered
                else:
                    pattern = re.compile(pattern.pattern, re.IGNORECASE)
            for match in pattern.finditer(subject):
                start, end = match.span(self.group)
                if start < end and self.keep(text[start:end]):
                    yield start, end

    def keep(self, secret: str) -> bool:
        """A hook for detectors that must reject look-alikes; by default every match counts."""
        return True


class AnthropicKey(Detector):
    kind = "anthropic-key"
    needles = ("sk-ant-",)
    patterns = (re.compile(r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,512}+"),)


class OpenAIKey(Detector):
    """``sk-proj-…``, ``sk-svcacct-…``, and the plain ``sk-`` keys of 32 characters and more
    (older keys had 48; the form with ``T3BlbkFJ`` in the middle is covered by the same)."""

    kind = "openai-key"
    needles = ("sk-",)
    patterns = (
        re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,512}+"),
        re.compile(r"(?<![A-Za-z0-9_-])sk-(?!ant-)[A-Za-z0-9_]{32,512}+(?![A-Za-z0-9-])"),
    )


class GitHubToken(Detector):
    """Fine-grained and prefixed tokens; a classic 40-hex token only where its place names it,
    since alone it is the shape of a git object name (``git log``, ``rev-parse``, ``ls-remote``
    print those, and they stay): as the user or password of a URL, after a name that ends in
    ``token`` (``token:``, ``GITHUB_TOKEN=``, ``--token``, ``GH_TOKEN <<<``) or ``pat``, and in
    an ``Authorization: token|bearer`` header."""

    kind = "github-token"
    needles = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "@", "token", "pat",
               "authorization")
    group = "secret"
    patterns = (
        re.compile(r"\b(?P<secret>gh[pousr]_[A-Za-z0-9]{36,255})\b"),
        re.compile(r"\b(?P<secret>github_pat_[A-Za-z0-9_]{60,255})\b"),
        re.compile(r"://(?:[^:/\s@]{0,256}:)?(?P<secret>[0-9a-f]{40})(?::[^@\s/]{0,256})?@"),
        re.compile(r"(?i:token|(?<![a-z])pat)[\"']?[ \t]{0,16}[:= \t][ \t]{0,16}(?:<<<[ \t]{0,16})?"
                   r"[\"']?(?P<secret>[0-9a-f]{40})\b"),
        re.compile(r"(?i:authorization)[\"']?[ \t]{0,16}[:=][ \t]{0,16}[\"']?(?i:token|bearer)"
                   r"[ \t]{1,16}(?P<secret>[0-9a-f]{40})\b"),
    )


class GitLabToken(Detector):
    kind = "gitlab-token"
    needles = ("gl",)
    patterns = (re.compile(r"\bgl(?:pat|dt|rt|ptt|ft|oas|cbt|imt|agent)-[A-Za-z0-9_-]{20,256}"),)


class SlackToken(Detector):
    kind = "slack-token"
    needles = ("xox", "hooks.slack.com")
    patterns = (
        re.compile(r"\bxox[abposre]-(?:\d{1,20}-)?[A-Za-z0-9-]{10,256}"),
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,256}"),
    )


class StripeKey(Detector):
    kind = "stripe-key"
    needles = ("_live_", "_test_")
    patterns = (re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,256}\b"),)


class GoogleKey(Detector):
    kind = "google-key"
    needles = ("aiza", "gocspx-", "ya29.")
    patterns = (
        re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
        re.compile(r"\bGOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])"),
        re.compile(r"\bya29\.[0-9A-Za-z_-]{20,4096}"),
    )


class AwsAccessKey(Detector):
    kind = "aws-access-key"
    needles = ("akia", "asia", "abia", "acca", "aida", "aroa")
    patterns = (re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA)[A-Z0-9]{16}\b"),)


class AwsSecretKey(Detector):
    """A 40-character secret is only recognised next to its name; alone it looks like base64."""

    kind = "aws-secret-key"
    needles = ("secret",)
    group = "secret"
    lowercase = True
    patterns = (re.compile(
        r"aws_?secret(?:_?access)?_?key[\"']?\s{0,16}[:=]\s{0,16}[\"']?(?P<secret>[a-z0-9/+]{40})\b"),)


class JsonWebToken(Detector):
    """Signed and unsigned (``alg: none``, an empty third part) tokens."""

    kind = "jwt"
    needles = ("eyj",)
    patterns = (re.compile(
        r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,8192}+\.eyJ[A-Za-z0-9_-]{8,8192}+\.[A-Za-z0-9_-]{0,8192}+"),)


class LineRun(Detector):
    """A secret that opens with its pattern and goes on over what ``more`` matches, piece after
    piece (the lines of a key body), then what ``closing`` matches. Each piece is matched once,
    moving forward, so a long key costs what its length does."""

    more: ClassVar[re.Pattern[str]]
    closing: ClassVar[re.Pattern[str] | None] = None

    def find(self, text: str, lowered: str | None = None) -> Iterator[tuple[int, int]]:
        pos = 0
        while (opening := self.patterns[0].search(text, pos)) is not None:
            end = opening.end()
            while (piece := self.more.match(text, end)) is not None and piece.end() > end:
                end = piece.end()
            if self.closing is not None and (close := self.closing.match(text, end)):
                end = close.end()
            yield opening.start(), end
            pos = max(end, opening.start() + 1)


class PrivateKeyBlock(Detector):
    """A PEM private key, BEGIN line to END line; an unterminated block (cut output) is
    redacted to the end. Each stretch of text is searched once for a BEGIN and once for an
    END."""

    kind = "private-key"
    needles = ("private key",)
    patterns = (re.compile(r"-----BEGIN (?:[A-Z0-9]{1,16} ){0,4}PRIVATE KEY(?: BLOCK)?-----"),)
    _end = re.compile(r"-----END (?:[A-Z0-9]{1,16} ){0,4}PRIVATE KEY(?: BLOCK)?-----")

    def find(self, text: str, lowered: str | None = None) -> Iterator[tuple[int, int]]:
        pos = 0
        while (begin := self.patterns[0].search(text, pos)) is not None:
            end = self._end.search(text, begin.end())
            if end is None:
                yield begin.start(), len(text)
                return
            yield begin.start(), end.end()
            pos = end.end()


class PrivateKeyBody(LineRun):
    """A private key's base64 body seen without its BEGIN line (a read from line 2, ``grep
    ^MII``, a ``file:`` prefix before it): a run opening a DER sequence (``MII…``, ``MHc…``
    for EC) or an OpenSSH key (``b3BlbnNzaC1rZXktdjE``), with the base64 lines after it.
    Certificate bodies open the same way and are redacted too: the price of not knowing which
    it is."""

    kind = "private-key"
    needles = ("mii", "mhccaq", "b3blbnnzac1rzxktdje")
    patterns = (re.compile(
        r"(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{40,16384}+|MHcCAQEE[A-Za-z0-9+/]{40,16384}+|"
        r"b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/]{20,16384}+)={0,2}+"),)
    more = re.compile(r"(?:[A-Za-z0-9+/]{1,16384}+|\r?\n[ \t]{0,16}+[A-Za-z0-9+/]{16,16384}+)"
                      r"={0,2}+")


class PuttyPrivateKey(LineRun):
    """The private part of a PuTTY ``.ppk`` file: from ``Private-Lines:`` to ``Private-MAC:``."""

    kind = "private-key"
    needles = ("private-lines:",)
    patterns = (re.compile(r"Private-Lines: \d{1,6}+"),)
    more = re.compile(r"\r?\n[A-Za-z0-9+/=]{1,16384}+(?=\r?\n|\Z)")
    closing = re.compile(r"\r?\nPrivate-(?:MAC|Hash): [0-9a-fA-F]{1,256}+")


class AwsConsoleCsv(Detector):
    """The credentials CSV the AWS console hands out: an access key id, then its secret."""

    kind = "aws-secret-key"
    needles = ("akia", "asia")
    group = "secret"
    patterns = (re.compile(
        r"\b(?:AKIA|ASIA)[A-Z0-9]{16},[ \t]{0,16}+\"?"
        r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"),)


class DatabaseUrl(Detector):
    """The password in ``postgres://user:password@host``; user and host are kept."""

    kind = "database-url"
    needles = ("://",)
    group = "secret"
    lowercase = True
    patterns = (re.compile(
        r"\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|"
        r"sqlserver|oracle|clickhouse|cockroachdb|jdbc:[a-z]{1,32})(?:\+[a-z0-9]{1,32})?://"
        r"[^:/\s@]{0,256}:(?P<secret>[^@\s]{1,256}+)@"),)


class UrlPassword(Detector):
    """The password in any other ``scheme://user:password@host``."""

    kind = "url-password"
    needles = ("://",)
    group = "secret"
    lowercase = True
    patterns = (re.compile(
        r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,32}+://[^:/\s@]{0,256}+:(?P<secret>[^@\s]{1,256}+)@"),)

    def keep(self, secret: str) -> bool:
        # ``host:8080/path@x`` is a port and a path, not a password with a slash in it
        port, slash, _ = secret.partition("/")
        return not (slash and port.isdigit()) and secret.lower() not in PLACEHOLDERS


class AuthorizationHeader(Detector):
    """The credentials of an ``Authorization: Bearer ...`` (or Basic, Token) header."""

    kind = "auth-header"
    needles = ("authorization",)
    group = "secret"
    lowercase = True
    patterns = (re.compile(r"\b(?:proxy-)?authorization[\"']?\s{0,16}[:=]\s{0,16}[\"']?"
                           r"(?:bearer|basic|token|bot)\s{1,16}(?P<secret>[A-Za-z0-9._~+/=-]{8,4096})"),)


_SECRET_NAME = (
    r"(?:secret|token|passw(?:or)?d|passphrase|[_.-]pwd|[_.-]pass|api[_-]?key|apikey|"
    r"access[_-]?key|private[_-]?key|secret[_-]?key|[_.-]key|client[_-]?secret|credentials?|"
    r"auth|authorization|bearer)"
)
PLACEHOLDERS = frozenset({"", "true", "false", "null", "none", "nil", "undefined", "redacted",
                           "changeme", "xxx", "***", "<redacted>", "x-oauth-basic",
                           # the schemes of an Authorization header: its credentials follow
                           "bearer", "basic", "token", "bot", "digest", "negotiate", "ntlm"})


class KeyValueSecret(Detector):
    """``password=...``, ``"api_key": "..."``, ``GITHUB_TOKEN: ...``: the value is redacted.

    The name must *end* in a secret word (``max_tokens`` does not); values that are variable
    references, numbers, booleans or already redacted are left alone. So is what only looks
    like a key: the last part of a path (``/etc/passwd: leaves the workspace``), a path as the
    value (``private_key: ~/.ssh/id_rsa``), and prose after a colon (``passwd: changing
    password for dev``: a lowercase word followed by more words on the line), while ``passwd:
    hunter2x`` in a config file and ``PASSWORD=x make`` stay secrets.
    """

    kind = "key-value-secret"
    needles = ("secret", "token", "pass", "pwd", "key", "credential", "auth", "bearer")
    group = "value"
    lowercase = True
    patterns = (re.compile(
        rf"{_SECRET_NAME}[\"']?\s{{0,16}}(?P<sep>:=|:|=)\s{{0,16}}(?P<value>"
        rf"{_QUOTED_OR_BARE})"),)
    _name_char = re.compile(r"[A-Za-z0-9_.-]")
    _path_value = re.compile(r"(?:~|\.{1,2})?/[^\s/][^\s]{0,1024}+")
    # "Authorization": "token …": the header's detectors redact the credentials after the scheme
    _scheme = re.compile(r"(?i:bearer|basic|token|bot)[ \t]")
    _call = re.compile(r"[A-Za-z_][\w.]{0,256}+\(")  # token = read_token(): code, not a value
    _prose_after = re.compile(r"[ \t]{1,64}+[A-Za-z]")

    def find(self, text: str, lowered: str | None = None) -> Iterator[tuple[int, int]]:
        lowered = text.lower() if lowered is None else lowered
        pattern, subject = self.patterns[0], lowered
        if len(lowered) != len(text):  # lowering moved the spans (İ): match the text itself
            pattern, subject = re.compile(pattern.pattern, re.IGNORECASE), text
        for match in pattern.finditer(subject):
            start, end = match.span("value")
            if not self.keep(text[start:end]) or self._looks_like_key_only(text, match):
                continue
            quoted = text[start] in "\"'" and end - start >= 2
            yield (start + 1, end - 1) if quoted else (start, end)

    def _looks_like_key_only(self, text: str, match: re.Match[str]) -> bool:
        name_start = match.start()
        while name_start > 0 and self._name_char.match(text, name_start - 1):
            name_start -= 1  # back to the start of the whole name (db_password)
        if name_start > 0 and text[name_start - 1] in "/\\":
            return True  # /etc/passwd: ... is a path, not a key
        value = text[match.start("value"):match.end("value")]
        if value[:1] not in "\"'" and self._path_value.fullmatch(value):
            return True  # the file a secret is in, not the secret
        # prose: a lowercase word, then more words (a value with a digit or a capital is not)
        return (match.group("sep") == ":" and value.isalpha() and value.islower()
                and self._prose_after.match(text, match.end("value")) is not None)

    def keep(self, secret: str) -> bool:
        value = secret.strip("\"'")
        return not (
            value.lower() in PLACEHOLDERS
            or value.startswith(("$", "[REDACTED", "%(", "{{", "<"))
            or value.isdigit()
            or len(value) < 4
            or (secret[:1] not in "\"'" and self._call.match(secret) is not None)
            or self._scheme.match(value) is not None
        )


class CommandLinePassword(Detector):
    """A password on a command line: ``--password x``/``--password=x`` (and ``--passwd``,
    ``--token``, ``--api-key``, ``--secret``), ``curl -u user:pw``, ``mysql -pX``,
    ``sshpass -p X``."""

    kind = "command-line-password"
    needles = ("--pass", "--token", "--api-key", "--apikey", "--secret", "-u", "--user", "-p")
    group = "secret"
    patterns = (
        re.compile(r"(?<![\w-])--(?:password|passwd|token|api-?key|secret|client-secret)"
                   r"(?:=|\s{1,16}+)(?P<secret>[^\s\"'-][^\s\"']{0,256}+|\"[^\"\n]{1,256}+\"|'[^'\n]{1,256}+')"),
        re.compile(r"(?<![\w-])(?:-u|--user)(?:=|\s{1,16}+)[^\s:]{1,256}+:(?P<secret>[^\s\"']{1,256}+)"),
        re.compile(r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]{0,1024}?"
                   r"(?<=\s)-p(?P<secret>[^\s-]\S{0,256}+)"),
        re.compile(r"\bsshpass\s{1,16}+-p\s{0,16}+(?P<secret>\S{1,256}+)"),
    )

    def keep(self, secret: str) -> bool:
        value = secret.strip("\"'")
        return value.lower() not in PLACEHOLDERS and not value.startswith(("$", "[REDACTED"))


class CookieHeader(Detector):
    """Each value of a ``Cookie:`` or ``Set-Cookie:`` header (session ids are credentials);
    names and attributes (``Path``, ``HttpOnly``) are kept."""

    kind = "cookie"
    needles = ("cookie",)
    lowercase = True
    patterns = (re.compile(
        r"\b(?:set-)?cookie[\"']?\s{0,16}:[ \t]{0,16}+(?P<pairs>[^\r\n\"']{1,8192}+)"),)
    _pair = re.compile(r"[^=;\s]{1,256}+=(?P<value>[^;\s]{4,4096}+)")

    def find(self, text: str, lowered: str | None = None) -> Iterator[tuple[int, int]]:
        subject = text.lower() if lowered is None or len(lowered) != len(text) else lowered
        for header in self.patterns[0].finditer(subject):
            start = header.start("pairs")
            for pair in self._pair.finditer(text, start, header.end("pairs")):
                value_start, value_end = pair.span("value")
                if text[value_start:value_end].lower() not in PLACEHOLDERS:
                    yield value_start, value_end


# Detectors that know a provider's shape or a file format; the ruleset's provider rules come
# after them (``ruleset.DETECTORS``), then these, which go by a key's name or a header only.
SPECIFIC: tuple[Detector, ...] = (
    PrivateKeyBlock(), PrivateKeyBody(), PuttyPrivateKey(), AnthropicKey(), OpenAIKey(),
    GitHubToken(), GitLabToken(), SlackToken(), StripeKey(), GoogleKey(), AwsConsoleCsv(),
    AwsAccessKey(), AwsSecretKey(), JsonWebToken(),
)
GENERIC: tuple[Detector, ...] = (
    DatabaseUrl(), UrlPassword(), AuthorizationHeader(), CommandLinePassword(), CookieHeader(),
    KeyValueSecret(),
)
