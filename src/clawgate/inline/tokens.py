"""Inline code of other scripting languages (JavaScript, Perl, Ruby, PHP, Lua, R) read through
its tokens: names (``fs.writeFileSync``, ``FileUtils::rm_rf``), string literals (with
interpolation noted), backticks, punctuation; comments dropped. Calls are matched on names and
their arguments on literal tokens, never on substrings of the text, so ``print("system
ready")`` calls nothing.
"""

from __future__ import annotations

from clawgate.inline import langtables as lt
from clawgate.inline.effects import Effects, action, line, word
from clawgate.lazyre import lazy_pattern
from clawgate.records import record

NAME, STR, DYN, CMD, PUNCT = "name", "str", "dyn", "cmd", "punct"
MAX_TOKENS = 20_000
MAX_SITES = 64  # file calls read in one piece of code; more is itself a reason to ask
MAX_ARGUMENT_TOKENS = 256  # a call's arguments read; past that they are not literal anyway


@record(frozen=True, slots=True)
class Token:
    kind: str  # NAME, STR (literal), DYN (string with interpolation), CMD (backticks), PUNCT
    text: str


def tokenize(code: str, lang: str) -> list[Token]:
    """The tokens of ``code`` in ``lang`` (``js`` ``perl`` ``ruby`` ``php`` ``lua`` ``r``)."""
    out: list[Token] = []
    i, n = 0, len(code)
    hash_comments = lang in ("perl", "ruby", "php", "r", "julia", "octave")
    slash_comments = lang in ("js", "php", "jvmjs", "go")
    while i < n and len(out) < MAX_TOKENS:
        ch = code[i]
        if ch.isspace():
            i += 1
        elif (hash_comments and ch == "#") or (code.startswith("//", i) and slash_comments) \
                or (code.startswith("--", i) and lang == "lua") or (
                    ch == "%" and lang in ("octave", "erlang")):
            end = code.find("\n", i)
            i = n if end < 0 else end
        elif code.startswith("/*", i) and slash_comments:
            end = code.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif ch in "'\"`":
            i = _string(code, i, lang, out)
        elif lang in ("perl", "ruby") and (quoted := _QUOTE_LIKE[lang].match(code, i)) and (
                _quote_may_start(code, i, lang, out)):
            i = _quote_like(code, quoted.end() - 1, quoted.group(1), lang, out)
        elif ch == "/" and lang in ("perl", "ruby", "js", "jvmjs") and _regex_may_start(out):
            i = _regex(code, i, out)
        elif ch.isalnum() or (ch in "_$@%" and i + 1 < n and (code[i + 1].isalnum() or
                                                              code[i + 1] in "_{")):
            i = _name(code, i, out, lang == "erlang")
        else:
            out.append(Token(PUNCT, ch))
            i += 1
    return out


def _string(code: str, start: int, lang: str, out: list[Token]) -> int:
    quote = code[start]
    i, chars = start + 1, []
    while i < len(code) and code[i] != quote:
        if code[i] == "\\" and i + 1 < len(code):
            chars.append(_ESCAPES.get(code[i + 1], code[i + 1]))
            i += 2
        else:
            chars.append(code[i])
            i += 1
    text = "".join(chars)
    interpolates = quote != "'" and (
        (lang in ("perl", "php") and ("$" in text or "@" in text))
        or (lang == "julia" and "$" in text)
        or (lang == "ruby" and "#{" in text) or (lang == "js" and quote == "`" and "${" in text))
    kind = CMD if quote == "`" and lang in ("perl", "ruby", "php", "julia") else (
        DYN if interpolates else STR)
    out.append(Token(kind, text))
    return i + 1


# Perl's quote-like operators (``q{…}``, ``qq(…)``, ``qx[…]`` runs a command, ``qw<…>``) and
# Ruby's percent literals (``%q{…}``, ``%Q(…)``, ``%(…)``, ``%x{…}`` runs one, ``%w[…]``): group
# 1 is the operator, the match ends at the opening delimiter.
_QUOTE_LIKE = {"perl": lazy_pattern(r"(qq|qx|qw|q)\s*[^\w\s=,;)]"),
               "ruby": lazy_pattern(r"%([qQwWxiI]?)[^\w\s=]")}
_CLOSERS = {"{": "}", "(": ")", "[": "]", "<": ">"}
_RUNS = frozenset({"qx", "x"})
_LITERAL = frozenset({"q", "qw", "w", "W", "i", "I"})


def _quote_may_start(code: str, start: int, lang: str, out: list[Token]) -> bool:
    """The operator begins a word (``$q``, ``xq`` are names) and, for Ruby's bare ``%(``,
    stands where a value may start (``a % (b)`` is a remainder)."""
    if start and (code[start - 1].isalnum() or code[start - 1] in "_$@%:>-"):
        return False
    if lang == "ruby" and code[start + 1:start + 2] in _CLOSERS:
        return _regex_may_start(out) or out[-1].kind == NAME
    return True


def _quote_like(code: str, at: int, operator: str, lang: str, out: list[Token]) -> int:
    """Read the literal whose opening delimiter is at ``at`` (nested pairs counted)."""
    opener = code[at]
    closer = _CLOSERS.get(opener, opener)
    depth, i, chars = 1, at + 1, []
    while i < len(code):
        ch = code[i]
        if ch == "\\" and i + 1 < len(code):
            chars.append(code[i + 1] if operator in _LITERAL else _ESCAPES.get(code[i + 1],
                                                                               code[i + 1]))
            i += 2
            continue
        if ch == closer and opener != closer:
            depth -= 1
        elif ch == opener and opener != closer:
            depth += 1
        elif ch == closer:
            depth = 0
        if depth == 0:
            break
        chars.append(ch)
        i += 1
    text = "".join(chars)
    dynamic = operator not in _LITERAL and interpolates(text, lang)
    kind = CMD if operator in _RUNS else DYN if dynamic else STR
    out.append(Token(kind, text))
    return i + 1


def interpolates(text: str, lang: str) -> bool:
    """Text between interpolating quotes of ``lang`` holds a variable: in Perl any ``$`` or
    ``@`` (``@-`` and ``$;`` are variables too), in Ruby ``#{``."""
    return "#{" in text if lang == "ruby" else ("$" in text or "@" in text)


_REGEX_AFTER = frozenset("(,=~!;{|&?:")
_REGEX_NAMES = {"s": 3, "tr": 3, "y": 3, "m": 2, "qr": 2}


def _regex_may_start(out: list[Token]) -> bool:
    """A ``/`` that starts a regular expression literal rather than dividing."""
    if not out:
        return True
    last = out[-1]
    if last.kind == PUNCT:
        return last.text in _REGEX_AFTER
    return last.kind == NAME and last.text in (
        "if", "unless", "and", "or", "not", "return", "split", "grep", "when", "while",
        "until", *_REGEX_NAMES)


def _regex(code: str, start: int, out: list[Token]) -> int:
    """Skip a regular expression literal (``/x/``, or ``s/a/b/`` after its operator name)."""
    slashes = _REGEX_NAMES.get(out[-1].text, 2) if out and out[-1].kind == NAME else 2
    i, seen = start, 0
    while i < len(code) and seen < slashes:
        if code[i] == "\\":
            i += 2
            continue
        seen += code[i] == "/"
        i += 1
    out.append(Token(PUNCT, "/re/"))
    return i


_ESCAPES = {"n": "\n", "t": "\t", "0": "\0"}


def _name(code: str, start: int, out: list[Token], colon: bool = False) -> int:
    """A name, with its module parts (``fs.rm``, ``File::Path``, ``$x->y``; Erlang's
    ``file:delete`` when ``colon``)."""
    i = start + 1
    while i < len(code):
        if code[i].isalnum() or code[i] == "_" or (
                colon and code[i] == ":" and i + 1 < len(code) and code[i + 1].isalpha()):
            i += 1
        elif code.startswith(("::", "->"), i) and i + 2 < len(code) and code[i + 2].isalpha():
            i += 2
        elif code[i] == "." and i + 1 < len(code) and code[i + 1].isalpha():
            i += 1
        else:
            break
    out.append(Token(NAME, code[start:i]))
    return i


def arguments(tokens: list[Token], at: int) -> tuple[list[list[Token]], int]:
    """The arguments of the call whose name is ``tokens[at]``: in parentheses, or (Perl, Ruby)
    up to the end of the statement; and where they end."""
    i = at + 1
    paren = i < len(tokens) and tokens[i].text == "("
    i += 1 if paren else 0
    args: list[list[Token]] = [[]]
    depth = 0
    end = min(len(tokens), i + MAX_ARGUMENT_TOKENS)
    while i < end:
        tok = tokens[i]
        if tok.kind == PUNCT and tok.text in "([{":
            depth += 1
        elif tok.kind == PUNCT and tok.text in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif tok.kind == PUNCT and tok.text == ";" and depth == 0:
            break
        if tok.kind == PUNCT and tok.text == "," and depth == 0:
            args.append([])
        else:
            args[-1].append(tok)
        i += 1
    return ([] if args == [[]] else args), i


def literal(arg: list[Token]) -> str | None:
    """A literal string argument (concatenations of literals included), or None."""
    parts = [t for t in arg if not (t.kind == PUNCT and t.text in "+.")]
    if not parts or any(t.kind != STR for t in parts):
        return None
    return "".join(t.text for t in parts)


def analyse(code: str, lang: str) -> Effects:
    """What inline ``code`` in ``lang`` does, as far as its tokens tell."""
    tokens = tokenize(code, lang)
    commands: list[str] = []
    opaque: list[str] = []
    reads: list[str] = []
    flags: set[str] = set()
    sites = 0
    hidden = _hidden_names(tokens)
    for at, tok in enumerate(tokens):
        if tok.kind == CMD and not interpolates(tok.text, lang):
            commands.append(tok.text)  # `cmd`, qx{cmd}, %x(cmd): a command line, as written
        if tok.kind != NAME:
            continue
        prefix, _, last = tok.text.replace("::", ".").replace("->", ".").replace(
            ":", ".").rpartition(".")
        if last in lt.FILE_CALLS.get(lang, {}) and (
                last not in lt.AMBIGUOUS or prefix in lt.QUALIFIERS.get(lang, ())):
            sites += 1
            if sites > MAX_SITES:
                opaque.append("more file actions than are read here")
                break
            if _file(lang, tok.text, last, arguments(tokens, at)[0], commands, opaque, reads):
                flags.add("network")
        elif (last in lt.EVALUATORS and _decoded(arguments(tokens, at)[0], hidden)) or (
                (last in lt.EVALUATORS or last in lt.CODE_LOADERS) and
                _fetched(lang, last, arguments(tokens, at)[0])):
            flags.add("decoded")
        elif lang == "php" and last in _CALLBACK_TAKERS:
            _callback_file(tokens, at, commands, opaque, reads)
        if (last in lt.SPAWNS and lang not in ("go", "erlang") and (
                last != "execute" or prefix == "os")) or (  # not db.execute
                lang == "go" and tok.text in lt.GO_SPAWNS) or (
                lang == "erlang" and f"{prefix}.{last}" in lt.ERLANG_SPAWNS):
            argv = _spawned(arguments(tokens, at)[0])
            if argv:
                commands.append(argv[0] if len(argv) == 1 else line(argv))
        if _reaches(lang, prefix, last) or (tok.text in _LOADERS and _loads_network(tokens, at)):
            flags.add("network")
        if _env_dump(tokens, at, lang):
            flags.add("env")
    return Effects(tuple(dict.fromkeys(commands)), tuple(dict.fromkeys(opaque)),
                   tuple(dict.fromkeys(reads)), network="network" in flags,
                   decoded="decoded" in flags, env_dump="env" in flags)


# PHP's functions that call a function named by a string (``array_map("unlink", $files)``,
# ``array_walk($files, "unlink")``, ``call_user_func("unlink", $f)``): a file function so
# named acts on the other arguments as if called on them.
_CALLBACK_TAKERS = frozenset({"array_map", "array_walk", "call_user_func",
                              "call_user_func_array"})


def _callback_file(tokens: list[Token], at: int, commands: list[str], opaque: list[str],
                   reads: list[str]) -> None:
    args = arguments(tokens, at)[0]
    for index, arg in enumerate(args):
        name = literal(arg)
        if name is not None and name in lt.FILE_CALLS["php"]:
            _file("php", name, name, args[:index] + args[index + 1:], commands, opaque, reads)
            return


def _reaches(lang: str, prefix: str, last: str) -> bool:
    """The name (``IO::Socket::INET->new``, ``net.connect``, ``fsockopen``) is a network call
    or constructor: it, or one of its leading parts, is listed."""
    listed = lt.NETWORK.get(lang, frozenset())
    if last in listed:
        return True
    name = f"{prefix}.{last}" if prefix else last
    while name:
        if name in listed:
            return True
        name = name.rpartition(".")[0]
    return False


_LOADERS = frozenset({"require", "import", "use", "library", "from", "require_relative"})


def _loads_network(tokens: list[Token], at: int) -> bool:
    """``require('net')``, ``require "socket"``, ``library(httr)``: a network module."""
    for tok in tokens[at + 1 : at + 4]:
        if tok.kind in (STR, NAME):
            return tok.text in lt.NETWORK_MODULES
    return False


def _file(lang: str, name: str, last: str, args: list[list[Token]], commands: list[str],
          opaque: list[str], reads: list[str]) -> bool:
    """Record what a file call does; True when the "file" it names is a URL (PHP's
    ``file_get_contents("https://…")``, Julia's ``download``): the call reaches the network."""
    verb, where = lt.FILE_CALLS[lang][last]
    if lang == "julia" and last == "open" and len(args) > 1 and any(
            t.kind == PUNCT and t.text == ">" for t in args[0]):
        where = 1  # open(f -> read(f, String), "path"[, "w"]): the function comes first
    if any(_URL.match(literal(a) or "") for a in args[:where + 1]):
        return True
    if lang == "go" and last == "OpenFile" and len(args) > 1 and any(
            t.kind == NAME and t.text.rsplit(".", 1)[-1] in lt.GO_WRITE_FLAGS for t in args[1]):
        verb = "write"
    if lang == "perl" and last == "open":
        verb, path = _perl_open(args)
    elif lang in lt.MODE_LANGUAGES and last in lt.MODE_OPENERS:
        path = literal(args[where]) if len(args) > where else None
        mode = literal(args[where + 1]) if len(args) > where + 1 else "r"
        verb = "append" if "a" in (mode or "w") else "write" if set(mode or "w") & set(
            "wx+") else "read"
    else:
        path = literal(args[where]) if len(args) > where else None
    pattern = glob_pattern(args[where]) if path is None and len(args) > where else None
    if pattern is not None and verb in ("delete", "rmtree", "read"):
        commands.append(action(verb, pattern, glob=True))  # unlink glob "*.bak": rm -f *.bak
        return False
    if path is None and len(args) > where:
        path = home_path(args[where])
    if path is None and lang == "julia" and last == "write":
        return False  # write(io, x): to a stream the code opened (or stdout), not a path
    if verb in ("move", "copy", "symlink", "link") and path is not None and len(args) > 1:
        other = literal(args[1])
        if other is not None:
            commands.append(action(verb, path, other))
            return False
        path = None
    if path is not None:
        commands.append(action(verb, path))
        if verb == "read":
            reads.append(word(path))
    elif verb != "read" and args:
        opaque.append(f"{name} acts on a file named only at run time")
    return False


_URL = lazy_pattern(r"^(?!file:)[a-zA-Z][\w+.-]*://")
# A glob pattern as the shell would expand it the same way: names, ``/``, ``.``, ``~`` first,
# and the wildcards ``*``, ``?`` and bracket classes (nothing the shell would expand else).
_GLOB_PATTERN = lazy_pattern(r"^(?:~(?:/[\w./*?\[\]-]*)?|[\w./*?\[\]-]+)$")
_GLOBBERS = frozenset({"glob", "Dir.glob", "Dir.[]", "File.glob"})


def glob_pattern(arg: list[Token]) -> str | None:
    """The pattern of a file argument given as a glob of a literal pattern (Perl's ``glob
    "*.bak"``, ``glob("~/x/*")``, Ruby's ``Dir.glob("tmp/*")``, PHP's ``glob("*.log")``): the
    files the shell's own expansion of it would name; None for anything else."""
    tokens = arg[1:] if arg[:1] and arg[0].text == "*" else arg  # Ruby's splat
    if not tokens or tokens[0].kind != NAME or tokens[0].text not in _GLOBBERS:
        return None
    inner = tokens[1:]
    if len(inner) >= 2 and inner[0].text == "(" and inner[-1].text == ")":
        inner = inner[1:-1]
    text = literal(inner) if inner else None
    if text is None and inner:  # glob(getenv("HOME")."/*"): a pattern under home
        text = home_path(inner)
    return text if text is not None and _GLOB_PATTERN.match(text) else None


# Names and interpolations that stand for the home directory, and the strings that are only
# the names of modules or variables around them (``require('os').homedir()``, ``getenv("HOME")``).
_HOME_EXPRESSION = lazy_pattern(r"(?i)(?:^|[.:$_{])(?:home(?:dir)?|userprofile|expanduser|"
                                r"expand_path|get_home)\b|\bHOME\b")
_NOT_A_PART = frozenset({"HOME", "USERPROFILE", "os", "path", "fs", "node:os", "node:path",
                         "node:fs", "utf8", "utf-8"})


def home_path(arg: list[Token]) -> str | None:
    """A path under the home directory built from an expression for it and literal parts:
    ``process.env.HOME + '/.ssh/id_rsa'``, ``path.join(os.homedir(), '.ssh', 'id_rsa')``,
    ``Dir.home + "/.x"``, ``"#{Dir.home}/.x"``, ``getenv("HOME")."/.x"``, ``"$ENV{HOME}/.x"``
    are ``~/.ssh/id_rsa`` and ``~/.x``; None when the argument is anything else."""
    home = False
    other_names = False
    parts: list[str] = []
    for tok in arg:
        if tok.kind == NAME and _HOME_EXPRESSION.search(tok.text):
            home = True
        elif tok.kind == NAME:
            other_names = other_names or _last(tok.text) not in _HOME_GLUE
        elif tok.kind == DYN:
            found = _HOME_EXPRESSION.search(tok.text)
            if found is None or "/" not in tok.text:
                return None
            home = True
            parts.append(tok.text[tok.text.index("/", found.end() - 1):])
        elif tok.kind == STR and tok.text in ("HOME", "USERPROFILE"):
            home = True  # ENV['HOME'], getenv("HOME")
        elif tok.kind == STR and tok.text not in _NOT_A_PART:
            home = home or tok.text.startswith("~/")
            parts.append(tok.text.removeprefix("~"))
        elif tok.kind == CMD:
            return None
    joined = "/".join(p.strip("/") for p in parts if p.strip("/"))
    if home and not joined and not other_names and not parts:
        return "~"  # the home directory itself: ``rmSync(os.homedir())``
    return "~/" + joined if home and joined else None


# Names that only fetch or join the home directory's name (``require('os').homedir()``,
# ``os:getenv("HOME")``): with nothing else beside them the argument is home itself.
_HOME_GLUE = frozenset({"require", "getenv", "env", "join", "fetch", "get", "Sys.getenv",
                        "expanduser", "homedir", "home",
                        # the environment tables, subscripted by HOME: Perl's ``$ENV{HOME}``,
                        # PHP's ``$_ENV['HOME']``/``$_SERVER['HOME']``, Ruby's ``ENV['HOME']``
                        "$ENV", "ENV", "$_ENV", "$_SERVER", "environ"})


def _last(name: str) -> str:
    return name.replace("::", ".").replace("->", ".").replace(":", ".").rpartition(".")[2]


def _spawned(args: list[list[Token]]) -> list[str] | None:
    """The argv of a process call made of literal strings and arrays of them (an options
    object at the end is left out); None when any part is only known at run time."""
    argv: list[str] = []
    for arg in args:
        if arg and arg[0].text == "{":
            break
        if arg and arg[0].text == "[":
            items = [t for t in arg[1:-1] if not (t.kind == PUNCT and t.text == ",")]
            if any(t.kind != STR for t in items):
                return None
            argv.extend(t.text for t in items)
            continue
        text = literal(arg)
        if text is None and arg and arg[0].kind != STR:
            text = home_path(arg)  # system("rm", "-rf", Dir.home): home, not a text before it
        if text is None:
            return None
        argv.append(text)
    return argv


def _perl_open(args: list[list[Token]]) -> tuple[str, str | None]:
    """``open(FH, ">path")``, ``open(my $fh, '>>', 'path')``: (verb, path)."""
    rest = [literal(a) for a in args[1:]]
    text = "".join(r or "" for r in rest) if None not in rest else None
    if text is None:
        return ("write" if len(args) > 2 else "read"), None
    stripped = text.lstrip()
    verb = "append" if stripped.startswith(">>") else "write" if stripped.startswith(
        (">", "+<", "+>")) else "read"
    return verb, stripped.lstrip("+<>").strip() or None


def _decoded(args: list[list[Token]], hidden: frozenset[str] = frozenset()) -> bool:
    """The arguments decode text, or name a variable given decoded text earlier."""
    return any((t.kind == NAME and (t.text.replace("::", ".").rsplit(".", 1)[-1] in lt.DECODERS
                                    or t.text in hidden))
               or (t.kind == STR and t.text in ("base64", "hex", "m", "H*", "u"))
               for arg in args for t in arg)


_REMOTE = lazy_pattern(r"^(?:https?|ftps?|sftp)://")


def _fetched(lang: str, call: str, args: list[list[Token]]) -> bool:
    """The code an evaluator or a code loader is given comes from another host: a loader
    given an address (``source("https://…")``, ``include "http://…"``), or an argument that
    reaches the network (``eval URI.open(…).read``, ``include(download(…))``) or calls
    something on an address (``eval(file_get_contents("https://…"))``, ``eval get "…"``)."""
    found = [t for arg in args for t in arg]
    address = any(t.kind in (STR, DYN) and _REMOTE.match(t.text) for t in found)
    if address and call in lt.CODE_LOADERS:
        return True
    names = [t.text.replace("::", ".").replace("->", ".") for t in found if t.kind == NAME]
    reached = any(_reaches(lang, *n.rpartition(".")[::2]) for n in names)
    return reached or (address and bool(names))


def _hidden_names(tokens: list[Token]) -> frozenset[str]:
    """Variables assigned decoded text (``$c = base64_decode(…);``, ``const c = atob(…)``)."""
    found: set[str] = set()
    for at, tok in enumerate(tokens[1:-1], start=1):
        if tok.kind != PUNCT or tok.text != "=" or tokens[at - 1].kind != NAME or (
                tokens[at + 1].text in "=>~" or tokens[at - 1].text in ("!", "<", ">")):
            continue
        value: list[Token] = []
        for following in tokens[at + 1 : at + 1 + MAX_ARGUMENT_TOKENS]:
            if following.kind == PUNCT and following.text == ";":
                break
            value.append(following)
        if _decoded([value], frozenset(found)):
            found.add(tokens[at - 1].text)
    return frozenset(found)


def _env_dump(tokens: list[Token], at: int, lang: str) -> bool:
    tok, following = tokens[at], tokens[at + 1] if at + 1 < len(tokens) else None
    after = following.text if following is not None else ";"
    before = tokens[at - 1].text if at else ""
    if lang == "js":
        return tok.text == "process.env" and after not in (".", "[", "?") and before != "."
    if lang == "ruby":
        return (tok.text == "ENV" and after != "[") or tok.text in (
            "ENV.to_h", "ENV.to_a", "ENV.each", "ENV.inspect", "ENV.to_hash", "ENV.each_pair")
    if lang == "perl":
        return tok.text == "%ENV"
    if lang == "php":
        return (tok.text in ("$_ENV", "$_SERVER") and after != "[") or (
            tok.text == "getenv" and after == "(" and at + 2 < len(tokens)
            and tokens[at + 2].text == ")")
    return lang == "r" and tok.text == "Sys.getenv" and after == "(" and (
        at + 2 < len(tokens) and tokens[at + 2].text == ")")
