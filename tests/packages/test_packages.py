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


def test_shipped_data_has_its_source_and_popular_names() -> None:
    for registry, names in (("pypi", ("requests", "numpy", "boto3")),
                            ("npm", ("react", "express", "@types/node"))):
        found = index(registry)
        assert found.size > 10_000
        assert all(found.known(n) for n in names)
    from pathlib import Path

    import clawgate.packages as pkg
    for name in ("pypi.txt", "npm.txt"):
        head = (Path(pkg.__file__).parent / name).read_text(encoding="utf-8")[:800]
        assert "Source" in head and "2026" in head


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


def test_near_finds_two_edits_only_on_long_names() -> None:
    small = Index("npm", ["express", "typescript-eslint"])
    assert small.near("exprezzz") is None  # two edits from a 7-letter name
    assert small.near("typescrpt-esslint") == "typescript-eslint"
    assert small.near("expres") == "express"
    assert len("expres") >= SHORTEST


@pytest.mark.parametrize(("argv", "expected"), [
    ("pip install -U pip wheel", Named("pypi", ("pip", "wheel"))),
    ("python3.11 -m pip install requests==2.31 ./local", Named("pypi", ("requests",))),
    ("pip install requests[socks]>=2", Named("pypi", ("requests",))),
    ("pip install -r r.txt -e .", None),
    ("pip install git+https://x.example/a.git", Named("pypi", (), ("git+https://x.example/a.git",))),
    ("uv add --dev pytest", Named("pypi", ("pytest",))),
    ("uvx --from black==24 black .", Named("pypi", ("black",))),
    ("uvx --python 3.12 ruff check", Named("pypi", ("ruff",))),
    ("pipx run cowsay hi", Named("pypi", ("cowsay",))),
    ("npm i -D @types/node@20 express@^4", Named("npm", ("@types/node", "express"))),
    ("npm install", None),
    ("npm ci", None),
    ("npx -y create-vite my-app", Named("npm", ("create-vite",))),
    ("npx --package=cowsay cowsay hi", Named("npm", ("cowsay",))),
    ("pnpm dlx create-vite", Named("npm", ("create-vite",))),
    ("yarn add a b", Named("npm", ("a", "b"))),
    ("yarn global add a", Named("npm", ("a",))),
    ("bun add ./local-pkg", None),
    ("npm i x@npm:lodash@4", Named("npm", ("lodash",))),
    ("cargo add serde", None),
    ("go run golang.org/x/tools/cmd/stringer@v0.1.0 -type=T",
     Named("go", ("golang.org/x/tools/cmd/stringer",))),
    ("go run -tags x example.com/m@latest", Named("go", ("example.com/m",))),
    ("go run ./cmd/x", None),
    ("go run main.go -debug", None),
    ("gem install rails", None),
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
