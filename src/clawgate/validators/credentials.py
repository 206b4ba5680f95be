"""Which files hold credentials, and which paths a command names (``-d@file`` included)."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from itertools import chain

from clawgate import fsfacts
from clawgate import programs as catalog
from clawgate.lazyre import lazy_pattern
from clawgate.secretpaths import (
    HOME_KEY_DIRS,
    HOME_PLAINTEXT_SECRETS,
    HOME_SECRETS,
    HOME_WALLET_DIRS,
    HOME_WALLET_EXAMPLES,
    HOME_WALLET_KEYS,
    WORKLOAD_TOKENS,
)
from clawgate.shell.model import GLOB, TILDE, SimpleCommand, Word
from clawgate.validators.base import Context
from clawgate.validators.chdiropts import operand_places
from clawgate.validators.paths import ansi_c_decoded, resolve, under

# A cheap first look: a word without any of these cannot name a credential file.
# Every alternative starts with a literal character (no ``[Ff]``): re then skips, at a glance,
# every position where none of those characters stands (about a quarter off each search).
# Alternatives that start alike are grouped under that start: at a position that can start a
# match, re tries one group instead of every alternative (about half off again).
HINT = lazy_pattern(r"\.(?:ssh|aws|env|docker|key|npmrc|pypirc|gnupg|azure|p12|pfx|jks|claude"
                    r"|codex|gemini|histfile|config/gh)"
                    r"|netrc|k(?:ube|eyrings)|c(?:redentials|hrom|opilot)|id_"
                    r"|p(?:gpass|assword-store)|s(?:hadow|ecret|sh_host)|gcloud|hosts\.yml"
                    r"|vault-token|my\.cnf|auth\.json|oauth|token|history|Keychains"
                    r"|C(?:hrome|ookies)|BraveSoftware|m(?:icrosoft-edge|ozilla)|Firefox|firefox"
                    r"|wallet|keystore|solana|e(?:lectrum|thereum)|Exodus|[Mm]onero|\.sui|near-"
                    r"|foundry|\.aptos|\.b(?:rownie|itcoin)|\.ape/|Local (?:Storage|Extension)"
                    r"|state\.vscdb|kdbx?\b|\.(?:lite|doge)coin")
_HOME_FILES = HOME_SECRETS  # the one list: clawgate.secretpaths
_HOME_KEY_DIRS = frozenset(HOME_KEY_DIRS)  # the whole directory
_ANYWHERE = frozenset({".env", "kubeconfig", ".netrc", ".pgpass", ".git-credentials", "id_rsa",
                       "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
                       "credentials.json", "secrets.json", "secrets.yaml", "secrets.yml",
                       ".vault-token", "shadow", "gshadow"})
# Names that say a file holds passwords or tokens as they are (not a config that may hold one)
_PLAINTEXT_NAMES = frozenset({".netrc", ".pgpass", ".git-credentials", ".vault-token",
                              "credentials.json", "secrets.json", "secrets.yaml", "secrets.yml"})
_SAFE_ENV = frozenset({"example", "sample", "template", "dist", "defaults", "schema"})
_KEY_SUFFIXES = (".key", ".p12", ".pfx", ".jks", ".keystore", ".kubeconfig",
                 # password vaults (KeePass's): every password of their owner, encrypted
                 ".kdbx", ".kdb")
_SYSTEM = lazy_pattern(r"^/etc/(g?shadow-?|ssh/ssh_host_\w+_key|sudoers)$")


def credential_names(pattern: str) -> list[str]:
    """The names of credential files, wherever they are, that the glob ``pattern`` (one path
    component, as ``find -name`` reads it) matches: itself when it is one, else examples
    (``.env*``: ``.env``; ``*.key``: ``x.key``)."""
    from fnmatch import fnmatchcase

    names = [pattern, *sorted(_ANYWHERE - {"shadow", "gshadow"}),
             *(f"x{suffix}" for suffix in _KEY_SUFFIXES)]
    return [n for n in dict.fromkeys(names) if fnmatchcase(n, pattern)]


def wallets_named(start: str, pattern: str, ctx: Context) -> list[str]:
    """The wallet keys below ``start`` (one of the home directory's wallets, by its usual
    file names) whose name the glob ``pattern`` matches, as ``find -name`` matches it:
    ``find ~ -name 'UTC--*'`` finds ``~/.ethereum/keystore/UTC--…``."""
    from fnmatch import fnmatchcase

    base = start.rstrip("/") or "/"
    found = []
    for rel in HOME_WALLET_EXAMPLES:
        path = f"{ctx.home}/{rel}"
        if (path.startswith(base + "/") or base == "/") and fnmatchcase(
                posixpath.basename(rel), pattern):
            found.append(path)
    return found


def credential_paths(start: str, pattern: str) -> list[str]:
    """The credential files below ``start`` (``~``'s stores and keys, a credential name one
    level down) that the glob ``pattern`` matches as ``find -path`` matches a whole path
    (``*`` crosses ``/``): ``find ~ -path '*/.ssh/*'`` finds ``~/.ssh/id_rsa``."""
    from fnmatch import fnmatchcase

    base = start.rstrip("/")
    places = [*HOME_SECRETS, ".ssh/id_rsa", ".ssh/id_ed25519", *(f"x/{n}" for n in _ANYWHERE)]
    return [f"{base}/{rel}" for rel in places if fnmatchcase(f"{base}/{rel}", pattern)]


def is_credential(path: str, ctx: Context) -> bool:
    """A file (or directory) that holds keys, tokens or passwords."""
    if _SYSTEM.match(path) or workload_token(path):
        return True
    base = posixpath.basename(path)
    if base in _ANYWHERE or base.endswith(_KEY_SUFFIXES):
        return base not in ("shadow", "gshadow") or path.startswith("/etc/")
    if base.startswith(".env.") and base[5:].split(".")[0] not in _SAFE_ENV:
        return True
    rel = home_relative(path, ctx)
    if rel is not None:
        if _ssh_private_key(rel):
            return True
        if rel in _HOME_KEY_DIRS or wallet_key(rel):
            return True
        return any(rel == name or rel.startswith(name + "/") for name in _HOME_FILES)
    return False


def wallet_key(rel: str) -> bool:
    """``rel`` (from the home directory) is a crypto wallet's key or seed, or a chat client's
    token store, or lies inside one (``HOME_WALLET_KEYS``)."""
    from fnmatch import fnmatchcase

    return any(fnmatchcase(rel, p) or fnmatchcase(rel, p + "/*") for p in HOME_WALLET_KEYS)


def workload_token(path: str) -> bool:
    """A pod's workload-identity token, a container's secret (``/run/secrets/NAME``), or the
    directory they are mounted in (not the pod's namespace or the cluster's CA certificate
    beside them)."""
    return any(under(path, store) for store in WORKLOAD_TOKENS) and (
        posixpath.basename(path) not in ("namespace", "ca.crt"))


_OTHER_HOME = lazy_pattern(r"^(?:/home/[^/]+|/root|/Users/[^/]+)/(?=.)")


def home_relative(path: str, ctx: Context) -> str | None:
    """``path`` from the home directory it lies in: this user's, or another account's
    (``/home/dev/.aws/credentials`` holds dev's keys whoever reads it); None outside any."""
    if under(path, ctx.home) and path != ctx.home:
        return path[len(ctx.home) + 1 :]
    found = _OTHER_HOME.match(path)
    return path[found.end():] if found is not None else None


# Private key material and password hashes: the user's SSH keys, GnuPG's secret keys, the
# host's keys and shadow files. Tools use them (``ssh -i``, ``ssh-add``); nothing needs them shown.
_HOME_KEY_MATERIAL = (".gnupg/private-keys-v1.d/", ".gnupg/secring.gpg")


def is_key_material(path: str, ctx: Context) -> bool:
    """A private key of this machine's user or host, or its password hashes (not a key file
    of the workspace, which tests and fixtures keep)."""
    if _SYSTEM.match(path):
        return not path.endswith("sudoers")
    rel = home_relative(path, ctx)
    if rel is None:
        return False
    if _ssh_private_key(rel) and rel != ".ssh/id_" and "/" not in rel[5:]:  # id_$K: a .pub?
        return True
    if wallet_key(rel):
        return True
    return rel == _HOME_KEY_MATERIAL[1] or rel.startswith(_HOME_KEY_MATERIAL[0])


_KEY_DIRECTORIES = frozenset({".ssh", ".gnupg", ".gnupg/private-keys-v1.d"})
_WALLET_DIRS = frozenset(HOME_WALLET_DIRS)
_SSH_KEY_NAMES = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk")


def holds_key_material(path: str, ctx: Context) -> bool:
    """A directory whose files, read one by one, include private keys (``~/.ssh``,
    ``~/.gnupg``, a wallet's: ``~/.electrum``, ``~/.config/solana``), or a key itself."""
    rel = home_relative(path.rstrip("/"), ctx)
    return (rel in _KEY_DIRECTORIES or rel in _WALLET_DIRS or is_key_material(path, ctx)
            or (rel is not None and any(k.startswith(rel + "/") and "*" not in k[:len(rel)]
                                        for k in HOME_WALLET_KEYS)))


def is_secret_text(path: str, ctx: Context) -> bool:
    """A file whose text, once shown, gives the credential away: private key material, or a
    store that keeps a password or token in plain text
    (``~/.git-credentials``, ``~/.netrc``, ``~/.aws/credentials``, an agent's login, a
    ``secrets.json`` or ``credentials.json`` in a program's settings directory), of this
    user's home or another account's (``/home/dev/.aws/credentials`` holds dev's keys whoever
    reads it, as with private keys). Files of the workspace are left out: projects keep
    templates and test fixtures under those names."""
    if is_key_material(path, ctx) or workload_token(path):
        return True
    rel = None if under(path, ctx.workspace) else home_relative(path, ctx)
    if rel is None:
        return False
    if rel in HOME_PLAINTEXT_SECRETS:
        return True  # programs' settings live in dot-directories; projects elsewhere
    return rel.startswith(".") and posixpath.basename(rel) in _PLAINTEXT_NAMES


def _ssh_private_key(rel: str) -> bool:
    """``rel`` (from the home directory) names one of the user's SSH keys, not its ``.pub``."""
    return rel.startswith(".ssh/id_") and not rel.endswith(".pub")


def named_paths(cmd: SimpleCommand, skip_values_of: frozenset[str] = frozenset()
                ) -> Iterator[Word]:
    """Words of a command that may name a file: operands, ``@file`` and ``--opt=file`` values,
    input redirections, and the files a script reads inside its program text (sed's ``r`` and
    ``R``, awk's ``getline < FILE``: first, as they are what the word means).
    ``skip_values_of``: options whose next word is not read as data (``ssh -i key`` uses the
    key, it does not send it)."""
    yield from (e.word for e in catalog.effects(cmd) if e.kind == "read" and
                e.option == "(script)" and e.word is not None and e.word.value is not None and
                HINT.search(e.word.value))
    words = cmd.words[1:]
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
            continue
        text = word.shown
        if text in skip_values_of:
            skip_next = True
            continue
        if text.startswith("-") and text.split("=", 1)[0] in skip_values_of:
            continue
        if hinted(word):
            yield _path_part(word)
    for redirect in cmd.redirects:
        target = redirect.target
        if target is not None and not redirect.writes and hinted(target):
            yield target


def hinted(word: Word) -> bool:
    """``word`` may name a credential file: the hint is in it as written, as bash reads it
    (``~/.net"rc"``, ``"$HOME"/.ne'trc'``), or it holds a glob, whose matches are known only
    on disk (``~/.netr?``)."""
    shown = word.shown  # the value when known (then already unquoted), else the text
    if GLOB in word.expansions or HINT.search(shown) is not None:
        return True
    # quote characters or escapes (three substring tests cost less than a search)
    quoted = "'" in shown or '"' in shown or "\\" in shown
    if quoted and "$'" in shown:  # ~/$'\x2e'ssh: the escapes decoded, as bash reads them
        shown = ansi_c_decoded(shown)
    return quoted and HINT.search(_QUOTING.sub("", shown)) is not None


_QUOTING = lazy_pattern(r"""['"\\]""")  # quote characters and escapes


_KEY_VALUE = lazy_pattern(r"^[A-Za-z_][\w.-]*=")  # dd if=FILE, a key=value operand
_LOCAL_URI = lazy_pattern(r"^(?:file://|[a-z]+:(?=/[^/]))")  # file:///x, man:/x: a local path


def _path_part(word: Word) -> Word:
    text = word.shown
    if "@" in text:
        text = text.rsplit("@", 1)[1]
    elif "=<" in text:  # curl -F 'name=<FILE': the field is FILE's text
        text = text.split("=<", 1)[1]
    elif "=" in text and (text.startswith("-") or _KEY_VALUE.match(text)):
        text = text.split("=", 1)[1]
    elif not _LOCAL_URI.match(text):
        return word
    uri = _LOCAL_URI.match(text)
    if uri is not None:
        text = text[uri.end():]
    kinds = frozenset({TILDE}) if text.startswith("~") else frozenset()
    return Word(text, text if word.value is not None else None, word.quoted, kinds)


def credential_in(cmd: SimpleCommand, ctx: Context,
                  skip_values_of: frozenset[str] = frozenset(),
                  skip: frozenset[int] = frozenset()) -> str | None:
    """The first credential file a command names, or None. ``skip``: ids of words not to
    count (the files a command writes). A word after ``tar -C DIR`` is resolved from DIR."""
    places = operand_places(cmd, ctx)
    words: Iterator[Word] = named_paths(cmd, skip_values_of)
    if ctx.cwd != ctx.workspace and is_credential(ctx.cwd, ctx):
        # cd ~/.ssh && tar -c . : from inside a key directory every operand may name one
        words = chain(words, (w for w in cmd.words[1:] if not w.shown.startswith("-")))
    for word in words:
        if id(word) in skip:
            continue
        found = resolve(word, places.get(id(word), ctx))
        # ~/.ssh/$K: whatever K is, the file lies in the key directory (read with K unset)
        path = found.path if found.path is not None else found.if_unset
        if path is not None and found.pattern is not None:
            path = _globbed_credential(path, found.pattern, ctx) or path
        if path is not None and is_credential(path, ctx):
            return path
        if path is None or found.path is None or (GLOB in word.expansions and (
                found.pattern is None)):  # a glob in the last part: _globbed_credential
            named = may_name(word, ctx)  # ~/.ssh/$(ls ~/.ssh | head -1), ~/.config/*/hosts.yml
            if named is not None:
                return named
    return None


# What bash expands at run time inside a word: a substitution, a braced or plain parameter.
_UNKNOWN_PART = lazy_pattern(r"\$\((?:[^()]|\([^()]*\))*\)|`[^`]*`|\$\{[^}]*\}|\$\w+|\$[@*#?$!-]")


def may_name(word: Word, ctx: Context) -> str | None:
    """A credential store or key directory a path with parts known only at run time may name:
    each such part stands for any text (``/`` included), so ``~/.config/$APP/hosts.yml`` may
    be ``~/.config/gh/hosts.yml`` and ``~/.ssh/$(ls ~/.ssh | head -1)`` is in the key
    directory; a glob the shell expands stands for what it matches (``~/.config/*/hosts.yml``).
    None when the path starts with the unknown part (nothing anchors it)."""
    from fnmatch import fnmatchcase

    text = ansi_c_decoded(word.text).replace('"', "").replace("'", "")
    if text.startswith("~/"):
        text = ctx.home + text[1:]
    text = text.replace("${HOME}", ctx.home).replace("$HOME", ctx.home)
    globbed = GLOB in word.expansions
    pattern = _UNKNOWN_PART.sub("\0", text)
    if pattern.startswith("\0") or ("\0" not in pattern and not globbed):
        return None
    if not globbed:
        pattern = pattern.replace("[", "[[]").replace("*", "[*]").replace("?", "[?]")
    if not pattern.startswith("/"):
        pattern = posixpath.join(ctx.cwd, pattern)
    marks = ("\0",) if not globbed else ("\0", "*", "?", "[")
    cut = min(pattern.find(c) for c in marks if c in pattern)
    folder = pattern[:cut].rpartition("/")[0]
    folder = posixpath.normpath(folder) if folder else "/"
    if folder != ctx.home and is_credential(folder, ctx):
        return folder  # whatever the rest is, it lies in a store or a key directory
    glob = pattern.replace("\0", "*")
    for rel in (*HOME_SECRETS, *HOME_KEY_DIRS, ".ssh/id_rsa", ".ssh/id_ed25519"):
        store = f"{ctx.home}/{rel}"
        if fnmatchcase(store, glob) or fnmatchcase(store, glob + "/*"):
            return store
    return None


_MAX_LISTED = 4096  # entries of a directory looked at for a glob's matches
# A name of each shape is_credential knows outside a home's own stores (dot files aside): a
# glob matching none of them matches no credential file, whatever the directory holds.
_SHAPES = (*_ANYWHERE, *(f"x{suffix}" for suffix in _KEY_SUFFIXES))


def _globbed_credential(directory: str, pattern: str, ctx: Context) -> str | None:
    """A credential file the glob ``directory/pattern`` (its last component) may match, as
    bash expands it (no dot files unless the pattern starts with a dot): among the entries
    there now and, in a home, the names of its credential stores (``~/.netr?`` matches
    ``~/.netrc`` whether or not it is there when the line is judged)."""
    from fnmatch import fnmatchcase

    names = set(_home_names(directory, ctx))
    hidden = pattern.startswith(".")
    if hidden or any(fnmatchcase(n, pattern) for n in _SHAPES):  # else no entry could be one
        try:
            fsfacts.listing(directory)
            with os.scandir(directory) as entries:
                for count, entry in enumerate(entries):
                    if count >= _MAX_LISTED:
                        break
                    names.add(entry.name)
        except OSError:
            pass
    found = None
    for name in sorted(names):
        if fnmatchcase(name, pattern) and (hidden or not name.startswith(".")):
            path = f"{directory.rstrip('/')}/{name}"
            if is_secret_text(path, ctx):
                return path  # the strictest reading: ``~/.*`` takes ~/.netrc with it
            if found is None and is_credential(path, ctx):
                found = path
    return found


def _home_names(directory: str, ctx: Context) -> Iterator[str]:
    """The names of the home's credential stores found directly in ``directory``."""
    rel = home_relative(f"{directory.rstrip('/')}/x", ctx)
    if rel is None:
        return
    inside = rel[:-1]  # "" in the home itself, ".aws/" in ~/.aws
    for name in (*_HOME_FILES, *_HOME_KEY_DIRS, *_PLAINTEXT_NAMES):
        if name.startswith(inside) and len(name) > len(inside):
            yield name[len(inside):].split("/", 1)[0]
    if inside == ".ssh/":  # the names ssh-keygen gives private keys
        yield from _SSH_KEY_NAMES
