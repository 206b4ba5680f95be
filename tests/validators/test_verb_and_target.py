"""Destructive verbs judged by their target: a cloud resource named as production (CG-NET-001),
a local test database dropped by name (CG-DEST-004), a defense's settings file written to turn
it off at the next boot (CG-INFRA-001)."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_allowed, assert_caught

from clawgate.decision import Outcome
from clawgate.validators.datatargets import production_name, throwaway_name


@pytest.mark.parametrize(("line", "expected", "rule"), [
    # cloud deletions, by the resource's name
    ("aws dynamodb delete-table --table-name prod-orders", DENY, "CG-NET-001"),
    ("aws lambda delete-function --function-name=billing-production", DENY, "CG-NET-001"),
    ("gcloud compute instances delete web-prod-1 --zone us-east1-b", DENY, "CG-NET-001"),
    ("az storage account delete -n stprodlogs -g rg-prod", DENY, "CG-NET-001"),
    ("aws dynamodb delete-table --table-name orders-staging", ASK, "CG-NET-001"),
    ("aws ec2 stop-instances --instance-ids i-0abc --region prod-like", ASK, "CG-NET-001"),
    ("kubectl -n prod delete pod web-7f9c", ASK, None),  # a controller recreates it
    # SQL: a local test database dropped by name is the test run's own
    ("psql -h localhost -c 'DROP DATABASE app_dev'", ASK, "CG-DEST-004"),
    ("psql -h localhost -c 'DROP DATABASE app_test; DROP DATABASE app'", ASK, "CG-DEST-004"),
    ("psql -h db.example.com -c 'DROP DATABASE app_test'", DENY, "CG-DEST-004"),
    ("psql -c 'DROP TABLE users'", ASK, "CG-DEST-004"),
    # defenses' settings files
    ("sudo sed -i 's/^SELINUX=enforcing/SELINUX=disabled/' /etc/selinux/config", DENY,
     "CG-INFRA-001"),
    ("sudo sh -c 'echo SELINUX=permissive > /etc/selinux/config'", DENY, "CG-INFRA-001"),
    ("echo 'SELINUX=disabled' > /etc/selinux/config", DENY, "CG-INFRA-001"),
    ("sudo sed -i 's/GRUB_CMDLINE_LINUX=\"/&apparmor=0 /' /etc/default/grub", DENY,
     "CG-INFRA-001"),
])
def test_caught(line: str, expected: Outcome, rule: str | None) -> None:
    assert_caught(line, expected, rule)


@pytest.mark.parametrize("line", [
    "psql -h localhost -U postgres -c 'DROP DATABASE IF EXISTS app_test'",
    "psql -c 'DROP SCHEMA IF EXISTS ci_scratch CASCADE'",
    "mysql -h 127.0.0.1 -e 'DROP DATABASE IF EXISTS `shop_test`'",
    "aws dynamodb describe-table --table-name prod-orders",
    "sed -n 's/SELINUX=//p' /etc/selinux/config",
])
def test_harmless(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("name", "production", "throwaway"), [
    ("prod-orders", True, False),
    ("app_production", True, False),
    ("product-catalog", False, False),  # a word, not a part of one
    ("app_test", False, True),
    ("test_prod", True, False),
    ("ci", False, True),
])
def test_names(name: str, production: bool, throwaway: bool) -> None:
    assert production_name(name) is production
    assert throwaway_name(name) is throwaway
