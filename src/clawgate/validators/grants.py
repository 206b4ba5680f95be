"""Granting administrator rights: a cloud account's owner or administrator role, Kubernetes'
``cluster-admin``, a machine's sudo, wheel or docker group (CG-INFRA-002)."""

from __future__ import annotations

import re

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.consoles import fed_text

# A role, policy or group that is an administrator's: AWS's AdministratorAccess and
# IAMFullAccess, GCP's owner, editor and *Admin roles (and acting as a service account),
# Azure's Owner, Contributor and access administrators, Kubernetes' cluster-admin and admin,
# a policy document allowing "*".
ADMIN_ROLE = lazy_pattern(
    r"AdministratorAccess|IAMFullAccess|(?:^|[/=\s'\"])roles/(?:owner|editor)\b|"
    r"roles/[\w.]*admin\b|roles/iam\.serviceAccount(?:TokenCreator|User|KeyAdmin)\b|"
    r"^(?:Owner|Contributor|User Access Administrator|Role Based Access "
    r"Control Administrator)$|^(?:cluster-)?admins?$|^administrators?$|"
    r"\"Action\"\s*:\s*(?:\[\s*)?\"\*\"", re.I)
_GRANT_VERBS = frozenset({"attach-user-policy", "attach-role-policy", "attach-group-policy",
                          "put-user-policy", "put-role-policy", "put-group-policy",
                          "add-iam-policy-binding", "set-iam-policy", "create", "add",
                          "clusterrolebinding", "rolebinding", "add-user-to-group",
                          "create-policy", "create-policy-version"})
_BINDING = lazy_pattern(r"[\"']?kind[\"']?\s*:\s*[\"']?(?:Cluster)?RoleBinding\b")
_CLUSTER_ADMIN = lazy_pattern(r"[\"']?name[\"']?\s*:\s*[\"']?cluster-admin\b")


def _binds_admin(manifest: str) -> bool:
    """A RoleBinding or ClusterRoleBinding that names cluster-admin, in a manifest."""
    return bool(_BINDING.search(manifest) and "roleRef" in manifest
                and _CLUSTER_ADMIN.search(manifest))


_ADMIN_GROUPS = frozenset({"sudo", "wheel", "admin", "root", "docker", "adm", "sudoers",
                           "lxd", "disk"})
_VALUE_OPTIONS = frozenset({"--policy-arn", "--role", "--clusterrole", "--policy-document",
                            "--group-name", "--group"})
_GROUP_OPTIONS = frozenset({"--group-name", "--group"})
# A group whose name says its members administer (``Global Administrators``, ``Domain
# Admins``, ``platform-admins``, ``Owners``): joining it is being granted that.
ADMIN_GROUP = lazy_pattern(r"(?i)(?:^|[^a-z])(?:admin(?:istrator)?s?|owners?|superusers?)"
                           r"(?:$|[^a-z])")


def _values(cmd: SimpleCommand, options: frozenset[str] = _VALUE_OPTIONS) -> list[str]:
    """The values of the options that name a role, a policy or a group."""
    words = [w.value if w.value is not None else w.shown for w in cmd.words[1:]]
    found: list[str] = []
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name in options:
            found.append(value if eq else (words[i + 1] if i + 1 < len(words) else ""))
    return found


def _unix_group(cmd: SimpleCommand) -> str | None:
    """``usermod -aG sudo bob``, ``gpasswd -a bob wheel``, ``adduser bob docker``."""
    args = [w.shown for w in cmd.words[1:]]
    if cmd.program == "usermod" and any(a.startswith("-") and "G" in a for a in args):
        groups = {g for a in args if not a.startswith("-") for g in a.split(",")}
    elif cmd.program in ("gpasswd", "adduser", "addgroup") and len(args) >= 2:
        groups = {args[-1]} if cmd.program != "gpasswd" or "-a" in args else set()
    else:
        return None
    return next(iter(sorted(groups & _ADMIN_GROUPS)), None)


@register
class AdminGrant(Validator):
    """An administrator's role granted: ``aws iam attach-user-policy … AdministratorAccess``,
    a policy allowing ``"Action": "*"``, ``gcloud … add-iam-policy-binding --role=roles/owner``,
    ``az role assignment create --role Owner``, ``kubectl create clusterrolebinding
    --clusterrole=cluster-admin`` (or a patch of the cluster-admin binding), a member added to
    a group named for administrators (``az ad group member add --group "Global
    Administrators"``, ``aws iam add-user-to-group --group-name platform-admins``), ``usermod
    -aG sudo``/``docker``: DENY. Whoever holds it can
    undo every other control; granting it is for an administrator to do by hand.

    Bad: ``kubectl create clusterrolebinding x --clusterrole=cluster-admin --user=me``.
    Harmless: ``kubectl create rolebinding x --clusterrole=view --user=me``.
    """

    id = "CG-INFRA-002"
    programs = frozenset({"aws", "gcloud", "az", "kubectl", "oc", "usermod", "gpasswd",
                          "adduser", "addgroup"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in self.programs:
            return NO_OPINION
        group = _unix_group(cmd)
        if group is not None:
            return Verdict.deny(self.id, f"adds a user to the {group} group, root's equal",
                                hint="ask an administrator")
        if cmd.program in ("kubectl", "oc") and any(
                _binds_admin(t) for t in fed_text(cmd)):
            return Verdict.deny(self.id, f"{cmd.program} applies a binding to cluster-admin",
                                hint="bind the narrowest role the task needs, by hand")
        operands = [w.shown for w in cmd.words[1:] if not w.shown.startswith("-")]
        if cmd.program in ("kubectl", "oc") and operands[:1] == ["patch"] and \
                {"clusterrolebinding", "rolebinding"} & set(operands) and any(
                o.rsplit("/", 1)[-1] == "cluster-admin" for o in operands):
            return Verdict.deny(self.id, f"{cmd.program} adds subjects to cluster-admin",
                                hint="bind the narrowest role the task needs, by hand")
        if not _GRANT_VERBS & {w.shown for w in cmd.words[1:6]}:
            return NO_OPINION
        role = next((v for v in _values(cmd) if ADMIN_ROLE.search(v)), None) or next(
            (v for v in _values(cmd, _GROUP_OPTIONS) if ADMIN_GROUP.search(v)), None)
        if role is None:
            return NO_OPINION
        return Verdict.deny(self.id, f"{cmd.program} grants an administrator's role "
                            f"({role[:60]})", hint="grant the narrowest role the task needs, "
                            "by hand")
