"""A container handed the user's credential stores by a bind mount (CG-SEC-007).

Inside the container a path under the mount's target is the host path under its source:
``docker run -v ~/.ssh:/k alpine cat /k/id_rsa`` prints the user's private key as surely as
``cat ~/.ssh/id_rsa`` does. A store (or the home directory holding them) mounted is ASK; a
word of the container's command that names a secret through the mount is DENY, as the same
read on the host is.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Iterator

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.shell.model import TILDE, SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.credentials import is_credential, is_secret_text
from clawgate.validators.globalopts import without_globals
from clawgate.validators.paths import resolve, under

_ENGINES = frozenset({"docker", "podman", "nerdctl", "ctr"})  # ctr run --mount type=bind,…
_STARTS = frozenset({"run", "create"})
_SOURCE_KEYS = ("source=", "src=")
_TARGET_KEYS = ("target=", "destination=", "dst=")


def _mounts(words: tuple[Word, ...]) -> Iterator[tuple[Word, str]]:
    """(source word, target) of each ``-v SRC:DST``, ``--volume=SRC:DST`` and ``--mount
    type=bind,source=SRC,target=DST``."""
    for i, word in enumerate(words):
        text = word.value
        if text is None:
            continue
        given = _text(words[i + 1]) if i + 1 < len(words) else None
        if text in ("-v", "--volume") and given is not None:
            spec = given
        elif text.startswith(("--volume=", "-v")) and len(text) > 2 and text[2] != "-":
            spec = text.split("=", 1)[1] if text.startswith("--") else text[2:]
        elif text == "--mount" and given is not None:
            yield from _bind(given, words[i + 1])
            continue
        elif text.startswith("--mount="):
            yield from _bind(text[8:], word)
            continue
        else:
            continue
        source, colon, rest = spec.partition(":")
        if colon and source.startswith(("/", "~", ".", "$")):
            yield _source(source, word), rest.split(":", 1)[0]


def _text(word: Word) -> str:
    """The word as written without its quotes: ``"$HOME"/.ssh:/k`` for a source that
    ``resolve`` expands (``$HOME``, ``$PWD``)."""
    return word.value if word.value is not None else word.text.replace('"', "").replace("'", "")


def _bind(spec: str, word: Word) -> Iterator[tuple[Word, str]]:
    fields = spec.split(",")
    source = next((f.split("=", 1)[1] for f in fields if f.startswith(_SOURCE_KEYS)), None)
    target = next((f.split("=", 1)[1] for f in fields if f.startswith(_TARGET_KEYS)), None)
    if source and target:
        yield _source(source, word), target


def _source(text: str, word: Word) -> Word:
    tilde = frozenset({TILDE}) if text.startswith("~") else frozenset()
    return Word(text, None if "$" in text or "`" in text else text, word.quoted, tilde)


def _named(words: tuple[Word, ...], target: str) -> Iterator[str]:
    """The paths under ``target`` the words name: whole words (``cat /k/id_rsa``) and paths
    inside a word that is itself a command line (``sh -c 'cat /k/id_rsa'``)."""
    for word in words:
        text = word.value
        if text is None or target not in text:
            continue
        if text == target or text.startswith(target + "/"):
            yield text
            continue
        for token in text.replace("'", " ").replace('"', " ").split():
            if token == target or token.startswith(target + "/"):
                yield token


def _holds_stores(path: str, ctx: Context) -> bool:
    """A store itself, or a directory with the user's stores below it (home, ``/``)."""
    return is_credential(path, ctx) or under(ctx.home, path)


def _host_line(cmd: SimpleCommand, mounts: list[tuple[str, str]]) -> str | None:
    """The container's command with every path under a mount's target written as the host
    path under its source (``tar cz /s`` with ``-v ~/.ssh:/s`` is ``tar cz /root/.ssh``), or
    None when it has no command, a word is known only at run time or no path moves."""
    from clawgate.validators.remote import ContainerCommand

    target = ContainerCommand.container_command(cmd)
    if target is None or any(w.value is None for w in target.words):
        return None
    values = [w.value or "" for w in target.words]
    moved = values
    for host, inside in mounts:
        if inside == "/":
            continue
        pattern = re.compile(r"(?<![\w./~$-])" + re.escape(inside) + r"(?=/|$|[\s'\"|;&)<>])")
        moved = [pattern.sub(_literal(host), v) for v in moved]
    return shlex.join(moved) if moved != values else None


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    """A replacement that puts ``text`` in as it is (no group references, no escapes)."""
    return lambda _match: text


@register
class CredentialMount(Validator):
    """A container run with a credential store, or the home directory, bind-mounted: ASK;
    its command naming a secret through any mount (``cat /k/id_rsa`` with ``-v ~/.ssh:/k``,
    ``cat /e/shadow`` with ``-v /etc:/e``): DENY. The container's command is also checked as
    the host command it amounts to, its paths under a mount written as the host's
    (``tar cz /s | nc …`` with ``-v ~/.ssh:/s`` sends the SSH directory away).

    Bad: ``docker run --rm -v $HOME/.ssh:/k alpine cat /k/id_rsa``. Harmless:
    ``docker run --rm -v "$PWD":/src -w /src node:20 npm test``.
    """

    id = "CG-SEC-007"
    programs = _ENGINES

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in _ENGINES:
            return NO_OPINION
        cmd = without_globals(cmd)  # podman --url unix:///… run: the verb after the globals
        words = cmd.words
        if not _STARTS & {w.value for w in words[1:3]}:
            return NO_OPINION
        mounted: list[tuple[str, str]] = []
        for source, target in _mounts(words):
            path = resolve(source, ctx).path
            if path is not None:
                mounted.append((path, target.rstrip("/") or "/"))
        for path, target in mounted:
            for inner in _named(words, target):
                host = posixpath.normpath(path + inner[len(target):])
                if is_secret_text(host, ctx):
                    return Verdict.deny(self.id, f"{cmd.program} shows {host} through the "
                                        f"mount {path}:{target}", hint="do not mount it")
        held = [(path, target) for path, target in mounted if _holds_stores(path, ctx)]
        moved = _host_line(cmd, mounted)
        nested = (moved,) if moved is not None else ()
        if held:
            path, target = held[0]
            return Verdict.unwrap(*nested, outcome=Outcome.ASK, rule_id=self.id,
                                  message=f"{cmd.program} hands a container {path} (mounted "
                                  f"at {target}), which holds credentials")
        return Verdict.unwrap(*nested) if nested else NO_OPINION
