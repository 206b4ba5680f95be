"""What a build or package tool reaches, read from its verb and operands: a link into npm's
global folder, TeX Live's own installation, a build task that sends the analysis of the
sources to a service, a cluster client that only watches. Each table beside its near-misses."""

from __future__ import annotations

import pytest
from vtables import WS

from clawgate.decision import Outcome, Risk
from clawgate.engine import Engine
from clawgate.shell import parse_one
from clawgate.validators.risk import risk_of


@pytest.mark.parametrize(("line", "tier"), [
    # npm link alone or given a folder links that package into the global folder first
    ("npm link", Risk.HIGH),
    ("npm link ../alpine/packages/alpinejs", Risk.HIGH),
    ("npm link /tmp/alpine/packages/alpinejs /tmp/alpine/packages/morph", Risk.HIGH),
    ("npm ln ./packages/core", Risk.HIGH),
    ("npm link file:../shared", Risk.HIGH),
    ("npm link packages/core", Risk.HIGH),
    ("npm link ~/src/lib", Risk.HIGH),
    # a name: a package already in the global folder is linked into node_modules
    ("npm link alpinejs", Risk.MEDIUM),
    ("npm link @alpinejs/morph", Risk.MEDIUM),
    ("npm ls --depth=0", Risk.LOW),
    ("npm install", Risk.MEDIUM),
])
def test_npm_link_reaches_the_global_folder(line: str, tier: Risk) -> None:
    assert risk_of(parse_one(line)) is tier


@pytest.mark.parametrize(("line", "tier"), [
    ("tlmgr install collection-latex", Risk.HIGH),
    ("tlmgr install import subfiles latexmk makeindex", Risk.HIGH),
    ("tlmgr update --self", Risk.HIGH),
    ("tlmgr update --all", Risk.HIGH),
    ("tlmgr remove latexmk", Risk.HIGH),
    ("tlmgr option repository https://mirror.example/tlnet", Risk.HIGH),
    ("tlmgr conf texmf TEXMFHOME ~/texmf", Risk.HIGH),
    ("tlmgr info latexmk", Risk.LOW),
    ("tlmgr search --global --file chktexrc", Risk.LOW),
    ("tlmgr list --only-installed", Risk.LOW),
    ("tlmgr --version", Risk.LOW),
])
def test_tlmgr_changes_the_tex_installation(line: str, tier: Risk) -> None:
    assert risk_of(parse_one(line)) is tier


@pytest.mark.parametrize(("line", "tier"), [
    # the analysis or coverage of the sources sent to a service, whatever scope names the task
    ("./gradlew sonar", Risk.HIGH),
    ("./gradlew build sonar --info", Risk.HIGH),
    ("./gradlew :core:sonarqube", Risk.HIGH),
    ("gradle test jacocoTestReport coveralls", Risk.HIGH),
    ("./gradlew coverallsJacoco", Risk.HIGH),
    ("mvn -B verify sonar:sonar", Risk.HIGH),
    ("./mvnw test jacoco:report coveralls:report", Risk.HIGH),
    # the same tools building and reporting locally
    ("./gradlew check --no-daemon --parallel --continue", Risk.MEDIUM),
    ("./gradlew jacocoTestReport", Risk.MEDIUM),
    ("./mvnw -B verify", Risk.MEDIUM),
    ("mvn jacoco:report", Risk.MEDIUM),
])
def test_build_tasks_that_send_the_analysis(line: str, tier: Risk) -> None:
    assert risk_of(parse_one(line)) is tier


@pytest.mark.parametrize(("line", "tier"), [
    ("kubectl wait --for=condition=ready pod -l app=petclinic --timeout=180s", Risk.MEDIUM),
    ("kubectl wait --for=delete pod/web-0 --timeout=60s", Risk.MEDIUM),  # waits, deletes nothing
    ("kubectl rollout status deployment/api -n dev", Risk.MEDIUM),
    ("kubectl rollout history deployment/api", Risk.MEDIUM),
    ("kubectl rollout restart deployment/api", Risk.HIGH),
    ("kubectl rollout undo deployment/api", Risk.HIGH),
    ("kubectl delete pod web-0", Risk.HIGH),
])
def test_kubectl_reads_by_verb(line: str, tier: Risk) -> None:
    assert risk_of(parse_one(line)) is tier


@pytest.mark.parametrize(("line", "expected"), [
    ("npm link /tmp/alpine/packages/alpinejs /tmp/alpine/packages/anchor", Outcome.ASK),
    ("npm link alpinejs", Outcome.ALLOW),
    ("tlmgr install chktex lacheck latexindent", Outcome.ASK),
    ("./gradlew sonar", Outcome.ASK),
    ("./gradlew check --no-daemon --continue", Outcome.ALLOW),
    ("kubectl wait --for=condition=ready pod -l app=demo-db --timeout=180s", Outcome.ALLOW),
])
def test_outcomes_on_the_default_policy(line: str, expected: Outcome) -> None:
    assert Engine().check(line, cwd=WS).outcome is expected
