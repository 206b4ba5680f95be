"""What a build, an install or a test run brings back: deleting it loses nothing.

A path inside the workspace is regenerable when one of its components (from the workspace
down) is a name below, or matches one of its globs: ``build/lib`` and ``pkg/__pycache__`` are,
``src`` is not; or is one of the names the ignore templates projects start from declare are
not source, where it means output in every project that uses it (``cover``, ``.psci_modules``,
``cdk.out``: ``clawgate.ignoretemplates``, derived from github/gitignore and reviewed). Policies
add names with ``paths.regenerable``.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from clawgate.ignoretemplates import template_names

REGENERABLE_NAMES = frozenset({
    # build output
    "build", "dist", "target", "out", "_build", "obj", "cmakefiles", "dist-newstyle",
    "storybook-static", "_site", "site", ".output", "lib-cov", "bin-debug", "bin-release",
    "ebin", "zig-out", "zig-cache", ".zig-cache", ".build", "deriveddata", "nimcache",
    "autom4te.cache", ".libs", ".deps",  # autoconf's cache, libtool's and automake's output
    # caches
    "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".pytype", ".pyre",
    ".hypothesis", ".cache", ".parcel-cache", ".turbo", ".eslintcache", ".sass-cache",
    ".gradle", ".next", ".nuxt", ".svelte-kit", ".angular", ".docusaurus", ".expo",
    ".ccls-cache", ".clangd", ".stack-work", "elm-stuff", ".cpcache", ".benchmarks",
    ".nyc_output", "coverage", "htmlcov", ".coverage", ".dart_tool", ".terraform",
    ".kotlin", ".phpunit.cache", ".phpunit.result.cache", ".php-cs-fixer.cache",
    ".php_cs.cache", ".yardoc", ".rspec_status", ".vite", ".rollup.cache", ".stylelintcache",
    ".prettiercache", ".jest-cache",
    # installed dependencies and environments
    "node_modules", ".venv", "venv", ".tox", ".nox", ".eggs", "bower_components",
    ".pnpm-store", ".yarn-cache", "_opam", ".cabal-sandbox", ".elixir_ls",
    "pods",  # CocoaPods' installed pods (ios/Pods): pod install brings them back
    # build output and caches of mobile, Apple, .NET, JVM, infrastructure and notebook tools
    ".swiftpm", "xcuserdata", ".flutter-plugins", ".flutter-plugins-dependencies", ".cxx",
    ".externalnativebuild", "testresults", ".terragrunt-cache", ".ipynb_checkpoints",
    ".bloop", ".metals", ".bsp", ".shadow-cljs", ".ansible",
    "jupyter_execute",  # notebooks executed into the docs build (myst-nb, jupyter-sphinx)
    "generated",  # code or docs a generator writes (src/generated, sphinx's generated/)
    # scratch
    "tmp", ".tmp", "temp",
    # lockfiles: the package manager writes them again (rm -rf node_modules package-lock.json)
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb",
    "bun.lock", "poetry.lock", "pdm.lock", "uv.lock", "pipfile.lock", "cargo.lock",
    "gemfile.lock", "composer.lock", "package.resolved", "podfile.lock", "pubspec.lock",
    "packages.lock.json", "deno.lock", "mix.lock", ".terraform.lock.hcl",
})
# (Logs are not rebuilt, but they are written to be thrown away: truncate -s 0 app.log.)
# Profiler output (perf.data), R CMD check's output (pkg.Rcheck).
# Editors' swap and lock files: vim's .swp, .swo … .swa, emacs's #name# and .#name.
REGENERABLE_GLOBS = ("*.log", "*.egg-info", "*.egg", "*.pyc", "*.pyo", "*.o", "*.obj", "*.class",
                     "*.gcda", "*.gcno", "*.gcov", "*.tsbuildinfo", "*.orig", "*.rej", "*~",
                     "*.sw[a-p]", "#*#", ".#*", ".ds_store", "cmake-build-*", "bazel-*",
                     ".coverage.*", "*.profraw", "*.dsym", "perf.data*", "*.rcheck",
                     # compiled objects and libraries of C, Erlang and Haskell builds
                     "*.so", "*.dylib", "*.a", "*.lo", "*.la", "*.gch", "*.pch", "*.beam",
                     "*.pyd",  # a compiled Python extension module (Windows' *.so)
                     "*.hi", "*.dyn_o", "*.dyn_hi", ".ghc.environment.*")


def regenerable(path: str, workspace: str, extra: tuple[str, ...] = ()) -> bool:
    """``path`` (absolute, normalised) lies strictly inside the workspace, under a name that a
    build, an install or a test run brings back."""
    if workspace == "/" or not path.startswith(workspace + "/"):
        return False
    templated = template_names()
    for part in path[len(workspace) + 1 :].split("/"):
        spelled = alternatives(part)
        if spelled and all(_named(p, templated, extra) for p in spelled):
            return True
    return False


def regenerable_name(name: str, extra: tuple[str, ...] = ()) -> bool:
    """``name`` (one path component) is one a build, an install or a test run brings back,
    in every spelling the file system may give it."""
    spelled = alternatives(name)
    return bool(spelled) and all(_named(p, template_names(), extra) for p in spelled)


def _named(part: str, templated: frozenset[str], extra: tuple[str, ...]) -> bool:
    lowered = part.lower()
    return (lowered in REGENERABLE_NAMES or lowered in templated
            or any(fnmatchcase(lowered, g) for g in REGENERABLE_GLOBS)
            or any(fnmatchcase(part, e) for e in extra))


def alternatives(part: str) -> list[str]:
    """``part`` spelled once per character of each bracket set it holds, as a pattern of a
    delete (``find -name '*.py[cod]'``) names ``*.pyc``, ``*.pyo`` and ``*.pyd``; empty where
    a set is one this does not spell out (a negation, a class, a range, an unclosed one)."""
    found = [""]
    rest = part
    while "[" in rest:
        before, _, after = rest.partition("[")
        members, closed, rest = after.partition("]")
        if not closed or not members or set(members) & set("!^-[:\\") or len(found) > 16:
            return []
        found = [f + before + m for f in found for m in members]
    return [f + rest for f in found]
