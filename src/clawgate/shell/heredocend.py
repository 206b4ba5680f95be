"""Here-documents the text ends inside of, closed as bash closes them.

bash reads a here-document's body up to its delimiter line or to the end of the input,
whichever comes first; at the end of the input it warns ("here-document delimited by
end-of-file") and runs the command with the body it read (``cat <<EOF`` alone: ``cat`` with
an empty standard input). tree-sitter-bash and bashlex reject such text. Closing the bodies
at the end, in the order bash would, gives the parsers the reading bash makes.
"""

from __future__ import annotations

from clawgate.shell.quoting import HEREDOC, read_bodies

MAX_PENDING = 64  # here-documents closed at the end of one line, at most


def close_bodies(line: str) -> str | None:
    """``line`` with the delimiter lines of the here-documents it ends inside of appended (a
    newline first if the text does not end with one); None when every body is closed, or when
    the text cannot be followed (a quote left open)."""
    missing = unclosed(line)
    if not missing or len(missing) > MAX_PENDING:
        return None
    ending = "" if line.endswith("\n") else "\n"
    return line + ending + "\n".join(missing)


def unclosed(line: str) -> list[str]:
    """The delimiters of the here-documents whose bodies run to the end of ``line``, in the
    order their bodies are read (quotes, comments and ``<<<`` here-strings followed as bash
    reads them, so a ``<<`` inside a string starts nothing)."""
    pending: list[str] = []
    quote = ""
    i = 0
    while i < len(line):
        ch = line[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif quote == '"':
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = ""
        elif ch == "\\":
            i += 1
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t\n;&|()<>"):
            newline = line.find("\n", i)
            i = len(line) if newline < 0 else newline
            continue
        elif ch == "<" and line.startswith("<<", i) and not line.startswith("<<<", i):
            found = HEREDOC.match(line, i)
            if found is not None:
                pending.append(found.group(2))
                i = found.end()
                continue
        elif ch == "\n" and pending:
            i, pending = read_bodies(line, i + 1, pending)
            continue
        i += 1
    return pending if not quote else []

