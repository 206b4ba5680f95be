"""How bad is a command handed to a program through an option or a setting?

One rule for every channel by which an ordinary program is told to start another one (the
catalog's ``run`` options: ``sort --compress-program``, ``man -P``, ``rg --pre``, ``tar
--checkpoint-action``, ``zip -TT``; settings: ``git -c core.pager``, ``ssh -oProxyCommand``,
``hg --config alias.x=!…``; git's ``--upload-pack``; values piped into a command,
``psql -o '|…'``):

- DENY when the payload is not a literal (known only when the line runs), is shell code
  (``;``, ``|``, ``$(…)``, ```…```, ``&``), writes a literal path (``id>/tmp/foo``), names
  a shell, an interpreter or a wrapper (``sh``, ``python``, ``env``, ``xargs``), is a file
  run from a path outside the system's program directories (``./payload``, ``/tmp/x``), or
  does something of its own — a program given operands that the catalog says writes,
  deletes or reaches the network with them and is not one of the helpers such options exist
  for (``touch /tmp/foo``, ``curl -o x URL``).
  What it runs is also checked as a command, recursively (a DENY there stays a DENY).
- ASK when it is a literal, harmless-looking program: a known helper (a compressor, a pager,
  an editor, ``ssh``, a proxy transport) with any plain arguments, a program given only flags
  and placeholders, or one the catalog does not know to change anything (``rsync -e ssh``,
  ``git -c core.pager=less``, ``man -P 'less -R'``, ``go test -exec 'dockexec bash:5.2'``).

The strict reading is for options the catalog declares, settings whose key names a command,
and git's program options; an option only guessed to take a command from its name
(``--filter``, ``--shell``) keeps ASK (``escapes.py``).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from clawgate import programs
from clawgate.decision import Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.validators.programs import HARMLESS_HELPERS, SHELLS, family_name
from clawgate.validators.wraptable import PLAIN, PRIVILEGED

# Separators, pipes, substitutions: the payload is a script. A redirection alone is judged by
# its target: the file the program names (``gzip > $FILE.gz`` of ``split --filter``) or a
# literal path written (``id>/tmp/foo``).
_SHELL_CODE = lazy_pattern(r"[;&|`\n]|\$[({]|<\(|>\(")
_REDIRECT = lazy_pattern(r"(\d*>>?|&>|<)\s*([^\s;&|<>]*)")
SYSTEM_DIRS = ("/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/local/bin/",
                "/usr/local/sbin/", "/opt/homebrew/bin/")
# Interpreters: their argument is a program in their language.
_INTERPRETERS = frozenset("""
python pypy perl ruby php lua luajit node nodejs bun deno tclsh wish expect awk gawk mawk nawk
busybox osascript Rscript R julia guile racket sbcl clisp irb jshell groovy scala kotlin swift
java jrunscript erl elixir iex ghci runghc gdb lldb vim vi nvim emacs ed ex
""".split())
# Helpers that options exist to name besides compressors, pagers and editors: transports a
# proxy or remote-shell option runs (``-oProxyCommand='nc -X 5 -x proxy:1080 %h %p'``).
_TRANSPORTS = frozenset("nc ncat netcat socat connect-proxy corkscrew proxytunnel rsh".split())
_PLACEHOLDER = lazy_pattern(r"^(?:-.*|\d+|%\w|\{\}|[\w.:@\[\]-]*%[\w%]+[\w.:@\[\]%-]*)$")


def payload_verdict(values: Sequence[str | None], rule_id: str, message: str) -> Verdict:
    """The verdict on ``message`` (``"sort --compress-program runs a command"``) when the
    commands it hands over are ``values`` (None: known only when the line runs). Each payload
    text is also checked as a command of its own."""
    if any(value is None for value in values):
        return Verdict.deny(rule_id, f"{message} known only when the line runs",
                            hint="name the helper program literally")
    texts = tuple(command_text(v) for v in values if v is not None)
    danger = next((d for d in map(payload_danger, texts) if d is not None), None)
    nested = tuple(t for t in texts if t)
    if danger is None:
        return Verdict.unwrap(*nested, outcome=Outcome.ASK, rule_id=rule_id, message=message)
    return Verdict.unwrap(*nested, outcome=Outcome.DENY, rule_id=rule_id,
                          message=f"{message}: {danger}")


def command_text(value: str) -> str:
    """``exec=/bin/sh`` -> ``/bin/sh``; ``!cmd`` -> ``cmd``; ``'|cmd'`` -> ``cmd``."""
    value = value.strip().lstrip("!|").strip()
    head, eq, rest = value.partition("=")
    return rest.strip().strip("\"'") if eq and head.isidentifier() else value


def payload_danger(text: str) -> str | None:
    """Why the payload ``text`` is an escape rather than a helper; None for a literal,
    harmless-looking program."""
    if not text.strip():
        return None
    if _SHELL_CODE.search(text):
        return "the payload is shell code"
    for found in _REDIRECT.finditer(text):
        if found.group(1) != "<" and not found.group(2).startswith("$"):
            return f"the payload writes {found.group(2)}"
    text = _REDIRECT.sub(" ", text)
    try:
        words = shlex.split(text)
    except ValueError:
        return "the payload cannot be read as words"
    if not words:
        return None
    first = words[0]
    if "/" in first and not first.startswith(SYSTEM_DIRS):
        return f"the payload runs the file {first}"
    name = family_name(first.rsplit("/", 1)[-1]) or ""
    if name in SHELLS:
        return f"the payload is the shell {name}"
    if name in _INTERPRETERS:
        return f"the payload is the interpreter {name}"
    if name in PLAIN or name in PRIVILEGED or name in ("xargs", "find", "eval", "exec"):
        return f"the payload hands on to {name}"
    if name in HARMLESS_HELPERS or name in _TRANSPORTS:
        return None
    acting = [w for w in words[1:] if not _PLACEHOLDER.match(w)]
    if acting and _changes_things(name):
        return f"the payload {name} acts on {acting[0]!r} itself"
    return None


def _changes_things(name: str) -> bool:
    """Whether the catalog says ``name`` writes or deletes its operands, or reaches beyond
    the workspace (``touch``, ``rm``, ``cp``, ``curl``): no helper an option names."""
    spec = programs.entry(name)
    if spec is None:
        return False
    if spec.get("operands") in programs.WRITE_KINDS or spec.get("tier") in ("high", "network"):
        return True
    return "deletes" in spec.get("options", {}).values()
