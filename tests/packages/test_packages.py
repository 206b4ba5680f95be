"""The popular-name index, the edit distance and the reading of install commands."""

from __future__ import annotations

import pytest

from clawgate.packages import SHORTEST, Index, index, normalise, osa_distance
from clawgate.packages.installs import Named, named


@pytest.mark.parametrize(("a", "b", "distance"), [
    ("requests", "requests", 0),
    ("reqeusts", "requests", 1),  # a swap is one edit
    ("requestss", "requests", 1),
    ("rquests", "requests", 1),
    ("requezts", "requests", 1),
    ("reqeustss", "requests", 2),
    ("abcdef", "uvwxyz", 3),  # above the limit: limit + 1
])
def test_osa_distance(a: str, b: str, distance: int) -> None:
    assert osa_distance(a, b, 2) == distance


def test_pep503_and_npm_names() -> None:
    assert normalise("pypi", "Python_Dateutil") == "python-dateutil"
    assert normalise("pypi", "zope.interface") == "zope-interface"
    assert normalise("npm", "@Types/Node") == "@types/node"


def test_gem_crate_and_go_names() -> None:
    assert normalise("rubygems", "Ahoy_Matey") == "ahoy-matey"
    assert normalise("crates", "serde_json") == "serde-json"
    assert normalise("go", "github.com/Sirupsen/logrus") == "github.com/sirupsen/logrus"


@pytest.mark.parametrize(("registry", "least", "names"), [
    ("pypi", 30_000, ("requests", "numpy", "boto3", "pypi-attestations")),
    ("npm", 40_000, ("react", "express", "@types/node", "weak-napi")),
    ("rubygems", 1_000, ("rails", "rspec", "rake", "nokogiri", "psych", "fileutils")),
    ("crates", 2_000, ("serde", "serde_json", "tokio", "ripgrep", "md-5", "clap")),
    ("go", 2_000, ("github.com/spf13/cobra", "golang.org/x/tools/cmd/goimports",
                   "gopkg.in/yaml.v3")),
])
def test_shipped_data_has_its_source_and_popular_names(registry: str, least: int,
                                                       names: tuple[str, ...]) -> None:
    found = index(registry)
    assert found.size > least
    assert all(found.known(n) for n in names)
    from pathlib import Path

    import clawgate.packages as pkg
    head = (Path(pkg.__file__).parent / f"{registry}.txt").read_text(encoding="utf-8")[:1200]
    assert "Source" in head and "2026" in head and "scripts/package_lists.py" in head


@pytest.mark.parametrize(("typed", "target"), [
    ("reqeusts", "requests"),
    ("requestss", "requests"),
    ("pythondateutil", "python-dateutil"),
    ("python_dateutil", None),  # the same name, spelled as PEP 503 allows
    ("requests", None),
    ("abcd", None),  # too short to tell a typo from a name
])
def test_near_names(typed: str, target: str | None) -> None:
    assert index("pypi").near(typed) == target


@pytest.mark.parametrize(("registry", "typed", "target"), [
    ("rubygems", "rials", "rails"),
    ("rubygems", "nokogiry", "nokogiri"),
    ("rubygems", "rspec_core", None),  # the same name as Debian spells it
    ("rubygems", "pg", None),  # too short
    ("crates", "serde-jsno", "serde-json"),
    ("crates", "ripgerp", None),  # ripgrep: a program no package depends on, no target
    ("crates", "rustfmt", None),  # beside rustfft, depended on by few: no target
    ("crates", "cargo-edti", None),  # likewise (cargo-edit: a program)
    ("crates", "crc64fast", None),  # a digit for a digit: a version, not a typo
    ("crates", "serde-jsonnn", None),  # two edits: Debian's lists take one
    ("go", "github.com/spf31/cobra", "github.com/spf13/cobra"),
    ("go", "githb.com/spf13/cobra/cobra", "github.com/spf13/cobra"),
    ("go", "golang.org/x/tolls/cmd/goimports", None),  # only golang.org can publish there
    ("go", "github.com/spf13/cobar", None),  # only spf13 can open that repository
    ("go", "gopkg.in/yamll.v3", "gopkg.in/yaml.v2"),  # the first of its versions
    ("go", "github.com/spf13/cobra/v2", None),  # known: a package path inside it
    ("go", "gopkg.in/yaml.v9", None),  # another major version
    ("go", "github.com/lip/pq", None),  # a short segment
    ("go", "github.com/someone/tool", None),
])
def test_near_names_of_debians_lists(registry: str, typed: str, target: str | None) -> None:
    assert index(registry).near(typed) == target


def test_near_finds_two_edits_only_on_long_names() -> None:
    small = Index("npm", ["express", "typescript-eslint"])
    assert small.near("exprezzz") is None  # two edits from a 7-letter name
    assert small.near("typescrpt-esslint") == "typescript-eslint"
    assert small.near("expres") == "express"
    assert len("expres") >= SHORTEST


@pytest.mark.parametrize(("argv", "expected"), [
    ("pip install -U pip wheel", Named("pypi", ("pip", "wheel"))),
    ("python3.11 -m pip install requests==2.31 ./local", Named("pypi", ("requests",))),
    ("python3 -mpip install requests", Named("pypi", ("requests",))),
    ("python3 -X dev -W ignore -m pip install requests", Named("pypi", ("requests",))),
    ("python3 -c 'import pip' install requests", None),
    ("python3 script.py -m pip install requests", None),
    ("pip install requests[socks]>=2", Named("pypi", ("requests",))),
    ("pip install -r r.txt -e .", None),
    ("python -m pip install .[colorama] --group pyinstaller", None),  # the project, extras
    ("pip install ..[test,docs] ./sub[x]", None),
    ("pip install .[test] reqeusts", Named("pypi", ("reqeusts",))),
    ("pip install git+https://x.example/a.git", Named("pypi", (), ("git+https://x.example/a.git",))),
    ("uv add --dev pytest", Named("pypi", ("pytest",))),
    ("uvx --from black==24 black .", Named("pypi", ("black",), runs=True)),
    ("uvx --python 3.12 ruff check", Named("pypi", ("ruff",), runs=True)),
    ("pipx run cowsay hi", Named("pypi", ("cowsay",), runs=True)),
    # -p: the Python, not a package
    ("uvx -p 3.12 ruff check", Named("pypi", ("ruff",), runs=True)),
    # --with: ruff's own
    ("uvx --from ruff ruff check --with x", Named("pypi", ("ruff",), runs=True)),
    ("uv pip install . --group test --resolution lowest-direct", None),
    ("uv pip install --prerelease allow --index-strategy unsafe-best-match httpx",
     Named("pypi", ("httpx",))),
    ("uv pip install -P urllib3 --exclude-newer 2024-01-01 -e .", None),
    ("pip install --use-feature truststore --keyring-provider subprocess .", None),
    ("uv add --bounds major --script s.py rich", Named("pypi", ("rich",))),
    ("npm i -D @types/node@20 express@^4", Named("npm", ("@types/node", "express"))),
    ("npm install", None),
    ("npm ci", None),
    ("npx -y create-vite my-app", Named("npm", ("create-vite",), runs=True)),
    ("npx --package=cowsay cowsay hi", Named("npm", ("cowsay",), runs=True)),
    ("npx -p typescript tsc -p tsconfig.json", Named("npm", ("typescript",), runs=True)),
    ("npx tsc -p tests/lib/types/tsconfig.json", Named("npm", ("tsc",), runs=True)),
    # eslint's option, not npx's
    ("npx eslint --package x.json", Named("npm", ("eslint",), runs=True)),
    ("yarn dlx -p renovate renovate-config-validator -p y", Named("npm", ("renovate",), runs=True)),
    ("npm exec --package=cowsay -- cowsay -p x", Named("npm", ("cowsay",), runs=True)),
    ("npm i --before 2024-01-01 --lockfile-version 3 lodash", Named("npm", ("lodash",))),
    ("pnpm dlx create-vite", Named("npm", ("create-vite",), runs=True)),
    # an option before the verb is the verb's; an archive at an address is no local path
    ("pnpm --package=github:o/t dlx t", Named("npm", (), ("github:o/t",), runs=True)),
    ("npx https://x.example/t.tgz", Named("npm", (), ("https://x.example/t.tgz",), runs=True)),
    ("npm install ./t.tgz", None),
    ("pipx install git+https://x.example/t", Named("pypi", (), ("git+https://x.example/t",))),
    ("yarn add a b", Named("npm", ("a", "b"))),
    ("yarn global add a", Named("npm", ("a",))),
    ("bun add ./local-pkg", None),
    ("npm i x@npm:lodash@4", Named("npm", ("lodash",))),
    ("cargo add serde", Named("crates", ("serde",))),
    ("cargo add serde@1 -F derive -p core", Named("crates", ("serde",))),
    ("cargo +nightly install --locked cargo-edit", Named("crates", ("cargo-edit",))),
    ("cargo install --path .", None),
    ("cargo add --registry corp internal-crate", None),
    ("cargo install --git https://x.example/t.git tool",
     Named("crates", (), ("https://x.example/t.git",))),
    ("cargo build --release", None),
    ("go install golang.org/x/tools/cmd/goimports@latest",
     Named("go", ("golang.org/x/tools/cmd/goimports",))),
    ("go install ./cmd/x", None),
    ("go install", None),
    ("go get github.com/a/b@v1 golang.org/x/net",
     Named("go", ("github.com/a/b", "golang.org/x/net"), asks=False)),
    ("go get -u ./...", None),
    ("go get go@1.22 toolchain@go1.22.1", None),
    ("go mod download", None),
    ("go run golang.org/x/tools/cmd/stringer@v0.1.0 -type=T",
     Named("go", ("golang.org/x/tools/cmd/stringer",))),
    ("go run -tags x example.com/m@latest", Named("go", ("example.com/m",))),
    ("go run ./cmd/x", None),
    ("go run main.go -debug", None),
    ("gem install rails", Named("rubygems", ("rails",))),
    ("gem install rspec:3.13 -v 3.13.0 --install-dir foo", Named("rubygems", ("rspec",))),
    ("gem install -g Gemfile", None),
    ("gem install ./pkg/x-1.0.gem", None),
    ("gem install x-1.0.gem", None),
    ("gem exec rails new app --minimal", Named("rubygems", ("rails",))),
    ("gem exec -g railties rails new app", Named("rubygems", ("railties",))),
    ("gem list", None),
    ("bundle add rspec-rails sqlite3 --group test", Named("rubygems", ("rspec-rails",
                                                                      "sqlite3"))),
    ("bundle add fileutils --git https://x.example/fileutils", None),
    ("bundle install", None),
    ("bundle exec rake", None),
    ("python app.py", None),
])
def test_named(argv: str, expected: Named | None) -> None:
    assert named(list(argv.split())) == expected


def test_names_in_a_popular_scope_are_no_typosquats() -> None:
    """Only a scope's owner publishes in it: ``@types/dc`` is not a squat of ``@types/d3``;
    a look-alike scope still is."""
    found = index("npm")
    assert found.near("@types/nodee") is None
    assert found.near("@typess/node") == "@types/node"
