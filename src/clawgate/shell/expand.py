"""Expanding one word's text as bash would, with variables whose values are known.

Only what can be done exactly is done: quotes, backslashes, ``$'…'``, ``$name``, ``${name}``,
``${!name}`` (indirection), the parameter operators ``paramops.py`` works out (pattern
replacement and removal, case, slices, length) and word splitting of unquoted expansions on the
default ``$IFS``. Anything else -- command substitution, other operators, special
parameters, an unknown variable, a glob character produced by an unquoted expansion --
makes the word unknown (None). So does a value longer than ``MAX_VALUE`` characters
(``x=$x$x`` twenty times is four million): an unknown word is judged as written, strictly,
and building it is work charged to the decision's budget (``clawgate/bounds.py``).
"""

from __future__ import annotations

import os
from itertools import repeat
from operator import itemgetter

from clawgate.bounds import charge_text
from clawgate.lazyre import lazy_pattern
from clawgate.shell.paramops import SHELL_OPTIONS, operate
from clawgate.shell.words import decode_ansi_c

DEFAULT_IFS = " \t\n"
MAX_VALUE = 65_536  # characters of one expanded word or value; a longer one is unknown
_NAME = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*")
# ${x}, ${!x}, and ${x:-word} / ${x-word} / ${x:=word} / ${x=word} with a plain word: a value
# not known on the line takes the word (one of the values it can have: the line is checked as
# it too, never instead)
_BRACED = lazy_pattern(r"\{(!?)([A-Za-z_][A-Za-z0-9_]*|[@*]|\d)(?:(:?[-=])([^}$`\"'\\]*))?\}")
_HOME_WORD = lazy_pattern(r"~(?:/[^\n]*)?")  # ~ or ~/x: the home directory's
_DQ_ESCAPABLE = frozenset('$`"\\\n')
# ${a[@]}, ${a[*]}, ${a[N]} of an array set literally on the line (``constants.py`` keeps its
# elements under "a[@]", joined by ARRAY_SEP, and each under "a[N]").
_SUBSCRIPT = lazy_pattern(r"\{([A-Za-z_][A-Za-z0-9_]*)\[(@|\*|\d+)\]\}")
ARRAY_SEP = "\x00"  # no shell value holds a NUL

# One character of the expanded word: (character, produced by an unquoted expansion).
_Chars = list[tuple[str, bool]]


def _tilde(word: str, env: dict[str, str]) -> str:
    """The word of ``${x:-word}`` after tilde expansion, which bash does there as at the start
    of a word (``${X:-~/.aws/credentials}`` is a path under the home directory); a line that
    sets HOME itself makes it unknown."""
    if not _HOME_WORD.fullmatch(word):
        return word
    if "HOME" in env:
        raise Unknown
    home = os.path.expanduser("~")
    if not home.startswith("/"):
        raise Unknown
    return home if word == "~" else home.rstrip("/") + word[1:]


class Unknown(Exception):
    """The word's value cannot be known before it runs."""


def expand(text: str, env: dict[str, str], *, split: bool = True) -> list[str] | None:
    """The fields ``text`` expands to under ``env``, or None when that is not known exactly.
    ``split=False`` (an assignment's value): one field, no word splitting."""
    expander = _Expander(text, env)
    try:
        chars, quoted = expander.run()
    except Unknown:
        return None
    if not split:  # an assignment: "${a[@]}" is joined by spaces there
        if not expander.separated:
            return ["".join(map(_CHAR, chars))]
        return ["".join(" " if loose and c == ARRAY_SEP else c for c, loose in chars)]
    if expander.globbing:
        return None  # the field would be a glob pattern
    return _split_on(chars, quoted, env.get("IFS", DEFAULT_IFS), expander.separated)


_CHAR = itemgetter(0)
_GLOB_CHARS = frozenset("*?[")


def _split_on(chars: _Chars, quoted: bool, ifs: str, separated: bool = True) -> list[str]:
    """Fields split on ``$IFS`` (``IFS=,; x=rm,-rf,/; $x``): each of its characters that is
    not white space ends a field; white space ones run together; an unquoted empty result is
    no field at all."""
    if not ifs and not separated:
        text = "".join(map(_CHAR, chars))
        return [text] if text or quoted else []
    fields: list[str] = []
    current: list[str] = []
    started = quoted
    for char, loose in chars:
        if loose and char == ARRAY_SEP:  # between the elements of "${a[@]}": always a break
            fields.append("".join(current))
            current, started = [], True
            continue
        if loose and char in ifs:
            if char in " \t\n":
                if current or started:
                    fields.append("".join(current))
                current, started = [], False
            else:
                fields.append("".join(current))
                current, started = [], False
            continue
        current.append(char)
        started = True
    if current or started:
        fields.append("".join(current))
    return fields


class _Expander:
    def __init__(self, text: str, env: dict[str, str]) -> None:
        self.text = text
        self.env = env
        self.i = 0
        self.out: _Chars = []
        self.quoted = False
        self.globbing = False  # an unquoted expansion put in a glob character
        self.separated = False  # an array's elements were put in with ARRAY_SEP between

    def run(self) -> tuple[_Chars, bool]:
        text = self.text
        while self.i < len(text):
            ch = text[self.i]
            if ch == "\\":
                self._literal(text[self.i + 1 : self.i + 2])
                self.i += 2
            elif ch == "'":
                end = self._closing("'", self.i + 1)
                self._literal(text[self.i + 1 : end])
                self.i = end + 1
            elif text.startswith("$'", self.i):
                end = self._ansi_end(self.i + 2)
                self._literal(decode_ansi_c(text[self.i + 2 : end]))
                self.i = end + 1
            elif text.startswith('$"', self.i) or ch == '"':
                self.i += 2 if ch == "$" else 1
                self._double()
            elif ch == "$":
                self._dollar(quoted=False)
            elif ch == "`":
                raise Unknown
            else:
                self.out.append((ch, False))
                self.i += 1
        return self.out, self.quoted

    def _grow(self, size: int) -> None:
        """Room for ``size`` more characters, charged; Unknown past ``MAX_VALUE``."""
        if len(self.out) + size > MAX_VALUE:
            raise Unknown
        charge_text(size)

    def _put(self, value: str, loose: bool) -> None:
        """``value``'s characters, ``loose`` when an unquoted expansion produced them (zip and
        repeat: no Python frame a character)."""
        self._grow(len(value))
        self.out.extend(zip(value, repeat(loose)))
        if loose and not self.globbing and not _GLOB_CHARS.isdisjoint(value):
            self.globbing = True

    def _literal(self, value: str) -> None:
        self.quoted = True
        self._put(value, False)

    def _closing(self, quote: str, start: int) -> int:
        end = self.text.find(quote, start)
        if end < 0:
            raise Unknown
        return end

    def _ansi_end(self, start: int) -> int:
        i = start
        while i < len(self.text):
            if self.text[i] == "\\":
                i += 2
            elif self.text[i] == "'":
                return i
            else:
                i += 1
        raise Unknown

    def _double(self) -> None:
        self.quoted = True
        text = self.text
        while self.i < len(text):
            ch = text[self.i]
            if ch == '"':
                self.i += 1
                return
            if ch == "\\" and self.i + 1 < len(text) and text[self.i + 1] in _DQ_ESCAPABLE:
                self.out.append((text[self.i + 1], False))
                self.i += 2
            elif ch == "$":
                self._dollar(quoted=True)
            elif ch == "`":
                raise Unknown
            else:
                self.out.append((ch, False))
                self.i += 1
        raise Unknown  # unterminated

    def _dollar(self, *, quoted: bool) -> None:
        rest = self.text[self.i + 1 :]
        element = _SUBSCRIPT.match(rest) if rest[:1] == "{" else None
        if element is not None:
            self.i += 1 + element.end()
            self._element(element.group(1), element.group(2), quoted=quoted)
            return
        braced = _BRACED.match(rest)
        if braced and braced.group(3):
            if braced.group(1):
                raise Unknown
            name, default = braced.group(2), braced.group(4)
            known = self.env.get(name)
            value = _tilde(default, self.env) if known is None or (
                not known and braced.group(3)[0] == ":") else known
            self.i += 1 + braced.end()
        elif braced:
            value = self._lookup(braced.group(2), indirect=bool(braced.group(1)))
            self.i += 1 + braced.end()
        elif rest[:1] == "{" and (operated := operate(
                rest, self._get, quoted=quoted, patterns=SHELL_OPTIONS not in self.env)):
            value = operated[0]  # ${x//a/b}, ${x#p}, ${x^^}, ${x:1:2} … of a known value
            self.i += 1 + operated[1]
        elif (plain := _NAME.match(rest)) is not None:
            value = self._lookup(plain.group(0), indirect=False)
            self.i += 1 + plain.end()
        elif rest[:1] in ("@", "*") and "@[@]" in self.env:  # set -- a b c; "$@"
            self.i += 2
            self._element("@", rest[0], quoted=quoted)
            return
        elif rest[:1] in ("@", "*") or rest[:1].isdigit():
            value = self._get(rest[0])  # a positional parameter set on the line (set -- x)
            self.i += 2
        elif not rest or rest[0] in " \t\n" or (quoted and rest[0] == '"'):
            value, quoted = "$", True  # a lone dollar stands for itself
            self.i += 1
        else:
            raise Unknown  # $( $(( ${x:-…} $1 $@ $# …
        self._put(value, not quoted)

    def _element(self, name: str, index: str, *, quoted: bool) -> None:
        """``${a[N]}`` as a variable; ``"${a[@]}"`` one field an element (a field break
        between them), ``"${a[*]}"`` one field joined by IFS's first character; unquoted,
        each element is split as any expansion is."""
        if index.isdigit():
            value = self._get(f"{name}[{int(index)}]")
            self._put(value, not quoted)
            return
        elements = self._get(f"{name}[@]").split(ARRAY_SEP)
        ifs = self.env.get("IFS", DEFAULT_IFS)
        for number, value in enumerate(elements):
            if number:
                if quoted and index == "*":
                    self.out.extend((c, False) for c in ifs[:1])
                elif quoted or " " in ifs:
                    self.out.append((ARRAY_SEP if quoted else " ", True))
                    self.separated = self.separated or quoted
                else:
                    raise Unknown
            self._put(value, not quoted)

    def _lookup(self, name: str, *, indirect: bool) -> str:
        if indirect:
            name = self._get(name)
            if not _NAME.fullmatch(name):
                raise Unknown
        return self._get(name)

    def _get(self, name: str) -> str:
        if name not in self.env:
            raise Unknown
        return self.env[name]
