"""URLs as the agents' own parsers read them, and refused where two parsers could disagree.

clawgate checks a URL with Python's parser; the agent fetches it with another (Gemini CLI and
Claude Code run on Node, whose WHATWG ``URL`` reads ``\\`` as ``/``, decodes ``%2e`` in hosts,
maps full-width dots, and takes everything before the last ``@`` as userinfo). A URL on which
they could disagree about the host is refused, so the host checked is the host fetched: only
``http(s)://HOST[:PORT]`` followed by ``/``, ``?``, ``#`` or nothing is accepted, HOST being
ASCII letters, digits, dots and dashes (or a bracketed IPv6 address), with no userinfo, no
backslash, quote or space anywhere, and no control character.

Gemini CLI's ``web_fetch`` finds its URLs by splitting the prompt on whitespace (JavaScript's
``\\s``) and taking every token that contains ``://``; ``prompt_urls`` does the same.
"""

from __future__ import annotations

import re

_STRICT = re.compile(
    r"(?P<scheme>https?)://(?P<host>[a-z0-9_](?:[a-z0-9_.\-]*[a-z0-9_.])?|\[[0-9a-f:.]+\])"
    r"(?::(?P<port>[0-9]{1,5}))?(?P<rest>[/?#][^\\\s\"'`<>\x00-\x1f\x7f]*)?", re.IGNORECASE)
# JavaScript's \s: what String.split(/\s+/) splits a prompt on
_JS_SPACE = re.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
                       "\ufeff]+")


def url_problem(url: str) -> str | None:
    """Why ``url`` could mean another host to another parser, or None when it is plain."""
    if not url.isascii():
        return "holds non-ASCII characters (parsers map them to different hosts)"
    if _STRICT.fullmatch(url) is None:
        return ("is not a plain http(s)://host/path URL: userinfo, quotes, backslashes, spaces "
                "or odd characters make parsers disagree about its host")
    return None


def prompt_urls(prompt: str) -> tuple[str, ...]:
    """The URLs Gemini CLI's ``web_fetch`` would fetch from ``prompt``: every
    whitespace-separated token containing ``://``, as it is written."""
    return tuple(dict.fromkeys(t for t in _JS_SPACE.split(prompt) if "://" in t))
