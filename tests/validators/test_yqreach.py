"""CG-INTERP-010: a yq expression that reads the environment asks; one that loads a file is
judged as ``cat`` of that file; everyday expressions pass."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.shell import parse_one
from clawgate.validators.base import Context
from clawgate.validators.yqreach import YqReach, expression

CTX = Context(cwd="/tmp/yq-ws", workspace="/tmp/yq-ws", home="/home/u")
PASS, ASK = Outcome.PASSTHROUGH, Outcome.ASK


@pytest.mark.parametrize(("line", "text"), [
    ("yq '.a' f.yaml", ".a"),
    ("yq e -i '.a = 1' f.yaml", ".a = 1"),
    ("yq eval-all -o json '. as $i' a.yaml", ". as $i"),
    ("yq --expression='.b' f.yaml", ".b"),
    ("yq -n --from-file x.yq", ""),
    ("yq", ""),
])
def test_the_expression_is_found_after_commands_and_options(line: str, text: str) -> None:
    assert expression(parse_one(line)) == text


@pytest.mark.parametrize(("line", "outcome", "nested"), [
    ("yq -n 'env(AWS_SECRET_ACCESS_KEY)'", ASK, ()),
    ("yq -n 'strenv(TOKEN)'", ASK, ()),
    ("yq -n '\"${HOME}\" | envsubst'", ASK, ()),
    ("yq -n '$ENV.TOKEN'", ASK, ()),
    ("yq -n 'load(strenv(F))'", ASK, ()),
    ("yq -n 'load_str(\"/home/u/.ssh/id_rsa\")'", PASS, ("cat -- /home/u/.ssh/id_rsa",)),
    ("yq e '.a = load(\"b.yaml\")' a.yaml", PASS, ("cat -- b.yaml",)),
    ("yq '.a' f.yaml", PASS, ()),
    ("yq '.env' f.yaml", PASS, ()),
    ("yq '.services.web.environment' compose.yaml", PASS, ()),
    ("yq eval -i \".image = \\\"$DIGEST\\\"\" build.yml", PASS, ()),
])
def test_yq_reach(line: str, outcome: Outcome, nested: tuple[str, ...]) -> None:
    verdict = YqReach().check(parse_one(line), CTX)
    assert verdict.outcome is outcome
    assert tuple(verdict.nested) == nested
