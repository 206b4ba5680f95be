"""``gh api graphql``: a read when its document holds only queries.

GraphQL says what an operation does in its first word: ``query`` (or the shorthand ``{ … }``)
reads, ``mutation`` writes, ``subscription`` listens (the GraphQL specification, "Operations").
``gh api graphql`` sends the document as the field ``query`` and every other field as one of
its variables, always as a POST. So a request whose ``query`` field is written on the line, and
whose document names no ``mutation`` or ``subscription`` anywhere outside its strings and
comments, only reads, like a GET of the REST API. What keeps it from counting as a read: a
document from a file or stdin (``query=@file``, ``--input``), a field read from a file
(``-F body=@notes.txt`` sends the file), a value built by a command substitution (its text is
only known at run time), a method other than POST, or an option spelling not read here.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern

_FIELD_OPTIONS = frozenset({"-f", "-F", "--field", "--raw-field"})
_FIELD_PREFIXES = ("--field=", "--raw-field=")
# options of gh api that take a value which is not sent (output shaping, headers, the host)
_VALUED = frozenset({"-q", "--jq", "-t", "--template", "-H", "--header", "--hostname",
                     "--cache", "-p", "--preview"})
_FLAGS = frozenset({"--paginate", "--slurp", "-i", "--include", "--silent", "--verbose"})
_STRINGS = lazy_pattern(r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*')
_WRITES = lazy_pattern(r"(?<![\w$])(?:mutation|subscription)(?!\w)")
_FIRST = lazy_pattern(r"\A\s*(?:query\b|\{|fragment\b)")


def document_reads(document: str) -> bool:
    """A GraphQL document whose operations are all queries."""
    bare = _STRINGS.sub(" ", document)
    return _FIRST.match(bare) is not None and _WRITES.search(bare) is None


def _field_reads(field: str) -> tuple[bool, bool]:
    """(this field may be sent by a read, it is the query document)."""
    key, sep, value = field.partition("=")
    if not sep or value.startswith("@") or "$(" in value or "`" in value:
        return False, False
    if key == "query":
        return document_reads(value), True
    return True, False


def graphql_reads(args: tuple[str, ...]) -> bool:
    """``gh api graphql …`` (``args`` after ``gh``) that only reads."""
    words = list(args)
    if words[:1] != ["api"] or "graphql" not in words:
        return False
    has_query, index = False, 1
    while index < len(words):
        word = words[index]
        if word in _FIELD_OPTIONS or word in _VALUED or word in ("-X", "--method"):
            value = words[index + 1] if index + 1 < len(words) else ""
            index += 2
        elif word.startswith(_FIELD_PREFIXES):
            word, value = "--field", word.partition("=")[2]
            index += 1
        elif word in _FLAGS or word in ("graphql", "--method=POST") or word.startswith("--jq="):
            index += 1
            continue
        else:
            return False  # --input, a glued option, another operand: not read here
        if word in ("-X", "--method") and value != "POST":
            return False
        if word in _FIELD_OPTIONS or word == "--field":
            sent, is_query = _field_reads(value)
            if not sent:
                return False
            has_query = has_query or is_query
    return has_query
