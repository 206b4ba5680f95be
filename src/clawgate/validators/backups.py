"""Deleting data with no way back (CG-INFRA-004): a database deleted with its final snapshot
skipped or its automated backups deleted, backups turned off, a managed database whose backups
go with it. (Deleting one snapshot or backup leaves the data it copies: CG-NET-001 asks.)"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register

# Options of a delete that say no backup is kept.
_NO_BACKUP_FLAGS = frozenset({"--skip-final-snapshot", "--skip-final-cluster-snapshot",
                              "--delete-automated-backups", "--force-delete-without-recovery",
                              "--delete-backups", "--no-final-snapshot",
                              "--delete-backup-data"})
# Managed databases whose deletion takes their backups with them (Cloud SQL, Spanner, Bigtable,
# Firestore, Memorystore, AlloyDB, Filestore).
_WITH_BACKUPS: tuple[tuple[str, ...], ...] = (
    ("sql", "instances"), ("spanner", "instances"), ("spanner", "databases"),
    ("bigtable", "instances"), ("firestore", "databases"), ("redis", "instances"),
    ("alloydb", "clusters"), ("filestore", "instances"))
_DELETES = frozenset({"delete", "rm", "remove"})


def _what(program: str, args: list[str]) -> str | None:
    operands = [a for a in args if not a.startswith("-")]
    flags = {a.split("=", 1)[0] for a in args if a.startswith("-")}
    verbs = set(operands[:4])
    deleting = bool(verbs & _DELETES) or any(v.startswith("delete-") for v in operands[:3])
    if deleting and flags & _NO_BACKUP_FLAGS:
        return f"deletes with {sorted(flags & _NO_BACKUP_FLAGS)[0]}: no backup is kept"
    if program == "aws" and any(a.split("=", 1)[0] == "--backup-retention-period" for a in args) \
            and any(a in ("0", "--backup-retention-period=0") for a in args):
        return "turns automated backups off"
    if program == "gcloud" and verbs & _DELETES and any(
            tuple(operands[i:i + 2]) in _WITH_BACKUPS for i in range(min(3, len(operands)))):
        return "deletes a managed database, and its backups with it"
    return None


@register
class DeleteWithoutBackup(Validator):
    """Deleting data with no way back: ``aws rds delete-db-instance --skip-final-snapshot``,
    ``--delete-automated-backups``, ``--force-delete-without-recovery``, a backup retention of
    0, ``gcloud sql instances delete`` (Cloud SQL deletes the instance's backups
    with it): DENY. A deletion that keeps a final snapshot stays CG-NET-001's ASK.

    Bad: ``aws rds delete-db-instance --db-instance-identifier app --skip-final-snapshot``.
    Harmless: ``aws rds describe-db-snapshots``.
    """

    id = "CG-INFRA-004"
    programs = frozenset({"aws", "gcloud", "az", "doctl", "linode-cli", "hcloud", "scw"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in self.programs:
            return NO_OPINION
        what = _what(cmd.program or "", [w.shown for w in cmd.words[1:]])
        if what is None:
            return NO_OPINION
        return Verdict.deny(self.id, f"{cmd.program} {what}",
                            hint="take a snapshot first, and delete by hand after review")
