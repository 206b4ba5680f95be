"""Walk a command's words as the program receives them and say what each one does.

Words are judged by their value after quote removal and escape processing (``-"fprint"`` and
``-\\f\\p\\r\\i\\n\\t`` are ``-fprint``); a word whose value is only known at run time is an
operand. getopt-style programs cluster short options (``-uo FILE``, ``-oFILE``) and take
``--long=VALUE`` or ``--long VALUE``; those that accept unique prefixes of long options match
``--outp`` to ``--output``, computed from the declared spellings (when a prefix fits several,
the one with the strongest effect is taken: reading more into a word is the safe side).
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.programs import tasknames
from clawgate.programs.languages import script_effects
from clawgate.records import record
from clawgate.shell.model import Word

_LITERAL_HEAD = lazy_pattern(r"[^$`\"'\\{*?\[]*")
_BRACED = lazy_pattern(r"\$\{[^}]*\}")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VALUE_KINDS = frozenset({"write", "read", "echoes", "run", "code", "config", "setting",
                         "network", "value", "wrap"})
_STRENGTH = ("flag", "value", "read", "echoes", "network", "setting", "publishes", "deletes",
             "unconfined", "in-place",
             "write", "wrap", "code", "config", "runs", "run", "run-argv")
_TIER_ORDER = {"low": 0, "medium": 1, "network": 2, "high": 3}
_ARGV_END = frozenset({";", "+", "\\;"})
# What an operand write is called: None for operands a program changes in place (rm, touch,
# chmod), a name for those that receive new content (tee's outputs, cp's destination).
_OPERAND = {"write": None, "output": "(output)"}
_AWK_INPLACE = frozenset({"inplace", "inplace.awk"})


@record(frozen=True, slots=True)
class Effect:
    """One thing a command does: ``kind`` (write, read, run, code, config, network, runs,
    deletes), the option that says so (``(output)``, ``(destination)``, ``(script)`` for
    operands that receive content and script commands; None for operands changed in place)
    and the word it acts on (a path, a command text; None for flags)."""

    kind: str
    option: str | None
    word: Word | None = None


def part(word: Word, start: int) -> Word:
    """The tail of ``word`` from character ``start`` of its value (a glued option value)."""
    if word.value is None:
        return Word(word.text[start:], None, word.quoted, word.expansions)
    return Word(word.value[start:], word.value[start:], word.quoted, word.expansions)


def literal_head(text: str) -> str:
    """The start of a word's text before any quote, expansion or escape: what bash passes
    as written (``-o`` of ``-o$HOME``, ``--directory=`` of ``--directory="$X"``)."""
    found = _LITERAL_HEAD.match(text)
    return "" if found is None else found.group(0)


def _lookup(options: dict[str, str], name: str, prefixes: bool) -> tuple[str, str] | None:
    kind = options.get(name)
    if kind is not None:
        return name, kind
    if not prefixes or not name.startswith("--") or len(name) < 4:
        return None
    found = [(s, k) for s, k in options.items() if s.startswith(name) and s.startswith("--")]
    if not found:
        return None
    return max(found, key=lambda item: _STRENGTH.index(item[1]))


class _Walk:
    """The state of one walk: where the options come from, and what was found so far."""

    __slots__ = ("effects", "operand_kind", "operands", "options", "prefixes", "single", "spec",
                 "subs", "tier", "words")

    def __init__(self, words: tuple[Word, ...], spec: dict[str, Any]) -> None:
        self.words = words
        self.spec = spec
        self.options: dict[str, str] = spec.get("options", {})
        self.subs: dict[str, Any] | None = spec.get("subcommands")
        self.tier: str = spec["tier"]
        self.operand_kind: str | None = spec.get("operands")
        self.prefixes = bool(spec.get("prefixes"))
        self.single = spec.get("style") == "single"
        self.effects: list[Effect] = []
        self.operands: list[Word] = []

    def run(self) -> None:
        words, i, ended = self.words, 1, False
        while i < len(words):
            word = words[i]
            text = word.value
            i += 1
            if text is None and not ended:
                head = literal_head(word.text)  # -o$HOME, --directory="$X": a literal name
                if len(head) > 1 and head[0] == "-" and ("=" in head or head[1] != "-"):
                    i = self._unresolved(head, word, i)
                    continue
            if ended or text is None or len(text) < 2 or text[0] != "-":
                self._operand(word)
            elif text == "--" and not self.single:
                ended = True
            elif text.startswith("--") or self.single or text in self.options:
                i = self._long(text, word, i)
            else:
                i = self._cluster(text, word, i)

    def _unresolved(self, head: str, word: Word, i: int) -> int:
        """An option word whose value is known only at run time: ``head`` is its literal
        start (``-o`` of ``-o$HOME``, gcc's ``-o`` of ``-o"$OUT"``)."""
        if "=" in head:
            return self._long(head, word, i)
        if self.single:
            short = self.options.get(head[:2])
            if short in VALUE_KINDS:
                self._found(short, head[:2], part(word, 2))
            return i
        return i if head.startswith("--") else self._cluster(head, word, i, len(word.text))

    def _operand(self, word: Word) -> None:
        if self.subs is not None and not self.operands and word.value in self.subs:
            sub = self.subs[word.value]
            self.tier = sub["tier"]
            self.options = sub.get("options", {})
            self.operand_kind = sub.get("operands")
            self.subs = sub.get("subcommands")
            return
        if self.subs is not None and not self.operands and self.spec.get("globals_first"):
            self.options = {}  # git diff-files -p: -p is the subcommand's, not git's -p
        self.subs = None
        self.operands.append(word)

    def _value(self, i: int) -> tuple[Word | None, int]:
        return (self.words[i], i + 1) if i < len(self.words) else (None, i)

    def _found(self, kind: str, option: str, value: Word | None) -> None:
        if kind == "read" and self.spec.get("language") == "awk" and value is not None and (
                value.value in _AWK_INPLACE):
            kind = "in-place"  # gawk -i inplace: the library rewrites every file operand
        if kind not in ("flag", "value"):
            self.effects.append(Effect(kind, option, value))

    def _long(self, text: str, word: Word, i: int) -> int:
        name, eq, _ = text.partition("=")
        hit = _lookup(self.options, name, self.prefixes)
        start = len(name) + 1
        if hit is None and self.single and len(name) > 2 and not name.startswith("--"):
            short = self.options.get(name[:2])
            hit, eq, start = ((name[:2], short), "=", 2) if short in VALUE_KINDS else (None, eq, 0)
        if hit is None:
            return i
        option, kind = hit
        if kind == "run-argv":
            return self._argv(option, i)
        value: Word | None = None
        if kind in VALUE_KINDS:
            value, i = (part(word, start), i) if eq else self._value(i)
        self._found(kind, option, value)
        return i

    def _argv(self, option: str, i: int) -> int:
        end = i
        while end < len(self.words) and self.words[end].shown not in _ARGV_END:
            end += 1
        text = " ".join(w.shown for w in self.words[i:end])
        self.effects.append(Effect("run", option, Word(text, text) if text else None))
        return end + 1

    def _cluster(self, text: str, word: Word, i: int, length: int | None = None) -> int:
        """Short options bundled in ``text`` (``-xvf``, ``-ofile``); ``length``: that of the
        whole word when ``text`` is only its literal head (``-o`` of ``-o$HOME``)."""
        length = len(text) if length is None else length
        multi = [(name, kind) for name, kind in self.options.items()
                 if len(name) > 2 and name[1] != "-"]
        skip = 0
        for pos in range(1, len(text)):
            if pos < skip:
                continue
            several = _several(multi, text, pos) if multi else None  # zip's -TmTT=CMD
            if several is not None:
                name, how = several
                skip = pos + len(name) - 1
                if how in VALUE_KINDS:
                    start = skip + (text[skip:skip + 1] == "=")
                    value, i = (part(word, start), i) if start < length else self._value(i)
                    self._found(how, name, value)
                    return i
                self._found(how, name, None)
                continue
            option = "-" + text[pos]
            kind = self.options.get(option)
            if kind is None:
                continue
            if kind in VALUE_KINDS:
                value, i = (part(word, pos + 1), i) if pos + 1 < length else self._value(i)
                self._found(kind, option, value)
                return i
            self._found(kind, option, None)
        return i

    def finish(self) -> None:
        self._raise_tier()
        kind, operands = self.operand_kind, self.operands
        language = self.spec.get("language")
        if language in ("sed", "awk", "expression"):
            operands = self._scripts(language, operands)
        if any(e.kind == "in-place" for e in self.effects):
            self.effects = [e for e in self.effects if e.kind != "in-place"]
            self.effects.extend(Effect("write", "(in place)", w) for w in operands)
        elif kind in ("write", "output"):
            self.effects.extend(Effect("write", _OPERAND[kind], w) for w in operands)
        elif kind == "wrap":  # each operand a command line the program exists to run
            self.effects.extend(Effect("wrap", "(command)", w) for w in operands)
        elif kind == "write-after-first":
            self.effects.extend(Effect("write", None, w) for w in operands[1:])
        elif kind == "write-first" and operands:  # patch FILE [PATCHFILE]: FILE is changed
            self.effects.append(Effect("write", None, operands[0]))
        elif kind == "read-then-write" and len(operands) >= 2:
            self.effects.append(Effect("write", "(output)", operands[1]))
        elif kind == "write-last" and len(operands) >= 2 and not any(
                e.kind == "write" and e.option for e in self.effects):
            last = operands[-1]
            head = _BRACED.sub("", last.shown).split("/", 1)[0]
            if ":" not in head:  # host:path is remote; ${D:-x}/y is not
                self.effects.append(Effect("write", "(destination)", last))

    def _raise_tier(self) -> None:
        """A switch that publishes (``--push``) or a task that does (``gradle publish``)."""
        found = ["high"] if any(e.kind == "publishes" for e in self.effects) else []
        tasks: dict[str, str] = self.spec.get("tasks", {})
        for word in self.operands if tasks else ():
            found += tasknames.tiers(word.value or "", tasks)  # scoped, chained: tasknames
        for tier in found:
            if _TIER_ORDER[tier] > _TIER_ORDER[self.tier]:
                self.tier = tier

    def _scripts(self, language: str, operands: list[Word]) -> list[Word]:
        """The effects of the scripts given (``-e`` values, else the first operand); the
        operands left once a script operand is taken."""
        given = [e.word for e in self.effects if e.kind == "code" and e.word is not None]
        from_file = any(e.kind == "read" for e in self.effects)
        if not given and not from_file and operands:
            given, operands = [operands[0]], operands[1:]
        self.effects = [e for e in self.effects if e.kind != "code"]
        if language == "sed" and len(given) > 1 and all(w.value is not None for w in given):
            # sed joins its -e pieces with newlines before reading them: `-e '1a\' -e 'e x'`
            # appends the text "e x", it runs nothing.
            joined = "\n".join(w.value or "" for w in given)
            given = [Word(joined, joined)]
        for script in given:
            self.effects.extend(script_effects(language, script))
        return operands


def _several(multi: list[tuple[str, str]], text: str, pos: int) -> tuple[str, str] | None:
    """A declared short option of several letters (``-TT``, ``-tt``) starting at ``pos`` of
    a cluster: Info-ZIP-style tools take them among single letters."""
    found = [(name, kind) for name, kind in multi if text.startswith(name[1:], pos)]
    return max(found, key=lambda item: len(item[0])) if found else None


def scan(words: tuple[Word, ...], spec: dict[str, Any]) -> tuple[list[Effect], str]:
    """(effects, tier) of an argv (``words[0]`` is the program) under a catalog entry."""
    walk = _Walk(words, spec)
    walk.run()
    walk.finish()
    return walk.effects, walk.tier


def operands(words: tuple[Word, ...], spec: dict[str, Any]) -> list[Word]:
    """The operands of an argv under a catalog entry: the words left once the options and
    their values are taken (``entr -r make``: ``make``)."""
    walk = _Walk(words, spec)
    walk.run()
    return walk.operands
