"""Gems, crates and Go modules by name (CG-PKG-001/002): the ones Debian packages keep their
tier, others ask with a hint, one edit from one of them is a typosquat (DENY), and the ones the
project's own manifests declare are its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from vtables import HOME, assert_allowed, assert_caught, decision

from clawgate.decision import Outcome
from clawgate.shell import parse_one
from clawgate.validators.base import Context
from clawgate.validators.supplychain import Typosquat, UnknownPackage

ASK, DENY = Outcome.ASK, Outcome.DENY


@pytest.mark.parametrize(("line", "expected", "rule"), [
    # one edit from an established name
    ("gem install rials", DENY, "CG-PKG-001"),
    ("gem exec rials new app", DENY, "CG-PKG-001"),
    ("gem install nokogiry -v 1.16", DENY, "CG-PKG-001"),
    ("bundle add rspce", DENY, "CG-PKG-001"),
    ("cargo add serde-jsno", DENY, "CG-PKG-001"),
    ("cargo add toikio@1 -F full", DENY, "CG-PKG-001"),
    ("cargo install ripgerp", ASK, "CG-PKG-002"),  # a program: not among the targets
    ("go install github.com/spf31/cobra-cli@latest", DENY, "CG-PKG-001"),
    ("go run golang.org/x/tolls/cmd/stringer@v0.20.0 -type=T", ASK, "CG-PKG-002"),
    ("go get githb.com/spf13/cobra@v1.8.0", DENY, "CG-PKG-001"),
    # names nobody established: ask, with the hint
    ("gem install made-up-ruby-helper", ASK, "CG-PKG-002"),
    ("gem exec made-up-ruby-tool help", ASK, "CG-PKG-002"),
    ("bundle add made-up-ruby-helper", ASK, "CG-PKG-002"),
    ("cargo add made-up-rust-helper", ASK, "CG-PKG-002"),
    ("cargo install made-up-rust-tool", ASK, "CG-PKG-002"),
    ("cargo install --git https://example.com/x/tool.git", ASK, "CG-PKG-002"),
    ("go install github.com/someone/made-up-tool@v1.2.3", ASK, "CG-PKG-002"),
])
def test_caught(line: str, expected: Outcome, rule: str) -> None:
    assert_caught(line, expected, rule)


@pytest.mark.parametrize("line", [
    "gem install rspec --version 3.13.0 --install-dir foo",
    "gem install -i vendor/gems bundler:2.5.0",
    "gem exec rails new app --minimal",
    "gem exec rubocop --version",
    "bundle add rspec-rails --group test",
    "bundle add puma -v 6.4",
    "bundle install",
    "bundle exec rspec",
    "cargo add serde -F derive",
    "cargo add serde_json@1 tokio",
    "cargo add --dev pretty_assertions",
    "cargo build --release",
    "cargo test --workspace",
    "go run golang.org/x/tools/cmd/stringer@v0.20.0 -type=Pill",
    "go get github.com/spf13/cobra@v1.8.0",
    "go get -u ./...",
    "go get github.com/someone/made-up-lib@v1.2.3",  # go.mod changes: typos only
    "go mod download",
    "go install ./cmd/server",
])
def test_established_and_own_installs_are_allowed(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize("line", [
    "gem install rails",  # into the Ruby's own gems, for every project
    "cargo install ripgrep",  # a tool installed for the user: high, whatever its name
    "go install golang.org/x/tools/cmd/goimports@latest",
])
def test_global_tool_installs_keep_asking_without_a_package_rule(line: str) -> None:
    found = decision(line)
    assert found.outcome is ASK
    assert not {r.rule_id for r in found.reasons} & {"CG-PKG-001", "CG-PKG-002"}


def _ctx(tmp_path: Path) -> Context:
    return Context(str(tmp_path), str(tmp_path), HOME)


def test_the_unknown_name_hint_says_where_it_was_looked_for() -> None:
    verdict = UnknownPackage().check(parse_one("gem exec made-up-ruby-tool"),
                                     _ctx(Path("/nonexistent")))
    assert verdict.outcome is ASK
    message = verdict.reasons[0].message
    assert "Ruby gems Debian packages" in message and "Gemfile" in message
    assert verdict.reasons[0].hint


def test_a_typosquat_names_the_established_one() -> None:
    verdict = Typosquat().check(parse_one("cargo add serde-jsno"), _ctx(Path("/nonexistent")))
    assert verdict.outcome is DENY
    assert "'serde-json'" in verdict.reasons[0].message
    assert "one letter" in verdict.reasons[0].message


def test_names_the_project_declares_are_its_own(tmp_path: Path) -> None:
    (tmp_path / "Gemfile").write_text(
        'source "https://rubygems.org"\ngem "made-up-ruby-helper", "~> 1.0"\n'
        "gem('rials')\n")
    (tmp_path / "Gemfile.lock").write_text(
        "GEM\n  remote: https://rubygems.org/\n  specs:\n    locked-only-gem (0.1.0)\n"
        "      rake (>= 12)\n")
    (tmp_path / "x.gemspec").write_text(
        'Gem::Specification.new do |s|\n  s.add_development_dependency "spec-only-gem"\nend\n')
    (tmp_path / "Cargo.toml").write_text(
        '[package]\nname = "me"\n[dependencies]\nmade-up-rust-helper = "1"\n'
        'renamed = { package = "serde-jsno", version = "1" }\n'
        '[target.\'cfg(unix)\'.dev-dependencies]\nunix-only-crate = "0.1"\n'
        '[workspace.dependencies]\nworkspace-crate = "2"\n')
    (tmp_path / "Cargo.lock").write_text(
        'version = 3\n\n[[package]]\nname = "locked-only-crate"\nversion = "0.1.0"\n')
    ctx = _ctx(tmp_path)
    for line in ("gem install made-up-ruby-helper", "bundle add locked-only-gem",
                 "gem exec spec-only-gem", "cargo add made-up-rust-helper",
                 "cargo add unix-only-crate", "cargo add workspace_crate",
                 "cargo install locked-only-crate", "gem install rials",
                 "cargo add serde-jsno"):
        command = parse_one(line)
        assert UnknownPackage().check(command, ctx).outcome is Outcome.PASSTHROUGH, line
        assert Typosquat().check(command, ctx).outcome is Outcome.PASSTHROUGH, line
    other = UnknownPackage().check(parse_one("cargo add another-made-up-crate"), ctx)
    assert other.outcome is ASK


def test_a_broken_cargo_manifest_declares_nothing(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text("[dependencies\nmade-up-rust-helper = 1\n")
    (tmp_path / "Cargo.lock").write_text("[[package]\n")
    verdict = UnknownPackage().check(parse_one("cargo add made-up-rust-helper"), _ctx(tmp_path))
    assert verdict.outcome is ASK


def test_go_install_of_a_module_the_project_requires(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text(
        "module example.com/me\n\ngo 1.22\n\nrequire github.com/someone/made-up-tool v1.2.3\n")
    verdict = UnknownPackage().check(
        parse_one("go install github.com/someone/made-up-tool/cmd/x@v1.2.3"), _ctx(tmp_path))
    assert verdict.outcome is Outcome.PASSTHROUGH
