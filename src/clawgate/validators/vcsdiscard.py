"""Version-control commands other than git's that throw uncommitted work away (CG-DEST-014).

Mercurial, Subversion, Jujutsu and Fossil each have their ``reset --hard`` and ``clean -f``:
a revert of everything, an update that cleans, a purge of the files they do not track, a
change abandoned. What is lost was never committed, so nothing brings it back: ASK, as git's
(CG-DEST-002). In a checkout that is the home directory or a system one (``hg --cwd ~ purge``,
``cd ~ && svn revert -R .``) those files are no project's: DENY.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.paths import resolve
from clawgate.validators.systempaths import is_vital

# Each program's global options that take a value (the subcommand comes after them), and
# those among them that move where it works.
_GLOBALS: dict[str, frozenset[str]] = {
    "hg": frozenset({"-R", "--repository", "--cwd", "--config", "--encoding", "--color",
                     "--pager", "--time"}),
    "svn": frozenset({"--username", "--password", "--config-dir", "--config-option"}),
    "jj": frozenset({"-R", "--repository", "--at-operation", "--at-op", "--color",
                     "--config", "--config-toml", "--config-file"}),
    "fossil": frozenset({"-R", "--repository", "--chdir"}),
}
_MOVES = frozenset({"-R", "--repository", "--cwd", "--chdir"})


def _split(cmd: SimpleCommand) -> tuple[str | None, list[str], Word | None]:
    """(subcommand, its argument values, the word naming where it works)."""
    takes = _GLOBALS.get(cmd.program or "", frozenset())
    words = cmd.words[1:]
    place: Word | None = None
    index = 0
    while index < len(words):
        text = words[index].shown
        name, eq, _ = text.partition("=")
        if not text.startswith("-"):
            return text, [w.shown for w in words[index + 1:]], place
        if name in takes and not eq and index + 1 < len(words):
            if name in _MOVES:
                place = words[index + 1]
            index += 2
            continue
        if name in _MOVES and eq:
            value = text.split("=", 1)[1]
            place = Word(value, value)
        index += 1
    return None, [], place


def _discards(program: str, verb: str, args: list[str]) -> str | None:
    flags = set(args)
    everything = bool(flags & {"-a", "--all", "."}) or not [a for a in args
                                                            if not a.startswith("-")]
    if program == "hg":
        if verb == "revert" and (flags & {"-a", "--all", "-C", "--no-backup"}):
            return "revert --all discards every uncommitted change"
        if verb in ("update", "up", "checkout", "co") and flags & {"-C", "--clean"}:
            return "update --clean discards uncommitted changes"
        if verb in ("purge", "clean") and not flags & {"-p", "--print", "-n"}:
            return "purge deletes the files Mercurial does not track"
        if verb == "strip":
            return "strip deletes changesets"
    if program == "svn":
        if verb == "revert" and (flags & {"-R", "--recursive"} or "." in flags
                                 or "--depth=infinity" in flags):
            return "revert -R discards every uncommitted change"
        if verb == "cleanup" and flags & {"--remove-unversioned", "--remove-ignored"}:
            return "cleanup --remove-unversioned deletes the files Subversion does not track"
    if program == "jj":
        if verb == "abandon":
            return "abandon drops a change and what it holds"
        if verb == "restore" and (everything or flags & {"--from", "--to"}
                                  or any(a.startswith("--from") for a in args)):
            return "restore puts another revision's files over the working copy's changes"
    if program == "fossil":
        if verb == "revert" and everything:
            return "revert discards every uncommitted change"
        if verb in ("clean", "purge") and not flags & {"-n", "--dry-run"}:
            return f"{verb} deletes the files Fossil does not track"
    return None


@register
class OtherVcsDiscardsWork(Validator):
    """Mercurial, Subversion, Jujutsu and Fossil throwing uncommitted work away: ``hg revert
    --all``/``--no-backup``, ``hg update --clean``, ``hg purge``, ``hg strip``, ``svn revert
    -R``, ``svn cleanup --remove-unversioned``, ``jj abandon``, ``jj restore``, ``fossil
    revert``, ``fossil clean`` (ASK; in a checkout at home or in a system directory: DENY).

    Bad: ``hg revert --all --no-backup``, ``hg --cwd ~ purge --all``. Harmless: ``hg
    update default``, ``svn update``, ``jj new``, ``hg purge --print``.
    """

    id = "CG-DEST-014"
    programs = frozenset(_GLOBALS)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program or ""
        verb, args, place = _split(cmd)
        if verb is None:
            return NO_OPINION
        what = _discards(program, verb, args)
        if what is None:
            return NO_OPINION
        where = ctx.cwd if place is None else resolve(place, ctx).path
        if where is not None and is_vital(where, ctx):
            return Verdict.deny(self.id, f"{program} {what} in a checkout at {where}: the home "
                                "directory or a system one, whose files are lost for good",
                                hint="work in a checkout inside the workspace")
        return Verdict.ask(self.id, f"{program} {what}: work may be lost for good",
                           hint="commit or shelve first, or name the files to discard")
