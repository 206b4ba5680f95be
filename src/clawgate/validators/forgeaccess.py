"""Who may change a repository or a package, widened (CG-INFRA-006).

A repository's collaborators and an organisation's owners, a branch's protection, a
package's owners and its access decide who can push code that others run. Granting another
account write or admin rights, removing a protection, making a private package public or
adding a publisher is a change the next release of every user of the project inherits: DENY.
Minting a publish token or moving the tag every install resolves to asks.

Read from the forge's REST calls (``gh api``/``glab api``: method, endpoint, fields) and the
registries' clients' verbs (``npm access``, ``npm owner``, ``cargo owner``, ``gem owner``,
``npm token``, ``npm dist-tag``).
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.forgerepo import api_call

ID = "CG-INFRA-006"
_COLLABORATOR = lazy_pattern(r"^/?repos/[^/]+/[^/]+/collaborators/[^/?]+/?$")
_MEMBERSHIP = lazy_pattern(r"^/?orgs/[^/]+/(?:memberships|members)/[^/?]+/?$")
_PROTECTION = lazy_pattern(r"^/?repos/[^/]+/[^/]+/branches/[^/]+/protection(?:/.*)?$")
_RULESET = lazy_pattern(r"^/?repos/[^/]+/[^/]+/rulesets/[^/?]+/?$")
_ADMIN = frozenset({"role=admin", "permission=admin", "permission=maintain",
                    "access_level=50", "access_level=40"})
_NPM_PUBLIC = frozenset({"status=public", "public"})


def _api(words: list[str]) -> str | None:
    method, endpoint, fields = api_call(words)
    if endpoint is None:
        return None
    flat = {f.replace(" ", "") for f in fields}
    if method == "PUT" and _COLLABORATOR.match(endpoint):
        return f"{endpoint} gives another account write access to the repository"
    if method in ("PUT", "POST", "PATCH") and _MEMBERSHIP.match(endpoint) and flat & _ADMIN:
        return f"{endpoint} makes another account an owner of the organisation"
    if method == "DELETE" and (_PROTECTION.match(endpoint) or _RULESET.match(endpoint)):
        return f"{endpoint}: the branch's protection removed, anyone with push rights " \
               "may rewrite it"
    return None


def _registry(program: str, args: list[str]) -> tuple[str, bool] | None:
    """(what it does, whether it is a DENY) for a registry client's access verbs."""
    operands = [a for a in args if not a.startswith("-")]
    verb = operands[:1]
    if program in ("npm", "pnpm", "yarn"):
        if verb == ["access"] and (set(operands[1:3]) & _NPM_PUBLIC):
            return "npm access makes the package public", True
        if verb == ["owner"] and operands[1:2] in (["add"], ["a"]):
            return "npm owner add gives another account the right to publish the package", True
        if verb == ["token"] and operands[1:2] == ["create"]:
            return "npm token create mints a publish token and prints it", False
        if verb == ["dist-tag"] and operands[1:2] in (["add"], ["set"], ["rm"]):
            return "npm dist-tag moves the version every install of the tag gets", False
    if program == "cargo" and verb == ["owner"] and ({"--add", "-a"} & set(args) or any(
            a.startswith("--add=") for a in args)):
        return "cargo owner --add gives another account the right to publish the crate", True
    if program == "gem" and verb == ["owner"] and ({"--add", "-a"} & set(args)):
        return "gem owner --add gives another account the right to push the gem", True
    return None


@register
class AccessWidened(Validator):
    """Who may change a repository or a package widened: a collaborator added
    (``gh api -X PUT repos/O/R/collaborators/U``), an organisation owner made, a branch's
    protection or ruleset deleted, a package made public (``npm access set status=public``),
    a publisher added (``npm owner add``, ``cargo owner --add``, ``gem owner --add``): DENY;
    a publish token minted (``npm token create``) or a dist-tag moved: ASK.

    Bad: ``npm owner add outsider @acme/core``. Harmless: ``npm owner ls @acme/core``, ``gh
    api repos/acme/api/collaborators``, ``npm dist-tag ls pkg``.
    """

    id = ID
    programs = frozenset({"gh", "glab", "npm", "pnpm", "yarn", "cargo", "gem"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program or ""
        args = list(cmd.argv[1:])
        if program in ("gh", "glab"):
            if "api" not in args:
                return NO_OPINION
            what = _api(args[args.index("api") + 1:])
            if what is None:
                return NO_OPINION
            return Verdict.deny(ID, what, hint="change who may push by hand, in the forge")
        found = _registry(program, args)
        if found is None:
            return NO_OPINION
        what, deny = found
        if deny:
            return Verdict.deny(ID, what, hint="change a package's publishers by hand")
        return Verdict.ask(ID, what)
