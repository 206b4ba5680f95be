"""Cloud and cluster command lines that destroy what they manage (aws, gcloud, gsutil, az,
kubectl, helm, terraform, pulumi, doctl): a destructive verb is ASK, and a mass deletion
(a bucket emptied recursively, a namespace, a resource group, a project, users, ``--all``,
``terraform destroy -auto-approve``), or a deletion of a resource named as production
(``aws dynamodb delete-table --table-name prod-orders``), is DENY."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register

_CLOUDS = frozenset({"aws", "gcloud", "gsutil", "az", "kubectl", "oc", "helm", "terraform",
                     "tofu", "terragrunt", "pulumi", "doctl", "eksctl", "rclone", "s3cmd",
                     "supabase", "fly", "flyctl", "heroku"})
_IAC = frozenset({"terraform", "tofu", "terragrunt", "pulumi"})
_VERB = lazy_pattern(r"^(?:delete|remove|rm|rb|destroy|terminate|purge|uninstall|drain|"
                     r"deregister|disable|revoke|detach|wipe|erase|drop|cancel|reset|"
                     r"scale|replace|taint|stop|kill|del|rmdirs)(?:-[\w-]+)?$")
_MASS_FLAGS = frozenset({"--recursive", "-r", "-R", "--all", "--all-namespaces", "-A",
                         "--force", "-a", "--yes", "-y", "--purge"})
_MASS_TARGETS = lazy_pattern(r"^(?:ns|namespaces?|projects?|groups?|users?|user-pool|"
                             r"organizations?|accounts?|service-accounts?|clusters?|"
                             r"resource-groups?|subscriptions?|rb|stack)$|^delete-(?:user|"
                             r"group|account|organization|bucket|cluster|stack)\b")
_AUTO = frozenset({"-auto-approve", "--auto-approve", "--yes", "-y", "--skip-preview",
                   "--force", "--terragrunt-non-interactive", "--non-interactive"})


def _words(cmd: SimpleCommand) -> list[str]:
    return [w.shown for w in cmd.words[1:]]


def _mass(program: str, args: list[str], verb: str) -> str | None:
    """Why the deletion is a mass deletion, or None."""
    flags = {a.split("=", 1)[0] for a in args if a.startswith("-")}
    if program in _IAC:
        destroying = verb == "destroy" or "-destroy" in flags or (
            verb == "rm" and "stack" in args and "--force" in flags)  # pulumi stack rm --force
        return "destroys every resource without review" if destroying and flags & _AUTO \
            else None
    nouns = [a.split("/", 1)[0] if "://" not in a else a  # kubectl delete ns/prod
             for a in args if not a.startswith("-")]
    if any(_MASS_TARGETS.match(n) for n in nouns[:4]) or _MASS_TARGETS.match(verb):
        return "deletes an account, namespace, group, project or whole bucket"
    if program in ("kubectl", "oc") and flags & {"--all", "--all-namespaces", "-A"}:
        return "deletes every resource of a kind"
    if verb in ("rm", "delete") and flags & _MASS_FLAGS and any(
            "://" in n or n.startswith(("gs:", "s3:")) for n in nouns):
        return "deletes a bucket's contents recursively"
    return None


# Account CLIs whose operands and option values name the resources a delete acts on (a
# cluster CLI's names are namespaces and objects a controller recreates: not judged so).
_NAMED_RESOURCES = frozenset({"aws", "gcloud", "az", "doctl", "eksctl", "gsutil", "s3cmd",
                              "supabase", "fly", "flyctl", "heroku"})
_REMOVES = lazy_pattern(r"^(?:delete|remove|rm|rb|destroy|terminate|purge|drop|wipe|erase|del)"
                        r"(?:-[\w-]+)?$")


def _production(program: str, args: list[str], verb: str) -> str | None:
    """Why a deletion hits production: the resource it names says so (``--table-name
    prod-orders``, ``gcloud sql instances delete prod-db``, ``s3://prod-data``)."""
    if program not in _NAMED_RESOURCES or not _REMOVES.match(verb):
        return None
    from clawgate.validators.datatargets import production_name

    after = args[args.index(verb) + 1:] if verb in args else args
    names = [a.partition("=")[2] if a.startswith("-") else a for a in after]
    named = next((n for n in names if n and production_name(n)), None)
    return None if named is None else f"deletes the production resource {named!r}"


@register
class CloudDestruction(Validator):
    """A destructive verb of a cloud or cluster CLI (``aws ec2 terminate-instances``,
    ``kubectl delete pod``, ``helm uninstall``, ``terraform destroy``, ``gcloud … delete``,
    a sync that deletes: ``aws s3 sync --delete``, ``gsutil rsync -d``): ASK. A mass deletion
    (``aws s3 rm --recursive``, ``aws s3 rb --force``, ``gsutil rm -r``, ``kubectl delete
    ns``, ``--all``, deleting users or projects, ``terraform destroy -auto-approve``) or of a
    resource whose name says production (``--table-name prod-orders``): DENY.

    Bad: ``aws s3 rm s3://prod-data --recursive``. Harmless: ``kubectl get pods``.
    """

    id = "CG-NET-001"
    programs = _CLOUDS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in _CLOUDS or len(cmd.words) < 2:
            return NO_OPINION
        args = _words(cmd)
        # heroku and its kin spell topic:verb (apps:destroy, pg:reset)
        verb = next((a for a in args[:4] if _VERB.match(a.rsplit(":", 1)[-1])), None)
        if verb is not None and ":" in verb and "://" not in verb:
            verb = verb.rsplit(":", 1)[-1]
        if verb is None and cmd.program in _IAC and "-destroy" in args:
            verb = "destroy"
        if verb is None and "sync" in args[:3] and ("--delete" in args or (
                cmd.program == "gsutil" and "-d" in args)):
            verb = "sync --delete"  # removes what the source lacks
        if verb is None and cmd.program == "gsutil" and "rsync" in args[:3] and "-d" in args:
            verb = "rsync -d"
        if verb is None:
            return NO_OPINION
        why = _mass(cmd.program or "", args, verb) or _production(cmd.program or "", args, verb)
        if why is not None:
            return Verdict.deny(self.id, f"{cmd.program} {verb}: {why}",
                                hint="run mass deletions by hand, after review")
        return Verdict.ask(self.id, f"{cmd.program} {verb} destroys cloud or cluster "
                           "resources", hint="confirm the target first")
