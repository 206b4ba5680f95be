"""Recursive readers over a tree that holds credential stores: a search (``grep -r``, ``rg``,
``ag``), an archive (``tar c``, ``zip -r``, ``7z a``), a copy (``cp -r``, ``rsync -a``) or a
comparison (``diff -r``) of a directory reads every file below it, so a directory above a
store reads the store: ``grep -r token ~/.config`` prints ``~/.config/gh/hosts.yml``'s token
as surely as ``cat`` would, and ``tar czf x.tgz ~`` packs every key of the home directory.

How each program reads its words is data (``treeread_specs.py``); which directories hold
stores is ``clawgate.secretpaths``' one list, for this user's home, other accounts' homes,
the system's password files and a pod's tokens.
"""

from __future__ import annotations

import posixpath

from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.secretpaths import SYSTEM_SECRETS, home_secret_stores
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.chdiropts import operand_places
from clawgate.validators.credentials import home_relative, is_credential
from clawgate.validators.paths import resolve, under
from clawgate.validators.treeread_specs import SPECS, Reading, read_words

# A home directory itself: this machine's accounts keep their stores right below it.
_HOME_ROOT = lazy_pattern(r"^(?:/home/[^/]+|/root|/Users/[^/]+|/var/root)$")
_HOMES_PARENTS = frozenset({"/", "/home", "/Users", "/var"})


def stores_below(directory: str, ctx: Context) -> list[str]:
    """The credential stores a recursive read of ``directory`` reaches, each as its path from
    ``directory`` (``gh/hosts.yml`` from ``~/.config``; ``.`` when the directory lies in a
    store); empty when none does."""
    folder = directory.rstrip("/") or "/"
    if is_credential(folder, ctx):
        return ["."]
    found = [p[len(folder):].lstrip("/") for p in SYSTEM_SECRETS if under(p, folder)]
    stores = home_secret_stores()
    if folder in _HOMES_PARENTS or folder == ctx.home or _HOME_ROOT.match(folder) or (
            under(ctx.home, folder)):
        return [*found, *stores]  # a home below it: every store of that home
    rel = home_relative(folder, ctx)
    if rel is not None:
        found += [s[len(rel) + 1:] for s in stores if s.startswith(rel + "/")]
    return found


def _configured(cmd: SimpleCommand) -> bool:
    """The search is given a configuration file on the line (``RIPGREP_CONFIG_PATH=rc rg``),
    whose options may include ``--hidden``: what it passes over is not known."""
    return any(a.name == "RIPGREP_CONFIG_PATH" for a in cmd.assignments)


def _visible(tails: list[str]) -> list[str]:
    """The stores a search that passes over hidden entries and binary files still reaches:
    one it was pointed into. The stores outside dot-directories (browser profiles, cookie
    jars, keychains) are binary databases, or keep their secrets in a dot-directory inside
    (``snap/firefox/common/.mozilla``)."""
    return [t for t in tails if t == "."]


@register
class TreeRead(Validator):
    """A recursive reader given a directory that holds credential stores: ``grep -r``,
    ``rg``, ``ag``, ``ack``, ``diff -r`` print what they find below it, ``tar c``, ``zip -r``,
    ``7z a``, ``cp -r`` and ``rsync -a`` copy every file below it elsewhere; both are DENY
    (keys and tokens land in the transcript or in a file that can leave). A search that
    shows only names or counts (``grep -rl``) is ASK; a listing of names (``rg --files``) is
    none of this rule's business. A search that passes over hidden entries and binary files
    (``rg``, ``ag`` without ``--hidden`` or ``-uu``) reaches a store only when pointed into
    it.

    Bad: ``grep -rn password ~/.config``, ``tar czf k.tgz ~/.ssh``. Harmless: ``grep -r TODO
    src``, ``rg -n foo .``, ``tar czf src.tgz src``.
    """

    id = "CG-SEC-013"
    programs = frozenset(SPECS)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        spec = SPECS.get(cmd.program or "")
        if spec is None:
            return NO_OPINION
        reading = read_words(cmd, spec)
        if reading is None:
            return NO_OPINION
        places = operand_places(cmd, ctx)
        for word in reading.sources or ((Word(".", "."),) if spec.searches else ()):
            found = resolve(word, places.get(id(word), ctx))
            path = found.path if found.path is not None else found.if_unset
            if path is None:
                continue
            tails = stores_below(posixpath.normpath(path), ctx)
            if found.path is None and tails != ["."]:
                continue  # "$DIR/." read with DIR unset is /: only a store's own part counts
            if spec.hides and not reading.hidden and not _configured(cmd):
                tails = _visible(tails)
            if tails:
                return self._verdict(cmd.program or "", path, tails[0], reading)
        return NO_OPINION

    def _verdict(self, program: str, path: str, tail: str, reading: Reading) -> Verdict:
        store = path if tail == "." else posixpath.join(path, tail)
        if reading.names_only:
            return Verdict.of(Outcome.ASK, self.id, f"{program} searches every file below "
                              f"{path}, credential stores included ({store})",
                              hint="search the project, or name the files you need",
                              risk=Risk.HIGH)
        what = "copies" if reading.copies else "prints what it finds in"
        return Verdict.deny(self.id, f"{program} reads every file below {path} and {what} "
                            f"them, credential stores included ({store}): keys and tokens "
                            "leave with them", hint="limit it to the project's folders, or "
                            "exclude the stores and ask the user")
