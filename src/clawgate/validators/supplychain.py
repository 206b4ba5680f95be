"""Installing or running packages by name: hallucinated names and typosquats.

Agents invent package names, and attackers register the names agents invent and misspellings
of popular packages. A name among the most-downloaded packages of PyPI or npm, or among the
gems, crates and Go modules Debian packages (``clawgate/packages/*.txt``, with their source and
date), declared in the project's own manifest (or, for PyPI and npm, installed by its own CI
and task files or resolved in its lock files), or a local path keeps the command's risk tier
(medium; global tool installs stay high); any other name asks; a name one or two edits from a
popular package without being one is denied.
"""

from __future__ import annotations

from clawgate import fsfacts
from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.shell.model import BRACE, SimpleCommand
from clawgate.validators.base import Context, Validator, register

_PROGRAMS = frozenset({"pip", "python", "uv", "uvx", "poetry", "pipx", "npm", "npx", "pnpm",
                       "pnpx", "yarn", "bun", "bunx", "go", "gem", "bundle", "cargo",
                       "deno", "dx"})


def _unknown(cmd: SimpleCommand, ctx: Context, *,
             asking: bool = False) -> tuple[str, list[str], list[str]] | None:
    """(registry, names that are neither popular nor declared nor local, remote sources);
    ``asking``: None for a command whose unknown names do not ask (``go get``)."""
    from clawgate.packages import index
    from clawgate.packages.installs import named

    found = named(_expanded(cmd))
    if found is None and cmd.program in ("deno", "dx"):
        from clawgate.packages.installs import Named

        found = Named("npm", ())  # the standard library's names, mapped elsewhere below
    if found is None or (asking and not found.asks):
        return None
    # A name known only at run time (``pip install "$PKG"``) is not judged here: one set
    # literally earlier on the line is put in first (same-line constants).
    popular = index(found.registry)
    names = [n for n in found.names if n and not popular.known(n)]
    if names:
        from clawgate.packages.manifests import declared

        own = declared(found.registry, [ctx.cwd, ctx.workspace])
        names = [n for n in names if not _declared(found.registry, n, own)
                 and not _local_bin(found.registry, n, ctx)]
    if names and asking:
        names = _not_installed_by_project(found.registry, names, ctx)
    remote = list(found.remote)
    if cmd.program in ("deno", "dx") and any(r.startswith("jsr:") for r in (
            *remote, *(w.value or "" for w in cmd.words))):
        remote = _jsr_remote(cmd, remote, ctx)
    return (found.registry, names, remote) if names or remote else None


def _expanded(cmd: SimpleCommand) -> list[str | None]:
    """The words' values after brace expansion, as bash hands them to the program
    (``@commitlint/{cli,config-conventional}`` is two names); a word bash would not expand
    here (too many words, a sequence it does not make) stays as written."""
    from clawgate.shell.braces import braces

    values: list[str | None] = []
    for word in cmd.words:
        if word.value is not None and BRACE in word.expansions and (
                expanded := braces(word.value)) is not None:
            values.extend(expanded)
        else:
            values.append(word.value)
    return values


def _jsr_remote(cmd: SimpleCommand, remote: list[str], ctx: Context) -> list[str]:
    """The remote sources with what the project's Deno configuration says of ``jsr:`` ones:
    a module it declares is the project's own choice, unless a map sends its very name
    elsewhere; a standard-library name it maps to anything but the standard library is that
    code, not Deno's (``"jsr:@std/fmt": "https://…"``). A configuration that does not parse
    vouches for nothing."""
    from clawgate.packages.installs import JSR_STANDARD
    from clawgate.validators.denomap import declares, given_files, import_maps, mapped

    words = [w.value or "" for w in cmd.words]
    maps = import_maps(ctx.cwd, ctx.workspace, given_files(words))
    standard = [w for w in words if w.startswith(JSR_STANDARD)]
    if maps is None:
        return [*remote, *standard]
    kept = [r for r in remote if not (r.startswith("jsr:") and _package(r) and declares(
        _package(r), maps) and (mapped(r, maps) or "jsr:").startswith("jsr:"))]
    return kept + [w for w in standard if not (mapped(w, maps) or JSR_STANDARD[0]).startswith(
        JSR_STANDARD)]


def _package(spec: str) -> str:
    """``@scope/name`` of a ``jsr:`` specifier, "" when it has none."""
    rest = spec[4:].lstrip("/")
    parts = rest.split("/", 2)
    if not rest.startswith("@") or len(parts) < 2:
        return ""
    return parts[0] + "/" + parts[1].split("@", 1)[0]


def _declared(registry: str, name: str, own: frozenset[str]) -> bool:
    """``name`` is one the project declares; for Go, a package of a module it requires."""
    from clawgate.packages import normalise

    typed = normalise(registry, name)
    if registry == "go":
        return any(typed == m or typed.startswith(m + "/") for m in own)
    return typed in own


def _not_installed_by_project(registry: str, names: list[str], ctx: Context) -> list[str]:
    """The names the project's own CI, task and requirement files do not install
    (``packages/named.py``) and its lock files do not hold (``packages/lockfiles.py``): a
    tool its maintainers or its dependency tree chose is no made-up name. A near-miss of a
    popular name is still judged as one (CG-PKG-001 does not read these files)."""
    from clawgate.packages import normalise
    from clawgate.packages.lockfiles import locked
    from clawgate.packages.named import installed_by_project

    own: set[str] = set()
    for directory in dict.fromkeys((ctx.cwd, ctx.workspace)):
        own |= {normalise(registry, n) for n in installed_by_project(registry, directory)}
    names = [n for n in names if normalise(registry, n) not in own]
    for directory in dict.fromkeys((ctx.cwd, ctx.workspace)) if names else ():
        own |= {normalise(registry, n) for n in locked(registry, directory)}
    return [n for n in names if normalise(registry, n) not in own]


def _local_bin(registry: str, name: str, ctx: Context) -> bool:
    """``npx NAME`` runs the project's own ``node_modules/.bin/NAME`` when there is one."""
    if registry != "npm" or "/" in name:
        return False
    return any(fsfacts.exists(f"{d.rstrip('/')}/node_modules/.bin/{name}")
               for d in (ctx.cwd, ctx.workspace))


@register
class Typosquat(Validator):
    """A package name one or two edits away from a popular package, without being one:
    the misspelling attackers register. DENY.

    Bad: ``pip install reqeusts``. Harmless: ``pip install requests``.
    """

    id = "CG-PKG-001"
    programs = _PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        found = _unknown(cmd, ctx)
        if found is None:
            return NO_OPINION
        from clawgate.packages import index

        registry, names, _ = found
        for name in names:
            popular = index(registry)
            target = popular.near(name)
            if target is not None:
                edits = "one or two letters" if popular.edits > 1 else "one letter"
                return Verdict.deny(self.id, f"{name!r} is {edits} away from {target!r}, "
                                    f"one of the {popular.what}",
                                    hint=f"did you mean {target!r}? check the spelling")
        return NO_OPINION


@register
class UnknownPackage(Validator):
    """A package installed or run by a name that is not among the most-downloaded of its
    registry, not declared by the project, not installed by the project's own CI, task or
    requirement files (``packages/named.py``: a tool its maintainers chose), not resolved in
    its lock files (``packages/lockfiles.py``) and not a local path, or from a URL: possibly
    a name an agent made up, which anyone may have registered. ASK.

    Bad: ``npx totally-real-helper-cli``. Harmless: ``npx prettier --check .``.
    """

    id = "CG-PKG-002"
    programs = _PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        found = _unknown(cmd, ctx, asking=True)
        if found is None:
            return NO_OPINION
        from clawgate.packages import index

        registry, names, remote = found
        if names:
            shown = ", ".join(repr(n) for n in names)
            return _high(self.id, f"{shown} is not among the {index(registry).what} nor "
                         f"declared by the project ({_MANIFESTS[registry]})"
                         + (" nor installed by its CI or task files"
                            if registry in ("pypi", "npm") else ""),
                         "check that the package exists and is the one meant, or declare "
                         "it in the project's manifest")
        where = ("a JSR module outside the Deno standard library, not declared in deno.json"
                 if remote[0].startswith("jsr:") else f"not from the {registry} index")
        return _high(self.id, f"installs or runs code from {remote[0]!r}, {where}",
                     "install a published release, or review the source first")


@register
class RemotePackageRun(Validator):
    """A package fetched from an address (a URL, a git reference, a forge shorthand such as
    ``github:owner/repo``) and run at once by a package runner (``npx``, ``npm exec``,
    ``pnpm``/``yarn dlx``, ``bunx``, ``pipx run``, ``uvx``, ``uv tool run``): code from
    outside any index, started before anyone read it, as ``curl URL | sh`` is. DENY.
    Installing from an address stays CG-PKG-002's ASK.

    Bad: ``npx --yes github:someone/tool``. Harmless: ``npx prettier --check .``.
    """

    id = "CG-PKG-004"
    programs = _PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        from clawgate.packages.installs import named

        found = named(_expanded(cmd))
        if found is None or not found.runs:
            return NO_OPINION
        remote = [r for r in found.remote if not r.startswith("jsr:")]
        if not remote:
            return NO_OPINION
        return Verdict.deny(self.id, f"runs a package fetched from {remote[0]!r}, outside any "
                            "index, before anyone has read it",
                            hint="install a published release, or fetch and review it first")


_MAX_MANIFEST = 1 << 24  # characters of a deno.json read (a manifest is far smaller)
_MANIFESTS = {"pypi": "pyproject.toml, requirements*.txt", "npm": "package.json",
              "rubygems": "Gemfile, Gemfile.lock, *.gemspec", "crates": "Cargo.toml, Cargo.lock",
              "go": "go.mod"}


def _high(rule_id: str, message: str, hint: str) -> Verdict:
    """ASK at high risk: what installs or runs an unknown package reaches beyond the project."""
    return Verdict.of(Outcome.ASK, rule_id, message, hint=hint, risk=Risk.HIGH)
