"""A program the catalog does not know, told by its subcommand to send the project out.

A release tool, a registry client or a hosting CLI that nobody has described is still read by
what its words are: a subcommand ``publish``, ``deploy``, ``upload`` or ``push`` names the act
of sending the project (a package, a site, an extension, artifacts) beyond the workspace,
where it cannot be taken back: ``pkg-pr-new publish``, ``vsce publish``, ``changeset
publish``, ``firebase deploy``, ``dvc push``, ``cachix push``, run directly or through a
package runner (``npx``, ``pnpx``, ``bunx``, which are unwrapped to the package they run).
ASK. A rehearsal (``--dry-run``, ``--dryrun``) or a request for help only prints. Programs
the engine knows keep their own reading: the catalog's (``npm publish``, ``git push``, ``mike
deploy``), the interpreters' (``python manage.py deploy`` runs a script) and those whose
sending subcommands CG-DEST-005 lists (``dotnet publish`` builds into a folder; ``dotnet
nuget push`` sends).
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.destructive import DestructiveSubcommand
from clawgate.validators.unknownwords import known
from clawgate.validators.wrappers import is_wrapper
from clawgate.validators.wraptable import SUBCOMMAND

OUTWARD = frozenset({"publish", "deploy", "upload", "push"})
# Switches with which such a tool only shows what it would do, or how it is used (`-h` is
# left out: some tools take a host with it; `--dry-run=false` is no rehearsal).
_REHEARSALS = frozenset({"--dry-run", "--dryrun", "--dry-run=true", "--help"})
_SEEN = 2  # the verb among the first operands: `nx release publish`, `tool hosting deploy`


def outward_verb(cmd: SimpleCommand) -> str | None:
    """The sending verb among the first operands of ``cmd``, unless it only rehearses."""
    operands: list[str] = []
    for word in cmd.words[1:]:
        value = word.value
        if value is None:
            break  # known only at run time: the words before it still name the verb
        if value == "--":
            break
        if value in _REHEARSALS:
            return None
        if not value.startswith("-"):
            operands.append(value)
    return next((w for w in operands[:_SEEN] if w in OUTWARD), None)


@register
class UnknownProgramSends(Validator):
    """A program the catalog does not know whose subcommand publishes, deploys, uploads or
    pushes: it sends the project beyond the workspace (a registry, a hosting service, a
    store), which cannot be taken back. ASK.

    Bad: ``pnpx pkg-pr-new publish --compact``, ``npx vsce publish``, ``firebase deploy``.
    Harmless: ``vsce package``, ``changeset publish --dry-run``, ``./scripts/publish.sh``.
    """

    id = "CG-DEST-012"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program is None or known(program) or program in DestructiveSubcommand.programs:
            return NO_OPINION  # python, dotnet publish (a local build): their own reading
        if is_wrapper(cmd) or (cmd.program, "") in SUBCOMMAND:
            return NO_OPINION  # npx, pnpx, bunx: the package they run is judged as itself
        verb = outward_verb(cmd)
        if verb is None:
            return NO_OPINION
        return Verdict.ask(self.id, f"{program} {verb} sends the project beyond the "
                           "workspace (a registry, a hosting service or a store), where it "
                           "cannot be taken back",
                           hint=f"rehearse it with --dry-run, or {verb} by hand")
