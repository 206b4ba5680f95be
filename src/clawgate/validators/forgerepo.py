"""A forge's repository itself deleted or made public, by its subcommand or its REST API:
``gh repo delete``, ``gh repo edit --visibility public``, ``gh api -X DELETE repos/O/R``,
``gh api -X PATCH repos/O/R -f private=false`` (CG-INFRA-005); GitLab's ``glab repo delete``;
the workspace pushed into a new public repository (``gh repo create --public --push``).
Who may change a repository or a package widened (CG-INFRA-006, ``validators/forgeaccess.py``)."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register

# gh api's options that take a value, and the ones among them that send a field.
_API_VALUED = frozenset({"-X", "--method", "-f", "--raw-field", "-F", "--field", "-H",
                         "--header", "--hostname", "-q", "--jq", "-t", "--template", "--input",
                         "-p", "--preview", "--cache"})
_API_FIELDS = frozenset({"-f", "--raw-field", "-F", "--field"})
# The repository itself (not an issue, a comment or a branch of it): repos/OWNER/REPO.
_REPOSITORY = lazy_pattern(r"^/?repos/[^/?#]+/[^/?#]+/?(?:\?.*)?$")
_PUBLIC = frozenset({"private=false", "private=0", "visibility=public"})


def api_call(words: list[str]) -> tuple[str, str | None, list[str]]:
    """(method, endpoint, fields) of ``gh api`` given the words after ``api``: the method
    ``-X``/``--method`` names (glued or not), else POST when fields are sent, else GET."""
    method: str | None = None
    endpoint: str | None = None
    fields: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        name, eq, glued = word.partition("=") if word.startswith("--") else (word, "", "")
        if word.startswith("-X") and len(word) > 2:
            method = word[2:]
        elif name in _API_VALUED:
            value = glued if eq else (words[i + 1] if i + 1 < len(words) else "")
            i += 0 if eq else 1
            if name in ("-X", "--method"):
                method = value
            elif name in _API_FIELDS:
                fields.append(value)
        elif word[:2] in ("-f", "-F") and len(word) > 2:
            fields.append(word[2:])
        elif not word.startswith("-") and endpoint is None:
            endpoint = word
        i += 1
    chosen = (method or ("POST" if fields else "GET")).upper()
    return chosen, endpoint, fields


def _repository_change(cmd: SimpleCommand) -> str | None:
    """What ``cmd`` does to a repository as a whole, when it deletes it or makes it public."""
    args = list(cmd.argv[1:])
    operands = [a for a in args if not a.startswith("-")]
    if operands[:2] == ["repo", "delete"]:
        return (f"{cmd.program} repo delete deletes the repository, its issues, pull or merge "
                "requests and wiki")
    if operands[:2] == ["repo", "create"] and "--public" in args and any(
            a in ("--push",) or a.startswith("--source") for a in args):
        return ("gh repo create --public with the workspace as its source publishes the "
                "project's code and history")
    if operands[:2] == ["repo", "edit"] and any(
            a in ("--visibility=public",) or (a == "--visibility" and nxt == "public")
            for a, nxt in zip(args, [*args[1:], ""], strict=True)):
        return "gh repo edit --visibility public publishes the repository's code and history"
    if operands[:1] != ["api"]:
        return None
    method, endpoint, fields = api_call(args[args.index("api") + 1:])
    if endpoint is None or not _REPOSITORY.match(endpoint):
        return None
    if method == "DELETE":
        return f"gh api DELETE {endpoint} deletes the repository"
    if method in ("PATCH", "POST", "PUT") and _PUBLIC & {f.replace(" ", "") for f in fields}:
        return f"gh api {method} {endpoint} makes the repository public"
    return None


@register
class RepositoryDeletedOrPublished(Validator):
    """A forge repository itself deleted, or made public, through its client's subcommand or
    its REST API: every issue, pull request and wiki page goes with a deleted repository, and
    a private repository's code and history once public are out for good. DENY.

    Bad: ``gh api -X DELETE repos/acme/payments``, ``gh repo edit --visibility public``,
    ``glab repo delete acme/api``, ``gh repo create x --public --source=. --push``.
    Harmless: ``gh api repos/acme/payments``, ``gh api -X DELETE repos/o/r/issues/comments/1``.
    """

    id = "CG-INFRA-005"
    programs = frozenset({"gh", "glab"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in ("gh", "glab"):
            return NO_OPINION
        what = _repository_change(cmd)
        if what is None:
            return NO_OPINION
        return Verdict.deny(self.id, what, hint="delete or publish a repository by hand")
