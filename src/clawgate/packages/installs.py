"""The package names a command installs or runs by name, as the registry will read them.

``pip install -U 'requests[socks]>=2' ./local`` names ``requests``; ``npm i -D express@4``
names ``express``; ``npx cowsay hi`` names ``cowsay``; ``gem exec rails new app`` names the gem
``rails``; ``cargo add serde@1 -F derive`` the crate ``serde``; ``go install
golang.org/x/tools/cmd/goimports@latest`` the Go package path. Installs from the project's
manifests and lockfiles (``npm ci``, bare ``npm install``, ``pip install -r …``, ``pip install
-e .``, ``bundle install``, ``gem install -g``, ``cargo build``, ``go mod download``, ``go
install`` of the project's own packages) name nothing. Paths and archives are local; URLs and
git references are named as such (they are not the index's packages), and so is a name given
another source: PEP 508's direct reference (``x @ https://h/x.whl``), npm's ``x@github:o/r``,
``x@o/r``, ``x@git+…``, ``x@https://…`` (``x@file:../x`` is a local folder). ``bundle add
--git`` and ``cargo add --registry`` name a source outside the index: nothing is read.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.records import record


@record(frozen=True, slots=True)
class Named:
    """What one command installs or runs: the registry and each name as written."""

    registry: str  # "pypi", "npm", "rubygems", "crates" or "go"
    names: tuple[str, ...]
    remote: tuple[str, ...] = ()  # URLs and git references, from no index
    asks: bool = True  # an unknown name asks; False: only a typosquat is judged (go get)
    runs: bool = False  # the tool runs what it fetches at once (npx, dlx, pipx run, uvx)


# Options that take a value, per tool (the value is never a package name, except --from,
# --with, --spec and -p/--package, read below).
_PIP_VALUES = frozenset("""-r --requirement -c --constraint -e --editable -i --index-url
--extra-index-url -f --find-links -t --target --prefix --root --platform --python-version
--implementation --abi --src --upgrade-strategy --progress-bar --log --cache-dir --trusted-host
-C --config-settings --global-option --install-option --no-binary --only-binary --report
--proxy --retries --timeout --exists-action --cert --client-cert --python -p --group --extra
--optional --index --default-index --package --rev --tag --branch --directory --project -m
--marker --source -E --extras -G --python-preference --constraints --overrides --pip-args
--suffix --with-editable --python-platform --resolution --prerelease --index-strategy
--keyring-provider --link-mode --exclude-newer --exclude-newer-package --reinstall-package
--upgrade-package -P --refresh-package --no-build-isolation-package --no-build-package
--no-binary-package --build-constraints --build-constraint -b --torch-backend --config-file
--color --allow-insecure-host --override --config-setting --config-settings-package
--fork-strategy --use-feature --use-deprecated --resume-retries --uploaded-prior-to --bounds
--script --markers""".split())
_NPM_VALUES = frozenset("""--registry --prefix --tag --workspace -w --omit --include --cache
--install-strategy --userconfig --globalconfig --filter -F --dir -C --cwd --loglevel
--save-prefix -c --call --before --scope --lockfile-version --cpu --os --libc --node-options
--reporter --workspace-concurrency --lockfile-dir --modules-dir --store-dir --backend
--cache-dir --mode""".split())
# Positional names that are the project's own, not packages: ``pip install .``.
_MANIFEST_OPTIONS = frozenset({"-r", "--requirement", "-e", "--editable"})
# Starts only where no blank precedes (the same first match): each blank of a long run was a
# start that read the rest of the run again.
_PY_SPEC_END = lazy_pattern(r"(?<!\s)\s*+(?:\[|[=<>!~;@(]|$)")
_NPM_SPEC = lazy_pattern(r"^((?:@[^/@\s]+/)?[^/@\s]+)(?:@.*)?$")
_REMOTE = lazy_pattern(r"(?i)^(?:[a-z][a-z0-9+.-]*://|git@)")
_URLISH = lazy_pattern(r"(?i)^(?:[a-z][a-z0-9+.-]*:|git@|[\w.-]+/[\w.-]+(?:#.*)?$)")
_LOCAL = lazy_pattern(r"(?i)^(?:\.{1,2}(?:/|$)|/|~|file:|link:|portal:|workspace:)|"
                      r"\.(?:whl|tar\.gz|tgz|zip|tar\.bz2)$")


def named(argv: list[str | None]) -> Named | None:
    """The names ``argv`` installs or runs by name, or None when it names no package of the
    two registries (``npm ci``, ``pip list``, ``cargo add`` …). An argument only known at run
    time is kept as ``""``: an unknown name."""
    if not argv or argv[0] is None:
        return None
    program = argv[0].rsplit("/", 1)[-1]
    stem = program.rstrip("0123456789.")
    args = argv[1:]
    if stem == "python":
        start = _module_pip(args)
        return None if start is None else _pip(args[start:])
    reader = _READERS.get(stem)
    return None if reader is None else reader(args)


def _module_pip(args: list[str | None]) -> int | None:
    """Where pip's own arguments start in ``python [-I] -m pip …`` (``-mpip``, ``-W x -m pip``:
    as CPython reads its options), or None."""
    from clawgate.programs.pyargv import python_module

    found = python_module(args)
    return found[1] if found is not None and found[0] == "pip" else None


def _operands(args: list[str | None], values: frozenset[str]) -> tuple[list[str], bool]:
    """The operands of ``args`` (options and their values left out), and whether an option
    named a manifest (``-r``/``-e``)."""
    found: list[str] = []
    manifest = False
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        text = "" if arg is None else arg
        if text == "--":
            continue
        if text.startswith("-") and len(text) > 1:
            name = text.split("=", 1)[0]
            manifest = manifest or name in _MANIFEST_OPTIONS
            skip = name in values and "=" not in text
            continue
        found.append(text)
    return found, manifest


def _pip(args: list[str | None]) -> Named | None:
    if not args or args[0] != "install":
        return None
    return _python_names(args[1:], 0)


def _python_names(args: list[str | None], first_only: int) -> Named | None:
    operands, _ = _operands(args, _PIP_VALUES)
    if first_only:
        operands = operands[:1]
    names, remote = [], []
    for spec in operands:
        if spec and _REMOTE.match(spec):
            remote.append(spec)
        elif (reference := _direct_reference(spec)) is not None:
            if not _LOCAL.search(reference) or (_REMOTE.match(reference) and not
                                                reference.lower().startswith("file:")):
                remote.append(spec)  # name @ https://…: that file, not the index's name
        elif spec and (_LOCAL.search(path := spec.split("[", 1)[0]) or "/" in path):
            continue  # pip reads a name holding a slash as a path; ``.[test]`` is ``.``
        else:
            end = _PY_SPEC_END.search(spec)
            names.append(spec[: end.start()] if end else spec)
    return Named("pypi", tuple(names), tuple(remote)) if names or remote else None


def _direct_reference(spec: str) -> str | None:
    """The address of a requirement's direct reference (``name @ https://h/x.whl``, ``name@
    git+https://…``: PEP 508), or None for a name with a version (``ruff@0.5``, ``x@latest``:
    uvx's spelling) or none."""
    requirement = spec.split(";", 1)[0]
    if "@" not in requirement:
        return None
    reference = requirement.split("@", 1)[1].strip()
    return reference if ":" in reference or "/" in reference else None


def _npm_names(operands: list[str]) -> Named | None:
    names, remote = [], []
    for spec in operands:
        if "@npm:" in spec:  # an alias: alias@npm:real@1
            spec = spec.split("@npm:", 1)[1]
        found = _NPM_SPEC.match(spec)
        version = spec[found.end(1) + 1:] if found and found.end(1) < len(spec) else ""
        if ":" in version or "/" in version:
            # x@github:o/r, x@o/r, x@git+https://…, x@https://h/x.tgz: that source, not the
            # registry's x (x@file:../x: a local folder)
            if not _LOCAL.search(version) or _REMOTE.match(version):
                remote.append(spec)
            continue
        if spec and _LOCAL.search(spec) and not _REMOTE.match(spec):
            continue  # ./x, x.tgz: a local path or archive (https://h/x.tgz is no path)
        if spec and not spec.startswith("@") and _URLISH.match(spec):
            remote.append(spec)
            continue
        names.append(found.group(1) if found else spec)
    return Named("npm", tuple(names), tuple(remote)) if names or remote else None


def _sub(verbs: frozenset[str], first_only: bool,
         reader: str) -> _Reader:
    """A reader for ``TOOL VERB names…`` (``npm install x``)."""

    def read(args: list[str | None]) -> Named | None:
        if not args or args[0] not in verbs:
            return None
        return _read(reader, args[1:], first_only)

    return read


def _runner(reader: str) -> _Reader:
    """A reader for ``TOOL name args…`` (``npx cowsay``): only the first operand is a name,
    unless ``--package``/``--from``/``--spec``/``--with`` name them."""

    def read(args: list[str | None]) -> Named | None:
        return _read(reader, args, True)

    return _running(read)


def _running(reader: _Reader) -> _Reader:
    """``reader``, its finds marked as run at once: the tool fetches the package and starts
    its program in one go (``npx``, ``npm exec``, ``pnpm dlx``, ``pipx run``, ``uvx``)."""
    from clawgate.records import replace

    def read(args: list[str | None]) -> Named | None:
        found = reader(args)
        return None if found is None else replace(found, runs=True)

    return read


def _verb_first(args: list[str | None]) -> list[str | None]:
    """A package manager's options written before its verb moved after it, where the verb's
    own options are read (``pnpm --package=x dlx y`` is ``pnpm dlx --package=x y``)."""
    i = 0
    while i < len(args) and (args[i] or "").startswith("-") and args[i] != "--":
        name, eq, _ = (args[i] or "").partition("=")
        i += 2 if name in _NPM_VALUES and not eq else 1
    if i == 0 or i >= len(args):
        return args
    return [args[i], *args[:i], *args[i + 1:]]


def _read(reader: str, args: list[str | None], first_only: bool) -> Named | None:
    if reader == "pypi":
        given = _given_packages(args, _PYPI_PACKAGE_OPTIONS, _PIP_VALUES)
        if given:
            return _python_names(list(given), 0)
        return _python_names(args, 1 if first_only else 0)
    operands, _ = _operands(args, _NPM_VALUES)
    given = _given_packages(args, _NPM_PACKAGE_OPTIONS, _NPM_VALUES)
    if given:
        return _npm_names(given)
    return _npm_names(operands[:1] if first_only else operands)


# The options by which a runner is told which packages to fetch (``npx -p typescript tsc``,
# ``uvx --from httpie http``, ``pipx run --spec …``); uvx's ``-p`` is the Python to use.
_NPM_PACKAGE_OPTIONS = frozenset({"-p", "--package"})
_PYPI_PACKAGE_OPTIONS = frozenset({"--from", "--with", "--spec"})


def _given_packages(args: list[str | None], options: frozenset[str],
                    values: frozenset[str]) -> list[str]:
    """Values of the package options among the tool's own options: those before its first
    operand. After it the words are the command's (``npx tsc -p tsconfig.json``: tsc's
    project file, not a package)."""
    found = []
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        text = arg or ""
        if not text.startswith("-") or text == "--":
            break
        name, eq, value = text.partition("=")
        if name in options:
            if eq:
                found.append(value)
            elif i + 1 < len(args):
                found.append(args[i + 1] or "")
                skip = True
        elif name in values and not eq:
            skip = True
    return found


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    _Reader = Callable[[list[str | None]], Named | None]


# uv run's options that take a value: --script is a flag there (uv run --script URL)
_UV_RUN_VALUES = (_PIP_VALUES - {"--script"}) | frozenset(
    "--with --with-requirements --env-file --only-group --no-group --no-extra".split())


def _uv(args: list[str | None]) -> Named | None:
    if args[:1] == ["run"]:  # uv run URL: a script fetched at run time (else the project's)
        return _uv_run(args[1:])
    if args[:2] == ["pip", "install"]:
        return _python_names(args[2:], 0)
    if args[:1] == ["add"]:
        return _python_names(args[1:], 0)
    if args[:2] == ["tool", "run"]:
        return _running(lambda rest: _read("pypi", rest, True))(args[2:])
    if args[:2] == ["tool", "install"]:
        return _read("pypi", args[2:], True)
    return None


def _uv_run(args: list[str | None]) -> Named | None:
    """``uv run [--with SPEC…] TARGET``: a TARGET at an address is a script fetched at run
    time; each ``--with`` package is installed first and imported by what runs, so one from
    an address is fetched and run at once (``--with 'x @ https://…'``, ``--with git+…``)."""
    operands, _ = _operands(args, _UV_RUN_VALUES)
    first = operands[0] if operands else ""
    script = (first,) if _REMOTE.match(first) else ()
    given = _given_packages(args, frozenset({"--with"}), _UV_RUN_VALUES)
    withs = _python_names(list(given), 0) if given else None
    if withs is None:
        return Named("pypi", (), script) if script else None
    return Named("pypi", withs.names, (*withs.remote, *script), runs=bool(withs.remote))


_GO_VALUES = frozenset("""-C -exec -tags -ldflags -gcflags -asmflags -mod -modfile -o -p
-pkgdir -overlay -pgo -toolexec -buildmode -compiler -installsuffix -coverpkg""".split())


def _go(args: list[str | None]) -> Named | None:
    """``go run|install MODULE@VERSION``: the package path (a package of the project's own
    module graph, without ``@``, names nothing); ``go get PATH[@V]``: each module path, judged
    for typosquats only (it adds a requirement to go.mod, reviewed with the change, and Go's
    modules are far more than the ones Debian packages)."""
    verb = args[0] if args else None
    if verb not in ("run", "install", "get"):
        return None
    operands, _ = _operands(args[1:], _GO_VALUES)
    if verb == "run":
        operands = operands[:1]
    names = []
    for spec in operands:
        path, at, _ = spec.partition("@")
        if _LOCAL.search(spec) or "." not in path.split("/", 1)[0] or "/" not in path:
            continue  # ./cmd/x, all, std, go@1.22 and toolchain@…: no module path
        if at or verb == "get":
            names.append(path)
    return Named("go", tuple(names), asks=verb != "get") if names else None


_GEM_VALUES = frozenset("""-v --version -i --install-dir -n --bindir --build-root --platform
-s --source -P --trust-policy --document --without --target-rbconfig --config-file
-g --gem""".split())
_GEM_MANIFEST = frozenset({"-g", "--file"})


def _gem(args: list[str | None]) -> Named | None:
    """``gem install NAME[:VERSION]…`` and ``gem exec [-g NAME] COMMAND`` (a gem's program run
    by name, fetching the gem first as ``npx`` does); ``gem install -g`` reads the Gemfile."""
    verb = args[0] if args else None
    rest = args[1:]
    if verb == "install":
        if any((a or "").split("=", 1)[0] in _GEM_MANIFEST for a in rest):
            return None
        operands, _ = _operands(rest, _GEM_VALUES)
    elif verb == "exec":
        given = [rest[i + 1] or "" for i, a in enumerate(rest[:-1]) if a in ("-g", "--gem")]
        given += [(a or "")[len("--gem="):] for a in rest if (a or "").startswith("--gem=")]
        operands = given or _operands(rest, _GEM_VALUES)[0][:1]
    else:
        return None
    names = [spec.split(":", 1)[0] for spec in operands
             if not (spec and (_LOCAL.search(spec) or spec.endswith(".gem") or "/" in spec))]
    return Named("rubygems", tuple(names)) if names else None


_BUNDLE_VALUES = frozenset("""-v --version -g --group -s --source -r --require --branch --ref
--glob --gemfile""".split())


def _bundle(args: list[str | None]) -> Named | None:
    """``bundle add NAME…`` (resolves and installs them); with ``--git``, ``--github`` or
    ``--path`` the gem comes from that source, not the index: nothing is read."""
    if args[:1] != ["add"]:
        return None
    if any((a or "").split("=", 1)[0] in ("--git", "--github", "--path") for a in args):
        return None
    operands, _ = _operands(args[1:], _BUNDLE_VALUES)
    return Named("rubygems", tuple(operands)) if operands else None


_CARGO_VALUES = frozenset("""--version --vers --branch --tag --rev --root --index -F --features
--bin --example --target --target-dir --profile -j --jobs --config --color -Z --rename
--manifest-path --lockfile-path -p --package --install-path""".split())


def _cargo(args: list[str | None]) -> Named | None:
    """``cargo add NAME[@V]…``, ``cargo install NAME…``, ``cargo binstall NAME…``: crates.io
    crates (``-p`` picks the project's own member, not a crate); ``--path`` installs a local
    one, ``--registry``/``--index`` another registry's (nothing read); ``--git`` a remote."""
    while args and (args[0] or "").startswith("+"):
        args = args[1:]  # cargo +nightly install …
    if not args or args[0] not in ("add", "install", "binstall"):
        return None
    rest = args[1:]
    options = {(a or "").split("=", 1)[0] for a in rest}
    if options & {"--path", "--registry", "--index"}:
        return None
    git = [rest[i + 1] or "" for i, a in enumerate(rest[:-1]) if a == "--git"]
    git += [(a or "")[len("--git="):] for a in rest if (a or "").startswith("--git=")]
    if git:
        return Named("crates", (), tuple(git))
    operands, _ = _operands(rest, _CARGO_VALUES)
    names = [spec.split("@", 1)[0] for spec in operands if not (spec and _LOCAL.search(spec))]
    return Named("crates", tuple(names)) if names else None


# deno's options that take a separate value (its permission options take theirs after ``=``).
_DENO_VALUES = frozenset("""-c --config --import-map --lock --cert --location --seed -L
--log-level --ext --env-file -n --name --root -o --output --target --include --exclude --port
--host --inspect-wait --v8-flags""".split())
_DENO_RUNS = frozenset({"run", "x", "install", "i", "add", "compile", "serve"})
JSR_STANDARD = ("jsr:@std/", "jsr:/@std/")  # the Deno standard library, published by Deno


def _deno(args: list[str | None]) -> Named | None:
    """``deno run|x|install|compile|serve MODULE``: a module from a URL is code fetched at run
    time; ``npm:NAME`` is the npm package NAME. ``deno add npm:a npm:b`` names each. A ``jsr:``
    module is code from JSR, whose names have no index here: like a URL, unless it is of the
    Deno standard library (``jsr:@std/…``). A local file names nothing."""
    verb = args[0] if args else None
    if verb not in _DENO_RUNS:
        return None
    operands, _ = _operands(args[1:], _DENO_VALUES)
    specs = operands if verb == "add" else operands[:1]
    names = [s[4:] for s in specs if s.startswith("npm:")]
    found = _npm_names(names) if names else None
    remote = tuple(s for s in specs if _REMOTE.match(s) or (
        s.startswith("jsr:") and not s.startswith(JSR_STANDARD)))
    if found is None:
        return Named("npm", (), remote) if remote else None
    return Named("npm", found.names, found.remote + remote)


_CREATE = frozenset({"init", "create", "innit"})


def _initializer(args: list[str | None], verbs: frozenset[str] = _CREATE) -> Named | None:
    """``npm init NAME`` / ``npm create NAME`` (``yarn``/``pnpm``/``bun create NAME``) runs the
    package ``create-NAME`` (``@scope`` runs ``@scope/create``, ``@scope/x`` runs
    ``@scope/create-x``), as ``npx create-NAME`` does; ``npm init`` alone writes a
    package.json and names nothing."""
    if not args or args[0] not in verbs:
        return None
    operands, _ = _operands(args[1:], _NPM_VALUES)
    spec = operands[0] if operands else ""
    if not spec:
        return None
    if spec.startswith("@"):
        scope, _, rest = spec.partition("/")
        spec = f"{scope}/create" + (f"-{rest}" if rest else "")
    elif not _URLISH.match(spec) and not _LOCAL.search(spec):
        spec = "create-" + spec
    return _npm_names([spec])


_NPM_ADD = frozenset({"install", "i", "add", "isntall", "in", "ins", "inst", "insta",
                      "instal", "isnt", "isnta", "isntal"})
_READERS: dict[str, _Reader] = {
    "pip": _pip,
    "uv": _uv,
    "uvx": _runner("pypi"),
    "poetry": _sub(frozenset({"add"}), False, "pypi"),
    "pipx": lambda a: (_running(_sub(frozenset({"run"}), True, "pypi"))(a)
                       or _sub(frozenset({"install"}), True, "pypi")(a)),
    "npm": lambda a: (_running(_sub(frozenset({"exec", "x"}), True, "npm"))(_verb_first(a))
                      or _sub(_NPM_ADD, False, "npm")(a) or _initializer(a)),
    "npx": _runner("npm"),
    "pnpm": lambda a: (_running(_sub(frozenset({"dlx"}), True, "npm"))(_verb_first(a))
                       or _sub(frozenset({"add"}), False, "npm")(a)
                       or _initializer(a, frozenset({"create"}))),
    "pnpx": _runner("npm"),
    "yarn": lambda a: (_running(_sub(frozenset({"dlx"}), True, "npm"))(_verb_first(a))
                       or _sub(frozenset({"add"}), False, "npm")(a[1:] if a[:1] == ["global"]
                                                                 else a)
                       or _initializer(a, frozenset({"create"}))),
    "bun": lambda a: (_running(_sub(frozenset({"x"}), True, "npm"))(_verb_first(a))
                      or _sub(frozenset({"add", "a", "install", "i"}), False, "npm")(a)
                      or _initializer(a, frozenset({"create", "c"}))),
    "bunx": _runner("npm"),
    "deno": _deno,
    "dx": lambda a: _deno(["x", *a]),  # dx MODULE is deno x MODULE
    "go": _go,
    "gem": _gem,
    "bundle": _bundle,
    "cargo": _cargo,
}
PROGRAMS = frozenset({*_READERS, "python"})
