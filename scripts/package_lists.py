"""Rebuild the package-name lists of ``src/clawgate/packages/`` (pypi, npm, rubygems, crates, go).

The lists are data with their source and date in their headers; this script is how they were
made, and how to make them again. It asks no registry itself: it reads files fetched by hand.

PyPI (``pypi.txt``): every project that was among the most downloaded of PyPI in any monthly
snapshot of hugovk/top-pypi-packages (the 30-day and 365-day files, 4,000 rows a month in 2018
up to 15,000 since 2025, taken from PyPI's public download data), plus the 15,000 ranks of the
PyPI package list passed with ``--pypi-tsv``; projects that list no longer holds (deleted names,
which anyone may register again) are left out. Most downloaded first: the newest snapshot's
order, then the tsv's ranks, then the older snapshots', newest first::

    git clone https://github.com/hugovk/top-pypi-packages  /tmp/top-pypi-packages
    python scripts/package_lists.py pypi --top-pypi /tmp/top-pypi-packages \\
        --pypi-tsv pypi.tsv --date 2026-11

``pypi.tsv`` is a tab-separated list of PyPI's projects with the columns ``name``, ``version``,
``month``, ``rank_among_15000_most_downloaded`` and ``summary``.

npm (``npm.txt``): the ``--npm-count`` most downloaded names of a tab-separated list of the npm
registry's packages with the columns ``name``, ``version``, ``downloads_a_month``::

    python scripts/package_lists.py npm --npm-tsv npm.tsv --date 2026-11

RubyGems, crates.io and Go modules (``rubygems.txt``, ``crates.txt``, ``go.txt``): no download
ranking of those registries is reachable from where clawgate is built, so the lists are the gems,
crates and modules Debian packages (established enough for a distribution to carry them), in its
stable release and in unstable (where new packages enter once Debian's archive team accepted
them), most depended on within Debian first: fetch each suite's ``main`` Packages and Sources
indexes with apt into a private directory (``Types: deb deb-src``, ``Suites: trixie`` or
``sid``, ``Components: main``; ``apt-get update -o Dir::State::Lists=DIR -o
Dir::Etc::SourceParts=DIR2 -o Dir::Etc::SourceList=/dev/null``), decompress them (``lz4
-dc``), then::

    python scripts/package_lists.py debian \\
        --packages trixie/Packages --sources trixie/Sources \\
        --packages sid/Packages --sources sid/Sources \\
        --release "Debian 13.8 (trixie, 2026-11-21) and unstable (sid, 2026-10-30)"

Gems: the ``ruby-NAME`` packages and provides of the Ruby sections (and ``libruby``'s default
gems), and the programs gem2deb builds under their gem's name (``rails``, ``rake``). Crates: the
crate names the ``librust-*-dev`` packages provide, and the programs dh-cargo builds from a
``rust-NAME`` source. Go modules: the ``Go-Import-Path`` of every source.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "clawgate" / "packages"
_PEP503 = re.compile(r"[-_.]+")
_FILES = ("top-pypi-packages-30-days.json", "top-pypi-packages-30-days.min.json",
          "top-pypi-packages.json", "top-pypi-packages.min.json",
          "top-pypi-packages-365-days.json", "top-pypi-packages-365-days.min.json")


def _pep503(name: str) -> str:
    return _PEP503.sub("-", name.lower())


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=False).stdout


def _snapshots(repo: Path) -> Iterator[tuple[str, str, list[str]]]:
    """(last_update, file, projects in rank order) of every stored version of the rank files,
    newest commit first."""
    seen: set[str] = set()
    for commit in _git(repo, "log", "--format=%H", "--", *_FILES).split():
        for name in _FILES:
            blob = _git(repo, "rev-parse", "--verify", "--quiet", f"{commit}:{name}").strip()
            if not blob or blob in seen:
                continue
            seen.add(blob)
            try:
                data = json.loads(_git(repo, "cat-file", "blob", blob))
            except ValueError:
                continue
            if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
                continue
            rows = [r.get("project") for r in data["rows"] if isinstance(r, dict)]
            yield str(data.get("last_update", "")), name, [r for r in rows if isinstance(r, str)]


def _write(name: str, header: list[str], names: list[str]) -> None:
    text = "".join(f"# {line}\n" if line else "#\n" for line in header)
    (OUT / name).write_text(text + "".join(f"{n}\n" for n in names), encoding="utf-8")
    print(f"{name}: {len(names):,} names", file=sys.stderr)


def pypi(args: argparse.Namespace) -> None:
    csv.field_size_limit(1 << 24)
    existing: set[str] = set()
    ranked: list[tuple[int, str]] = []
    with open(args.pypi_tsv, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            name = _pep503(row["name"])
            existing.add(name)
            rank = (row.get("rank_among_15000_most_downloaded") or "").strip()
            if rank.isdigit():
                ranked.append((int(rank), name))
    snapshots = sorted(_snapshots(Path(args.top_pypi)), key=lambda s: s[0], reverse=True)
    order: dict[str, None] = {}
    newest = snapshots[0]
    for project in newest[2]:
        order.setdefault(_pep503(project), None)
    for _, name in sorted(ranked):
        order.setdefault(name, None)
    for _, _, projects in snapshots[1:]:
        for project in projects:
            order.setdefault(_pep503(project), None)
    names = [n for n in order if n in existing]
    months = sorted({s[0][:7] for s in snapshots if s[0]})
    head = _git(Path(args.top_pypi), "rev-parse", "HEAD").strip()
    _write("pypi.txt", [
        "The most-downloaded PyPI projects, most downloaded first, names normalised as PEP 503 "
        "says.",
        f"Sources: hugovk/top-pypi-packages@{head}: every project among the most downloaded in "
        f"any of its {len({s[0] for s in snapshots})} dated snapshots",
        f"  ({months[0]} to {months[-1]}; 4,000 to 15,000 projects each by 30-day or 365-day "
        "downloads, from PyPI's public download data),",
        f"  then the PyPI package list of {args.date} (its rank_among_15000_most_downloaded "
        "column); names that list no longer holds are left out.",
        "Rebuild: scripts/package_lists.py pypi. clawgate reads it lazily (clawgate.packages): "
        "installing a name not in it asks;",
        "one edit or two from one of its first entries without being one is denied.",
    ], names)


def npm(args: argparse.Namespace) -> None:
    csv.field_size_limit(1 << 24)
    rows: list[tuple[int, str]] = []
    with open(args.npm_tsv, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            count = (row.get("downloads_a_month") or "").strip()
            if count.isdigit():
                rows.append((-int(count), row["name"]))
    rows.sort()
    kept = rows[: args.npm_count]
    names = list(dict.fromkeys(name.lower() for _, name in kept))
    _write("npm.txt", [
        f"The most-downloaded npm packages (the first {args.npm_count:,} rows by downloads; "
        f"{len(names):,} names in lower case), most downloaded first.",
        f"Source: the npm registry's package list with monthly download counts, as of {args.date}",
        f"  (the downloads_a_month column); the last one kept had {-kept[-1][0]:,} downloads "
        "a month.",
        "Rebuild: scripts/package_lists.py npm. clawgate reads it lazily (clawgate.packages): "
        "installing a name not in it asks;",
        "one edit or two from one of its first entries without being one is denied.",
    ], names)


def _stanzas(path: str) -> Iterator[dict[str, str]]:
    """The fields of each paragraph of a Debian Packages or Sources index (continuation lines
    joined)."""
    fields: dict[str, str] = {}
    key = ""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if not line:
                if fields:
                    yield fields
                fields, key = {}, ""
            elif line[0] in " \t":
                if key:
                    fields[key] += " " + line.strip()
            else:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
    if fields:
        yield fields


def _relations(value: str) -> list[str]:
    """Package names of a Depends/Provides/Binary field."""
    return [m.group(1) for part in value.split(",")
            if (m := re.match(r"\s*([a-z0-9][a-z0-9+.-]*)", part.split("|")[0]))]


def _upstream(version: str) -> str:
    """``1:0.10.6-1+b2`` -> ``0.10.6``."""
    version = version.split(":", 1)[-1]
    return version.rsplit("-", 1)[0] if "-" in version else version


_DOC = re.compile(r"-(?:doc|dbg|dev|common|data|tests?)$")


_RELATIONS = ("Depends", "Pre-Depends", "Recommends")
_BUILD = ("Build-Depends", "Build-Depends-Indep", "Build-Depends-Arch")


def _dependents(packages: list[dict[str, str]],
                sources: list[dict[str, str]]) -> dict[str, set[str]]:
    """Each package name (and virtual one) to the source packages that depend on it or build
    with it: how much of Debian relies on it, the popularity Debian shows."""
    found: dict[str, set[str]] = {}
    for stanza in packages:
        source = stanza.get("Source", stanza.get("Package", "")).split(" ", 1)[0]
        for field in _RELATIONS:
            for name in _relations(stanza.get(field, "")):
                found.setdefault(name, set()).add(source)
    for stanza in sources:
        for field in _BUILD:
            for name in _relations(stanza.get(field, "")):
                found.setdefault(name, set()).add(stanza.get("Package", ""))
    return found


def _ranked(names: dict[str, set[str]], dependents: dict[str, set[str]],
            own: dict[str, str]) -> list[tuple[int, str]]:
    """(dependents, name), most depended on first: ``names`` maps each name to its Debian
    package names, ``own`` a package name to its source (its own source does not count)."""
    ranked = []
    for name, debs in names.items():
        users: set[str] = set()
        for deb in debs:
            users |= dependents.get(deb, set()) - {own.get(deb, "")}
        ranked.append((len(users), name))
    return sorted(ranked, key=lambda r: (-r[0], r[1]))


def _gems(packages: list[dict[str, str]], sources: list[dict[str, str]]) -> dict[str, set[str]]:
    gems: dict[str, set[str]] = {}
    for stanza in packages:
        name = stanza.get("Package", "")
        ruby = stanza.get("Section", "") == "ruby" or name.startswith("libruby")
        if not ruby:
            continue
        for provided in [name, *_relations(stanza.get("Provides", ""))]:
            if provided.startswith("ruby-") and not _DOC.search(provided):
                gems.setdefault(provided[len("ruby-"):].replace("_", "-"), set()).add(provided)
    for stanza in sources:
        build = stanza.get("Build-Depends", "") + "," + stanza.get("Build-Depends-Indep", "")
        source = stanza.get("Package", "")
        if "gem2deb" in _relations(build) and not source.startswith("ruby-") \
                and source in _relations(stanza.get("Binary", "")):
            gems.setdefault(source, set()).add(source)  # rails, rake: the program, as the gem
    return gems


def _crates(packages: list[dict[str, str]], sources: list[dict[str, str]]
            ) -> dict[str, set[str]]:
    crates: dict[str, set[str]] = {}
    for stanza in packages:
        name = stanza.get("Package", "")
        if not (name.startswith("librust-") and name.endswith("-dev")):
            continue
        version = _upstream(stanza.get("Version", ""))
        suffix = f"-{version}-dev"
        provides = [name, *_relations(stanza.get("Provides", ""))]
        for provided in provides:
            if provided.endswith(suffix) and "+" not in provided:
                crate = provided[len("librust-"):-len(suffix)].replace("_", "-")
                crates.setdefault(crate, set()).update(provides)
    for stanza in sources:
        source = stanza.get("Package", "")
        build = stanza.get("Build-Depends", "")
        if not source.startswith("rust-") or "dh-cargo" not in _relations(build):
            continue
        crate = source[len("rust-"):]
        version = _upstream(stanza.get("Version", ""))
        major = re.match(r"^(.*)-(\d+(?:\.\d+)?)$", crate)
        if major and version.startswith(major.group(2) + "."):
            crate = major.group(1)  # rust-clap-2 at 2.34.0: the crate clap
        crates.setdefault(crate.replace("_", "-"), set()).update(
            _relations(stanza.get("Binary", "")))
    return crates


def _modules(sources: list[dict[str, str]]) -> dict[str, set[str]]:
    modules: dict[str, set[str]] = {}
    for stanza in sources:
        for path in re.split(r"[\s,]+", stanza.get("Go-Import-Path", "")):
            if "/" in path and "." in path.split("/", 1)[0]:
                modules.setdefault(path.lower(), set()).update(
                    _relations(stanza.get("Binary", "")))
    return modules


def debian(args: argparse.Namespace) -> None:
    packages = [s for path in args.packages for s in _stanzas(path)]
    sources = [s for path in args.sources for s in _stanzas(path)]
    dependents = _dependents(packages, sources)
    own = {s.get("Package", ""): s.get("Source", s.get("Package", "")).split(" ", 1)[0]
           for s in packages}
    where = f"Source: {args.release}: their main Packages and Sources indexes."
    order = ("Most depended on first: by how many Debian source packages depend on or build "
             "with it (Debian's own measure of use).")
    rebuild = ("Rebuild: scripts/package_lists.py debian. clawgate reads it lazily "
               "(clawgate.packages): installing a name not in it asks;")
    deny = ("a name one edit from one of its first 500 entries without being one is denied (a "
            "digit for a digit is a version, not a typo).")
    for registry, what, how, names in (
        ("rubygems", "Ruby gems", [
            "names in lower case with '_' read as '-' (Debian's spelling of gem names).",
            "  The ruby-NAME packages and provides of the ruby section and libruby's default "
            "gems, and the programs gem2deb builds (rails, rake)."],
         _gems(packages, sources)),
        ("crates", "Rust crates", [
            "names in lower case with '_' read as '-' (crates.io holds one crate for both "
            "spellings).",
            "  The crate names the librust-*-dev packages provide, and programs dh-cargo builds "
            "from rust-NAME sources (ripgrep)."],
         _crates(packages, sources)),
        ("go", "Go module paths", [
            "names in lower case.",
            "  The Go-Import-Path of every source package; a package path inside one of them "
            "(golang.org/x/tools/cmd/goimports) is known."],
         _modules(sources)),
    ):
        ranked = _ranked(names, dependents, own)
        _write(f"{registry}.txt", [
            f"{what} established enough for Debian to package them (no download ranking of "
            "that registry is reachable here);",
            how[0], where, how[1], order,
            f"  ({sum(1 for n, _ in ranked if n >= 5):,} of them have 5 dependents or more.)",
            rebuild, deny,
        ], [name for _, name in ranked])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(required=True)
    one = sub.add_parser("pypi")
    one.add_argument("--top-pypi", required=True, help="a clone of hugovk/top-pypi-packages")
    one.add_argument("--pypi-tsv", required=True)
    one.add_argument("--date", required=True, help="when the tsv was made (YYYY-MM)")
    one.set_defaults(run=pypi)
    two = sub.add_parser("npm")
    two.add_argument("--npm-tsv", required=True)
    two.add_argument("--npm-count", type=int, default=50_000)
    two.add_argument("--date", required=True)
    two.set_defaults(run=npm)
    three = sub.add_parser("debian")
    three.add_argument("--packages", required=True, action="append", help="repeatable")
    three.add_argument("--sources", required=True, action="append", help="repeatable")
    three.add_argument("--release", required=True, help="the releases and their dates")
    three.set_defaults(run=debian)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
