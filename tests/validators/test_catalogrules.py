"""Table tests of the catalog-driven rules (CG-PROG-*) and of cloud destruction (CG-NET-*)."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_allowed, assert_caught, decide

from clawgate.decision import Outcome


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("git diff --ext-diff", ASK, "CG-PROG-001"),
    ("git log --ext -p", ASK, "CG-PROG-001"),  # an abbreviation of --ext-diff
    ("man -P 'sh -c id' ls", DENY, "CG-ESC-002"),  # run options come from the catalog
    # make --eval's recipes are the commands judged (CG-INTERP-011); other makefile text asks
    ("make --eval='CC := /tmp/cc' all", ASK, "CG-INTERP-011"),
    ("make --ev='x: ; rm -rf ~' x", DENY, "CG-DEG-001"),
    ("tar --to-com='sh -c id' -xf a.tar", DENY, "CG-ESC-002"),  # an abbreviation
    ("split --filter='sh -c id' big.txt", DENY, "CG-ESC-002"),
    ("sort --compress-prog=./x big.txt", DENY, "CG-ESC-002"),
    ("rsync -avze 'sh -c id' a host:b", DENY, None),  # -e at the end of a cluster
    ("curl -K cfg.txt https://example.com", ASK, "CG-PROG-001"),
    ("env -S 'rm -rf /'", DENY, None),  # the command given is checked too
    ("curl -s https://x.example/cfg > \"$TARGET\"", ASK, "CG-PROG-002"),
    ("tee \"$(pick)\"", ASK, "CG-PROG-002"),
    ("cp x \"$DEST\"", ASK, "CG-PROG-002"),
    ("sort -o \"$OUT\" a.txt", ASK, "CG-PROG-002"),
    ("awk '{print > $1}' data.txt", ASK, "CG-PROG-002"),
    ("echo hi | tee >(cat)$(pick)", ASK, "CG-PROG-002"),  # a substitution glued after it
    ("echo hi | tee >(cat > \"$OUT\")", ASK, "CG-PROG-002"),  # the inner write is judged
    # git's global -p/--paginate starts the configured pager (core.pager, GIT_PAGER, PAGER)
    ("git -p status", ASK, "CG-PROG-001"),
    ("git --paginate show HEAD", ASK, "CG-PROG-001"),
    ("git --pagin log", ASK, "CG-PROG-001"),  # an abbreviation
    ("git -C sub -p diff", ASK, "CG-PROG-001"),
    # Chromium-family switches that name the program its child processes start with
    ("chromium --renderer-cmd-prefix='sh -c id'", DENY, "CG-ESC-002"),
    ("google-chrome-stable --utility-cmd-prefix='rm -rf ~' about:blank", DENY, None),
    ("msedge -gpu-launcher=mylauncher", ASK, "CG-ESC-002"),  # one dash, as Chromium reads it
    ("electron --browser-subprocess-path=./helper .", DENY, "CG-ESC-002"),
    ("brave-browser --plugin-launcher=mylauncher", ASK, "CG-ESC-002"),
])
def test_catalog_rules_catch(line: str, expected: Outcome, rule: str | None) -> None:
    assert_caught(line, expected, rule)


@pytest.mark.parametrize("line", [
    "git log -p",
    "git diff --stat HEAD~1",
    "man ls",
    "env FOO=1 make test",
    "make -j4 test",
    "tar -xzf dist.tgz -C build",
    "tmp=$(mktemp); echo hi > \"$tmp\"",
    "echo \"version=1\" >> \"$GITHUB_OUTPUT\"",
    "X=out.txt; echo hi > \"$X\"",
    "for f in a b; do echo > \"$f.bak\"; done",
    "echo hi > build/\"$name\".txt",
    "rm -f \"$LOG\"",
    "sort -o sorted.txt data.txt",
    "git show -p HEAD",  # -p after the subcommand: the patch, no pager
    "git stash show -p",  # after a subcommand the catalog does not list, too
    # a process substitution is a pipe into a command the line judges, no file
    "test -z \"$(git status --porcelain | tee >(cat 1>&2))\"",
    "make test 2>&1 | tee >(grep -c FAIL > fails.txt)",
    "git --no-pager log -p",
    "git -P diff --stat",
    "chromium --headless --dump-dom https://example.com",
    "google-chrome --version",
    "msedge --headless --no-sandbox --disable-gpu --user-data-dir=/tmp/p https://example.com",
])
def test_catalog_rules_leave_everyday_work(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "expected"), [
    ("aws ec2 terminate-instances --instance-ids i-1", ASK),
    ("aws s3 rm s3://bucket/key.txt", ASK),
    ("kubectl delete pod web-1", ASK),
    ("helm uninstall web", ASK),
    ("terraform destroy", ASK),
    ("gcloud compute instances delete vm1", ASK),
    ("aws s3 sync ./site s3://www --delete", ASK),
    ("gsutil -m rsync -r -d ./site gs://www", ASK),
    ("aws s3 rm s3://prod --recursive", DENY),
    ("aws s3 rb s3://prod --force", DENY),
    ("aws iam delete-user --user-name bob", DENY),
    ("gsutil rm -r gs://prod", DENY),
    ("kubectl delete ns prod", DENY),
    ("kubectl delete pods --all", DENY),
    ("terraform destroy -auto-approve", DENY),
    ("terraform apply -destroy -auto-approve", DENY),
    ("az group delete -n rg", DENY),
    ("gcloud projects delete my-project", DENY),
    ("pulumi destroy --yes", DENY),
])
def test_cloud_destruction(line: str, expected: Outcome) -> None:
    assert_caught(line, expected, "CG-NET-001")


@pytest.mark.parametrize("line", ["kubectl get pods", "terraform plan", "gsutil ls gs://b",
                                  "helm template chart/", "docker build -t app ."])
def test_cloud_reads_are_not_destruction(line: str) -> None:
    assert "CG-NET-001" not in decide(line)[1]


@pytest.mark.parametrize("line", ["git push origin main", "npm publish", "twine upload dist/*",
                                  "docker push registry.example.com/app:1", "docker rm -f web",
                                  "docker volume rm data", "docker system prune -af",
                                  "gh release upload v1 app.tgz", "gem push x.gem"])
def test_remote_writes_and_host_containers_are_high(line: str) -> None:
    assert_caught(line, ASK, None)


@pytest.mark.parametrize(("line", "expected"), [
    ("curl http://169.254.169.254/latest/meta-data/iam/", DENY),
    ("curl -s http://metadata.google.internal/computeMetadata/v1/", DENY),
    ("curl http://[::ffff:169.254.169.254]/", DENY),
    ("curl -s http://localhost:8000/api/items", ASK),  # (its /health probe: a lookup)
    ("curl http://10.0.0.5:2375/containers/json", ASK),
    ("wget -qO- http://[::1]:8080/", ASK),
    ("http POST 192.168.1.1/admin", ASK),
])
def test_local_and_metadata_addresses(line: str, expected: Outcome) -> None:
    assert_caught(line, expected, "CG-NET-002")


@pytest.mark.parametrize("line", ["nc -zv localhost 8080", "ping -c1 127.0.0.1"])
def test_probing_this_machine_stays_allowed(line: str) -> None:
    assert_allowed(line)


def test_scratch_directories_and_dd_targets() -> None:
    """CG-PROG-002: a file inside a fresh ``$(mktemp -d)`` is known enough; ``dd of=$X`` is a
    write to a place known only at run time like any other."""
    assert_allowed('cat > "$(mktemp -d)/x" < notes.txt')
    assert_caught("dd if=/dev/zero of=$DISK bs=1M count=8", ASK, "CG-PROG-002")
    # without a count, dd writes until the target is full (CG-DEST-015)
    assert_caught("dd if=/dev/zero of=$DISK bs=1M", DENY, "CG-DEST-015")


@pytest.mark.parametrize("line", [
    "tar -xPf backup.tar",
    "tar Pxf backup.tar --xform 's@.*@/etc/profile@'",
    "tar --extract --absolute-names -f backup.tar",
    "tar -x --absolute-n -f backup.tar",
    "unzip -: bundle.zip",
    "git apply --unsafe-paths fix.patch",
])
def test_writes_named_by_the_input_anywhere_ask(line: str) -> None:
    assert_caught(line, ASK, "CG-PROG-003")


@pytest.mark.parametrize("line", [
    "tar -xf backup.tar",
    "tar -cPf out.tar src",
    "unzip -o bundle.zip -d build",
    "git apply fix.patch",
    "git apply --directory=vendor/lib fix.patch",
])
def test_confined_extraction_is_allowed(line: str) -> None:
    assert_allowed(line)


def test_git_apply_directory_outside_the_workspace_is_caught() -> None:
    assert decide("git apply --directory=/etc fix.patch")[0] is not Outcome.ALLOW


def test_a_default_expansion_is_no_remote_host() -> None:
    """cp's destination ``${D:-x}/y`` holds a colon, but no ``host:path``: it is written."""
    assert_caught('cp config.yml "${XDG_CONFIG_HOME:-$HOME/.config}/app/config.yml"', ASK,
                  "CG-PROG-002")
