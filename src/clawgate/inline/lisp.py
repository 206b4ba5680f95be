"""Lisp code that only computes and prints: ``emacs --eval '(princ emacs-version)'``.

Emacs Lisp reaches files, processes and the network through hundreds of functions; no reader
here follows them all. The reverse is certain: code whose every call is one of a few functions
that compute a value or print it, with nothing quoted, no function passed by name and no
reader macro, does nothing else. Such code is pure; any other code is not read as pure.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern

# A string, a comment, a parenthesis, or an atom (a symbol or a number).
_TOKENS = lazy_pattern(r'"(?:\\.|[^"\\])*"|;[^\n]*|[()]|[^\s()";]+|\S')
# Functions and special forms that compute a value or print it and do nothing else.
PURE = frozenset({
    "princ", "prin1", "print", "message", "format", "terpri", "concat", "string",
    "number-to-string", "string-to-number", "emacs-version", "version", "upcase", "downcase",
    "capitalize", "substring", "string-trim", "length", "car", "cdr", "nth", "list", "cons",
    "+", "-", "*", "/", "%", "1+", "1-", "max", "min", "abs", "=", "<", ">", "<=", ">=",
    "eq", "equal", "string=", "string<", "not", "null", "and", "or", "if", "when", "unless",
    "progn", "featurep", "boundp", "fboundp", "kill-emacs", "format-time-string",
    "current-time-string", "emacs-pid",
})
_MAX = 2000  # characters read; longer code is not called pure


def pure_lisp(code: str) -> bool:
    """Every call in ``code`` is one of ``PURE``, every list a call, with no quote, backquote,
    ``#`` reader syntax or character literal: code that computes and prints, nothing more."""
    if len(code) > _MAX or not code.strip():
        return False
    depth = 0
    head = False  # the next token names the function of a list just opened
    for token in _TOKENS.findall(code):
        if token.startswith(";"):
            continue
        if token[0] in "'`#,?@\\":
            return False  # quoted data or functions passed by name: read as code elsewhere
        if token == "(":
            if head:
                return False  # a list as a function: a lambda or a binding list
            depth, head = depth + 1, True
        elif token == ")":
            if depth == 0 or head:
                return False
            depth -= 1
        elif head:
            if token not in PURE:
                return False
            head = False
    return depth == 0 and not head
