"""A status query run with privileges (CG-WRAP-002, ``privquery.py``): the installed program
given only the words with which the catalog says it prints the system's state is judged as the
query it is; anything else ``sudo`` or ``doas`` runs keeps its question or its DENY."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_allowed, assert_caught

from clawgate.decision import Outcome
from clawgate.shell import parse_one
from clawgate.validators.privquery import privileged_query


@pytest.mark.parametrize("line", [
    "sudo auditctl -l",
    "sudo auditctl -s",
    "sudo aa-status",
    "doas aa-status",
    "sudo getenforce",
    "sudo sestatus -v",
    "sudo ufw status",
    "sudo -u nobody aa-status",
    "sudo /usr/sbin/auditctl -l",
    "ufw status verbose",  # a status query without privileges: a read
    "nginx -V",
    "nginx -V 2>&1 | sed -re 's/ --/\\n--/g'",  # where its output goes: not a write
    "sudo auditctl -l > audit-rules.txt",  # the caller's redirection, into the workspace
    # the system's state: mounts, firewall rules, the linker cache, network devices
    "mount",
    "mount | grep overlay",
    "iptables -L -n --line-numbers",
    "iptables -nvL",  # a cluster of query options, letter by letter
    "sudo iptables -S",
    "ldconfig -p | grep libssl",
    "nmcli device status",
    "timedatectl",
    "nft list ruleset",
    "swapon --show",
    # a PATH the line sets, with only the system's directories before the old value
    "export PATH=/usr/local/bin:$PATH; sudo getenforce",
    "export PATH=\"$PATH:./bin\"; sudo auditctl -l",  # after the old value: adds programs
    "export PATH=./bin:$PATH; getenforce",  # the project's own program, without privileges
    "PATH=./bin:$PATH make lint; sudo getenforce",  # a prefix lasts for its command only
    "PATH+=:./bin; sudo getenforce",  # appended: found after the system's
    "PATH=/usr/bin:/bin; sudo getenforce",
])
def test_status_queries(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("sudo auditctl -e 0", DENY, None),  # audit logging turned off
    ("iptables -nFL", ASK, "CG-DEST-006"),  # -F among the letters flushes the rules
    ("iptables -L INPUT -j DROP", ASK, None),  # a word the queries do not hold
    ("mount -o bind src /mnt", ASK, None),
    ("ldconfig", ASK, None),  # alone it rebuilds the cache
    ("nmcli radio wifi off", ASK, None),
    ("sudo auditctl -D", DENY, None),  # every audit rule deleted
    ("sudo auditctl -R /tmp/rules", ASK, "CG-WRAP-002"),  # rules loaded from a file
    ("sudo ./auditctl -l", ASK, "CG-WRAP-002"),  # a file of that name, not the program
    ("sudo /tmp/auditctl -l", ASK, "CG-WRAP-002"),
    ("sudo -R /mnt auditctl -l", ASK, "CG-WRAP-002"),  # another root's program
    ("sudo -s auditctl -l", ASK, "CG-WRAP-002"),  # run by a shell
    # the caller's environment kept: what the program loads is the line's to say
    ("export PYTHONPATH=./x; sudo --preserve-env=PYTHONPATH ufw status", ASK, "CG-WRAP-002"),
    ("sudo -E ufw status", ASK, "CG-WRAP-002"),
    ("sudo --preserve-env auditctl -l", ASK, "CG-WRAP-002"),
    ("sudo auditctl -l > /etc/x", ASK, None),  # a write outside the workspace
    ("sudo LD_PRELOAD=/tmp/x.so auditctl -l", DENY, "CG-ENV-001"),
    ("sudo env LD_PRELOAD=/tmp/x.so auditctl -l", DENY, None),
    ("sudo setenforce permissive", DENY, None),
    ("sudo systemctl disable --now auditd", DENY, None),
    ("sudo ufw disable", ASK, "CG-WRAP-002"),
    ("sudo apt-get update", ASK, "CG-WRAP-002"),
    ("sudo aa-teardown", DENY, None),
    ("sudo getenforce; sudo setenforce 0", DENY, None),
    ("su -c 'auditctl -l'", ASK, "CG-WRAP-002"),  # su starts a shell for the command
    ("nginx", ASK, "CG-RISK-001"),  # the program alone starts a server: not a query
    ("sudo nginx", ASK, "CG-WRAP-002"),
    ("sudo auditctl", ASK, "CG-WRAP-002"),  # alone: not listed as a query
    ("nginx -s stop", ASK, "CG-RISK-001"),
    # a bare name looked up in a PATH the line put its own directory first on (CG-IDENT-007)
    ("export PATH=./bin:$PATH; sudo getenforce", ASK, "CG-IDENT-007"),
    ("PATH=./bin:$PATH; doas aa-status", ASK, "CG-IDENT-007"),
    ("export PATH=\"$PWD/tools:$PATH\" && sudo auditctl -l", ASK, "CG-IDENT-007"),
    ("declare -x PATH=/tmp/x:/usr/bin; sudo ufw status", ASK, "CG-IDENT-007"),
    ("PATH=:/usr/bin; sudo getenforce", ASK, "CG-IDENT-007"),  # an empty entry: the cwd
    ("printf -v PATH './bin:%s' \"$PATH\"; sudo getenforce", ASK, "CG-IDENT-007"),
    ("read -r PATH <<< ./bin; sudo getenforce", ASK, "CG-IDENT-007"),
])
def test_other_privileged_commands(line: str, expected: Outcome, rule: str | None) -> None:
    assert_caught(line, expected, rule)


@pytest.mark.parametrize(("line", "query"), [
    ("sudo auditctl -s", "auditctl -s"),
    ("doas -u root aa-status --json", "aa-status --json"),
    ("sudo auditctl -s -e 0", None),
    ("sudo -Es getenforce", None),
    ("sudo --chroot=/mnt getenforce", None),
    ("nice getenforce", None),
])
def test_privileged_query(line: str, query: str | None) -> None:
    found = privileged_query(parse_one(line))
    assert (found.text if found is not None else None) == query
