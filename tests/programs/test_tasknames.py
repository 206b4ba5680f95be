"""Build tools' tasks judged by their own name, whatever scope, cross-build marker or sequence
holds them (programs/tasknames.py), and the decision they lead to."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.programs import tasknames

GRADLE = {"publish*": "high", "publishToMavenLocal": "medium"}
SBT = {"publish*": "high", "publishLocal": "medium", "*Publish*": "high"}
MVN = {"deploy": "high", "deploy:*": "high"}


@pytest.mark.parametrize(("value", "expected"), [
    ("publish", ["publish"]),
    (":app:publish", [":app:publish", "publish"]),
    ("docs/docusaurusPublishGhpages", ["docs/docusaurusPublishGhpages",
                                       "docusaurusPublishGhpages"]),
    ("+publishSigned", ["publishSigned"]),
    ("++2.13.x; all test; publish", ["2.13.x", "x", "all", "test", "publish"]),
    ("foo.bar.publishLocal", ["foo.bar.publishLocal", "publishLocal"]),  # mill's module path
    ("__.publishArtifacts", ["__.publishArtifacts", "publishArtifacts"]),
    ("mill.scalalib.SonatypeCentralPublishModule/",
     ["mill.scalalib.SonatypeCentralPublishModule/"]),
    ("Compile/doc", ["Compile/doc", "doc"]),
    ("rpm:packageBin", ["rpm:packageBin", "packageBin"]),
    ("+", []),
])
def test_names(value: str, expected: list[str]) -> None:
    assert tasknames.names(value) == expected


@pytest.mark.parametrize(("value", "tasks", "expected"), [
    ("publish", GRADLE, ["high"]),
    (":app:publish", GRADLE, ["high"]),
    (":app:publishToMavenLocal", GRADLE, ["medium"]),  # the exact name wins over publish*
    ("publishToMavenLocal", GRADLE, ["medium"]),
    ("build", GRADLE, []),
    ("docs/docusaurusPublishGhpages", SBT, ["high", "high"]),  # a plugin's task named so
    ("cli/publishLocal", SBT, ["medium"]),
    ("foo.publishLocal", SBT, ["medium"]),
    ("__.publishArtifacts", SBT, ["high"]),
    ("mill.scalalib.SonatypeCentralPublishModule/", SBT, ["high"]),
    ("mill.scalalib.SonatypeCentralPublishModule/publishAll", SBT, ["high", "high"]),
    ("+publishLocal", SBT, ["medium"]),
    ("++2.13.x; test; publishSigned", SBT, ["high"]),
    ("docs/tlSite", SBT, []),
    ("deploy:deploy-file", MVN, ["high"]),  # a plugin goal, named with its prefix
    ("verify", MVN, []),
])
def test_tiers(value: str, tasks: dict[str, str], expected: list[str]) -> None:
    assert tasknames.tiers(value, tasks) == expected


@pytest.mark.parametrize(("line", "outcome"), [
    ("./gradlew :app:publish", Outcome.ASK),
    ("./gradlew :lib:publishToMavenLocal", Outcome.ALLOW),
    ("sbt docs/docusaurusPublishGhpages", Outcome.ASK),
    ("sbt +publish", Outcome.ASK),
    ('sbt "++2.13.x; all test; publishSigned"', Outcome.ASK),
    ("sbt ci-release", Outcome.ASK),
    ("sbt -v +publishLocal", Outcome.ALLOW),
    ("sbt test-jvm-2_13", Outcome.ALLOW),
    ("sbt 'project catsNative' '++ 2.12' mimaReportBinaryIssues", Outcome.ALLOW),
    ("sbt docs/docusaurusCreateSite", Outcome.ALLOW),
    ("composer global require --dev vendor/tool", Outcome.ASK),
    ("composer global config prefer-stable true", Outcome.ASK),
    ("composer install --no-interaction --no-progress", Outcome.ALLOW),
    ("composer require --dev --no-update psr/log:^3", Outcome.ALLOW),
    ("composer exec phpunit -- --exclude-group Elasticsearch", Outcome.ALLOW),
])
def test_decisions(line: str, outcome: Outcome, tmp_path: object) -> None:
    assert Engine().check(line, cwd=str(tmp_path)).outcome is outcome
