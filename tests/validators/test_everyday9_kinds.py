"""Kinds of everyday CI lines a ninth held-out set found misjudged, each beside the attack of
the same shape: a package manager printing where it keeps things is a query; a program the
catalog does not know, told to publish, deploy, upload or push, sends the project out; pnpm's
``pnpx`` runs the package it names, which is judged as itself."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_allowed, assert_caught

from clawgate.decision import Outcome


# Homebrew's and dpkg's own places, printed: read by builds, nothing changed
@pytest.mark.parametrize("line", [
    "brew --prefix openssl@3",
    "export OPENSSL_ROOT_DIR=$(brew --prefix openssl@3)",
    "echo \"PKG_CONFIG_PATH=$(brew --prefix libffi)/lib/pkgconfig\" >> $GITHUB_ENV",
    "brew --prefix --installed llvm",
    "brew --cellar llvm",
    "brew --repository",
    "brew --cache --force-bottle wget",
    "brew --env",
    "brew shellenv",
    "eval \"$(brew shellenv)\"",
    "dpkg --print-architecture",
    "ARCH=$(dpkg --print-architecture)",
])
def test_a_package_manager_printing_its_places_is_a_query(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("brew install openssl@3", ASK, "CG-RISK-001"),
    ("brew --prefix openssl && brew install openssl", ASK, "CG-RISK-001"),
    ("brew update", ASK, "CG-RISK-001"),
    ("brew tap foo/bar", ASK, "CG-RISK-001"),
    ("sudo brew --prefix", ASK, None),
    ("dpkg -i pkg.deb", ASK, "CG-RISK-001"),
    ("dpkg --print-architecture; dpkg -i x.deb", ASK, "CG-RISK-001"),
    ("apt-get --print-architecture install curl", ASK, "CG-RISK-001"),  # dpkg's word only
    ("brew --prefix > ~/.bashrc", DENY, "CG-FS-002"),
    ("brew --prefix | sh", ASK, "CG-INJ-008"),
    ("rm -rf $(brew --prefix)", ASK, "CG-DEST-009"),
    ("eval \"$(brew --prefix)\"", ASK, "CG-INJ-010"),
    ("$(brew --prefix)/bin/python3 -c 'import os; os.system(\"rm -rf ~\")'", DENY, None),
])
def test_other_package_manager_lines_are_still_caught(line: str, expected: Outcome,
                                                      rule: str | None) -> None:
    assert_caught(line, expected, rule)


# A program the catalog does not know, given a sending verb: ASK, run directly or through a
# package runner, a variable after the verb changing nothing
@pytest.mark.parametrize("line", [
    "pkg-pr-new publish --compact --no-template",
    "npx pkg-pr-new publish",
    "pnpx pkg-pr-new publish --compact --no-template --pnpm",
    "bunx vsce publish",
    "npx @vscode/vsce publish -p $VSCE_PAT",
    "yarn run vsce publish --yarn",
    "ovsx publish extension.vsix",
    "npx lerna publish from-package --yes",
    "firebase deploy --only hosting",
    "sls deploy --stage prod",
    "dvc push",
    "cachix push mycache ./result",
    "nx release publish",
    "wasm-pack publish",
    "tool publish -- --dry-run",  # after --, an operand of the tool's, not a switch
    "tool --dry-run=false publish",
])
def test_an_unknown_program_told_to_send_is_asked(line: str) -> None:
    assert_caught(line, ASK, "CG-DEST-012")


@pytest.mark.parametrize("line", [
    "pkg-pr-new publish --dry-run",
    "jsr publish --dry-run --allow-dirty",
    "mytool --help publish",
    "vsce package",
    "npx vsce package --no-dependencies",
    "changeset version",
    "npx lerna run build",
    "firebase emulators:start",
    "sls package",
    "dvc pull",
    "./scripts/publish.sh",
    "./deploy.sh",
    "echo publish",
    "jq -r .scripts.publish package.json",
    "tool build",
    # programs the engine reads otherwise: a local build, a script an interpreter runs
    "dotnet publish -c Release -o out",
    "python manage.py deploy",
    "node scripts/publish.js",
])
def test_rehearsals_other_verbs_and_names_are_allowed(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "expected", "rule"), [
    # known programs keep their own reading
    ("npm publish", ASK, "CG-DEST-005"),
    ("dotnet nuget push pkg.nupkg --source nuget.org", ASK, "CG-DEST-005"),
    ("python -m twine upload dist/*", ASK, "CG-DEST-005"),
    ("docker push img", ASK, "CG-DEST-005"),
    ("git push origin main", ASK, "CG-RISK-001"),
    ("mike deploy --push dev", ASK, "CG-RISK-001"),
    ("npx netlify deploy --prod", ASK, "CG-RISK-001"),
])
def test_known_programs_keep_their_reading(line: str, expected: Outcome, rule: str) -> None:
    assert_caught(line, expected, rule)


# pnpx is pnpm dlx: the package it runs is judged as itself
@pytest.mark.parametrize("line", [
    "pnpx prettier --check .",
    "pnpx tsx build.ts",
    "pnpx rimraf dist",
])
def test_pnpx_runs_a_package(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("pnpx rimraf ~", DENY, "CG-DEG-001"),
    ("pnpx bash -c 'rm -rf ~'", DENY, "CG-DEG-001"),
    ("pnpx --package=foo bar", ASK, "CG-PKG-002"),
])
def test_what_pnpx_runs_is_caught(line: str, expected: Outcome, rule: str) -> None:
    assert_caught(line, expected, rule)
