"""Options from manual pages (man(7) and mdoc(7) source): which take a value, a file or a
command, read from the tag lines of their OPTIONS lists (``.TP`` / ``.IP`` / ``.It``).

An option takes a value when its tag gives one: ``\\fB\\-o\\fR \\fIfile\\fR``,
``\\-\\-output=\\fIFILE\\fR``, ``\\-o <file>``, ``.It Fl o Ar file``. An optional value
(``\\-\\-color[=\\fIWHEN\\fR]``, ``.It Fl n Op Ar num``) is glued or absent: a switch for the
word after it. The value's name says its kind: a command (``command``, ``cmd``, ``program``),
a file (``file``, ``path``, ``…file``) that is written when the option's description speaks of
output, else read; anything else (a number, a pattern, a directory) is a value.
"""

from __future__ import annotations

import re

_FONT = re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)")
_ESCAPES = ((r"\-", "-"), (r"\&", ""), (r"\|", ""), (r"\^", ""), (r"\ ", " "), (r"\e", "\\"),
            (r"\~", " "), (r"\:", ""))
_NAMED = re.compile(r"\\\[[^\]]*\]|\\\(..|\\[*n]\(..|\\[*n].|\\s[-+]?\d")
_OPTION = re.compile(
    r"(?:^|[\s,|/\[])(-{1,2}[A-Za-z0-9?#@][\w.+#@-]*)(\[=|\[\s|=|\s+)?(«[^»]*»|<[^>\s]+>|"
    r"[A-Z][A-Z0-9_:-]+\b)?")
_RUN_ARGS = frozenset({"command", "cmd", "commandline", "command_line", "command-line",
                       "shell_command", "shell-command", "shellcmd", "program", "prog",
                       "executable", "cmdline", "shell"})
_RUN_VERBS = re.compile(r"\b(?:run|runs|execute|executes|exec|invoke|invokes|launch|spawn|"
                        r"start|starts|pipe[sd]? (?:it )?(?:to|through|into))\b", re.I)
_WRITES = re.compile(r"\b(?:output|write|writes|save|saves|dump|log(?:ging)? to|logfile|"
                     r"destination)\b", re.I)
_FILE_ARG = re.compile(r"file|path|^out(?:put)?$|^in(?:put)?$|^log$|^config$|^conf$|^script$")
_FONTS = {"B": "", "R": "", "I": "«", "P": ""}
_ALTERNATING = {".BI": "BI", ".IB": "IB", ".RI": "RI", ".IR": "IR", ".BR": "BR", ".RB": "RB",
                ".B": "B", ".I": "I"}


def _words(args: str) -> list[str]:
    """The arguments of a request line: quoted or space-separated."""
    return [a[1:-1] if a.startswith('"') else a
            for a in re.findall(r'"(?:[^"\\]|\\.)*"|\S+', args)]


def marked(text: str) -> str:
    """A line of man(7) text with italics as «…», other fonts and escapes removed."""
    out: list[str] = []
    italic = False
    pos = 0
    for found in _FONT.finditer(text):
        out.append(text[pos:found.start()])
        font = found.group(0)[2:].strip("[]()") or "R"
        want = font.startswith("I")
        if want != italic:
            out.append("«" if want else "»")
            italic = want
        pos = found.end()
    out.append(text[pos:])
    if italic:
        out.append("»")
    line = "".join(out)
    for old, new in _ESCAPES:
        line = line.replace(old, new)
    return _NAMED.sub(" ", line).replace("«»", "")


def _request(line: str) -> str | None:
    """A font request line (``.BI \\-o " file"``) as marked text; None for other lines."""
    head, _, args = line.partition(" ")
    fonts = _ALTERNATING.get(head)
    if fonts is None:
        return None
    parts = _words(args) if len(fonts) == 2 else [args.strip().strip('"')]
    pieces = []
    for i, part in enumerate(parts):
        text = marked(part)
        pieces.append(f"«{text}»" if fonts[i % len(fonts)] == "I" and text else text)
    return "".join(pieces)


def _mdoc(args: str) -> list[tuple[str, str | None]]:
    """``Fl o Ar file`` -> [("-o", "file")]; ``Fl n Op Ar num`` -> [("-n", None)]."""
    tokens = _words(args)
    found: list[tuple[str, str | None]] = []
    optional = False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "Fl" and i + 1 < len(tokens):
            name = marked(tokens[i + 1])
            if name == "Fl" and i + 2 < len(tokens):  # Fl Fl long: --long
                name, i = "-" + marked(tokens[i + 2]), i + 1
            found.append(("-" + name, None))
            optional = False
            i += 2
            continue
        if token == "Op":
            optional = True
        elif token == "Ar" and found and found[-1][1] is None and not optional:
            value = marked(tokens[i + 1]) if i + 1 < len(tokens) else "arg"
            found[-1] = (found[-1][0], value if re.match(r"^\w", value) else "arg")
        i += 1
    return found


def _tag(text: str) -> list[tuple[str, str | None]]:
    """(spelling, value name or None) for every option a tag line lists."""
    out: list[tuple[str, str | None]] = []
    optional: set[str] = set()
    for found in _OPTION.finditer(text):
        spelling, joiner, value = found.group(1), found.group(2) or "", found.group(3)
        if spelling.endswith(("-", ".")) or not re.match(r"^-{1,2}[\w?#@]", spelling):
            continue
        if joiner.startswith("["):
            value = None  # an optional value: glued or absent
            optional.add(spelling)
        elif joiner == "=" and value is None:
            rest = text[found.end():].split()
            value = rest[0] if rest else None
        out.append((spelling, value.strip("«»<> ").lower() if value else None))
    # ``-o, --output=FILE``: the spellings of one tag take the value one of them shows
    shared = next((v for _, v in out if v), None)
    if shared is None or optional:
        return out
    return [(spelling, value or shared) for spelling, value in out]


def kind_of(value: str | None, description: str) -> str:
    """The catalog's kind of an option with value name ``value`` (None: a switch)."""
    if value is None:
        return "flag"
    name = value.replace(" ", "_")
    if name in _RUN_ARGS:  # ``--command NAME`` may name a process to match: runs only if said
        return "run" if _RUN_VERBS.search(description) else "value"
    if _FILE_ARG.search(name) and "dir" not in name:
        return "write" if _WRITES.search(description) else "read"
    return "value"


def options(source: str) -> dict[str, set[str]]:
    """Every option a manual page's tag lines declare, with the kinds seen for it."""
    lines = source.splitlines()
    seen: dict[str, set[str]] = {}
    tag_next = False
    for i, raw in enumerate(lines):
        line = raw.rstrip()
        tags: list[tuple[str, str | None]] = []
        if line.startswith(".It "):
            tags = _mdoc(line[4:])
        elif line.startswith((".TP", ".TQ")):
            tag_next = True
            continue
        elif line.startswith(".IP "):
            words = _words(line[4:])
            tags = _tag(marked(words[0])) if words and "-" in words[0][:6] else []
            tag_next = not tags and bool(words)
        elif line.startswith(".") and not line.startswith((".B", ".I", ".R")):
            continue
        else:
            text = _request(line) if line.startswith(".") else marked(line)
            if text is None:
                continue
            if tag_next and text.lstrip("«[ ").startswith("-"):
                tags = _tag(text)
            tag_next = False
        if not tags:
            continue
        description = " ".join(lines[i + 1:i + 4])
        for spelling, value in tags:
            seen.setdefault(spelling, set()).add(kind_of(value, description))
    return seen
