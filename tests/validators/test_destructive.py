"""Destructive and outward-facing commands (CG-DEST-001..011) ASK; everyday ones do not."""

from __future__ import annotations

import pytest
from vtables import assert_allowed, decide

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings


@pytest.mark.parametrize(("line", "rule"), [
    ("git push --force origin main", "CG-DEST-001"),
    ("git push -f", "CG-DEST-001"),
    ("git push origin +main", "CG-DEST-001"),
    ("git push origin :feature", "CG-DEST-001"),
    ("git push --delete origin feature", "CG-DEST-001"),
    ("git push --mirror backup", "CG-DEST-001"),
    ("git -C sub push -uf origin main", "CG-DEST-001"),
    ("git reset --hard HEAD~3", "CG-DEST-002"),
    ("git reset --hard", "CG-DEST-002"),
    ("git clean -fdx", "CG-DEST-002"),
    ("git clean --force -d", "CG-DEST-002"),
    ("git checkout .", "CG-DEST-002"),
    ("git checkout -- .", "CG-DEST-002"),
    ("git checkout -f main", "CG-DEST-002"),
    ("git restore .", "CG-DEST-002"),
    ("git stash drop", "CG-DEST-002"),
    ("git stash clear", "CG-DEST-002"),
    ("git branch -D feature", "CG-DEST-002"),
    ("git branch --delete --force feature", "CG-DEST-002"),
    ("git filter-branch --tree-filter 'rm -f x' HEAD", "CG-DEST-002"),
    ("git reflog expire --expire=now --all", "CG-DEST-002"),
    ("git commit --no-verify -m wip", "CG-DEST-003"),
    ("git commit -nm wip", "CG-DEST-003"),
    ("git push --no-verify origin feature", "CG-DEST-003"),
    ("psql -c 'DROP TABLE users'", "CG-DEST-004"),
    ("psql -d app -c 'truncate sessions'", "CG-DEST-004"),
    ('mysql -e "DELETE FROM users"', "CG-DEST-004"),
    ('mysql -u root -e "use app; delete from users;"', "CG-DEST-004"),
    ('sqlite3 app.db "DROP TABLE t"', "CG-DEST-004"),
    ("psql --command='UPDATE accounts SET balance = 0'", "CG-DEST-004"),
    ("psql -c\"DROP DATABASE app\"", "CG-DEST-004"),
    ("kubectl delete pod web-1", "CG-DEST-005"),
    ("kubectl -n prod delete deployment api", "CG-DEST-005"),
    ("terraform destroy", "CG-DEST-005"),  # with -auto-approve: DENY (CG-NET-001)
    ("terraform apply -destroy", "CG-DEST-005"),
    ("npm publish", "CG-DEST-005"),
    ("cargo publish --allow-dirty", "CG-DEST-005"),
    ("twine upload dist/*", "CG-DEST-005"),
    ("systemctl stop nginx", "CG-DEST-005"),
    ("systemctl disable --now sshd", "CG-DEST-005"),
    ("crontab -r", "CG-DEST-006"),
    # kill -1 (every process) is CG-DEST-017's DENY: tests/validators/test_kinds9_validators.py
    ("kill -9 1", "CG-DEST-006"),  # the machine's first process (init)
    ("kill 1", "CG-DEST-006"),
    ("kill -HUP 1", "CG-DEST-006"),
    ("pkill -9 init", "CG-DEST-006"),
    ("killall systemd", "CG-DEST-006"),
    ("hostname pwned", "CG-DEST-006"),
    ("hostname -F /tmp/name", "CG-DEST-006"),
    ("iptables -F", "CG-DEST-006"),
    ("iptables --flush INPUT", "CG-DEST-006"),
    ("pip install --index-url https://pypi.example.net/simple requests", "CG-DEST-007"),
    ("pip install -i https://mirror.example/simple flask", "CG-DEST-007"),
    ("pip3 install --extra-index-url=https://x.example/simple pkg", "CG-DEST-007"),
    ("pip install git+https://github.com/someone/pkg", "CG-DEST-007"),
    ("npm install --registry https://registry.example.net left-pad", "CG-DEST-007"),
    ("uv pip install --index-url https://x.example/simple pkg", "CG-DEST-007"),
    ("pip install --no-index --find-links ../wheels pkg", "CG-DEST-007"),  # outside
    ("pip install -f https://x.example/wheels pkg", "CG-DEST-007"),
    ("nohup ./server &", "CG-DEST-008"),  # in the foreground nohup detaches nothing
    ("(./server --port 8080 &)", "CG-DEST-010"),
    ("npm run dev & disown", "CG-DEST-010"),
    ("setsid ./worker", "CG-DEST-008"),
    ("openvt -- ./worker", "CG-DEST-008"),
    ("screen -dmS job ./long.sh", "CG-DEST-008"),
    ("tmux new -d -s job ./long.sh", "CG-DEST-008"),
    ("docker run -d nginx", "CG-DEST-008"),
    ("cabal upload --publish dist-newstyle/sdist/x-1.0.tar.gz", "CG-DEST-005"),
    ("stack upload .", "CG-DEST-005"),
    ("opam publish", "CG-DEST-005"),
    ("nimble publish", "CG-DEST-005"),
    ("luarocks upload x-1.0-1.rockspec", "CG-DEST-005"),
    ("dart pub publish --force", "CG-DEST-005"),
    ("flutter pub publish", "CG-DEST-005"),
    ("mix hex.publish --yes", "CG-DEST-005"),
    ("mix hex.retire x 1.0.0 security", "CG-DEST-005"),
    ("rebar3 hex publish", "CG-DEST-005"),
    ("gleam publish", "CG-DEST-005"),
    ("lein deploy clojars", "CG-DEST-005"),
    ("dotnet nuget push x.nupkg --source nuget.org", "CG-DEST-005"),
    ("swift package-registry publish x 1.0.0", "CG-DEST-005"),
    ("DOCKER_PUSH=true make image", "CG-DEST-011"),
    ('rm -rf "$TARGET"', "CG-DEST-009"),
    ("rm -r $(cat dirs.txt)", "CG-DEST-009"),
    ("rm -rf ${BUILD:-build}", "CG-DEST-009"),
    ('find "$ROOT" -delete', "CG-DEST-009"),
])
def test_destructive_asks(line: str, rule: str) -> None:
    outcome, rules = decide(line)
    assert outcome is Outcome.ASK, rules
    assert rule in rules


@pytest.mark.parametrize("line", [
    "uv pip install requests --no-index --no-deps --find-links dist",  # the project's wheels
    "kill -1 12345",  # -1 first is the signal (SIGHUP), not every process
    "kill %1",
    "kill -l",
    "pkill -f myserver",  # the task's own program by name (CG-DEST-017 asks for node, python…)
    "hostname",
    "hostname -f",
    "pip install --find-links=./wheels requests",
    "git reset HEAD file.py",
    "git reset --soft HEAD~1",
    "git clean -n",
    "git clean -fdn",
    "git checkout main",
    "git checkout -b feature",
    "git checkout -- src/app.py",
    "git restore --staged .",
    "git stash",
    "git stash pop",
    "git stash list",
    "git branch -d merged-feature",
    "git commit -m 'fix: mention no-verify in docs'",
    "git commit -am 'wip'",
    "psql -c 'SELECT * FROM users'",
    "psql -c 'DELETE FROM sessions WHERE expires < now()'",
    'mysql -e "UPDATE t SET a = 1 WHERE id = 2"',
    "sqlite3 app.db .tables",
    "kubectl get pods",
    "terraform plan",
    "npm install",
    "npm run build",
    "cargo build --release",
    "crontab -l",
    "kill 12345",
    "kill -9 12345",
    "pip install -r requirements.txt",
    "pip install -e .",
    "ls &",
    "docker run --rm alpine echo hi",
    "grep -r 'DROP TABLE' migrations/",
    "echo 'git push --force'",
    'rm -f "$LOG"',
    "rm -rf ./build node_modules",
    "rm -rf dist/*",
    'find . -name "*.pyc" -delete',
    "cabal build all",
    "mix hex.build",
    "dart pub get",
    "flutter pub get",
    "lein test",
    "luarocks make",
    "dotnet nuget locals all --list",
    "gleam build",
])
def test_everyday_look_alikes_are_allowed(line: str) -> None:
    assert_allowed(line)


# A forge repository itself deleted or made public, by subcommand or REST call: DENY
@pytest.mark.parametrize(("line", "expected"), [
    ("gh repo delete me/project --yes", Outcome.DENY),
    ("gh repo edit acme/app --visibility public", Outcome.DENY),
    ("gh repo edit --visibility=public", Outcome.DENY),
    ("gh api -X DELETE repos/acme/payments", Outcome.DENY),
    ("gh api --method DELETE /repos/acme/payments", Outcome.DENY),
    ("gh api -XDELETE repos/{owner}/{repo}", Outcome.DENY),
    ("gh api -X PATCH repos/acme/payments -f private=false", Outcome.DENY),
    ("gh api repos/acme/payments -F visibility=public -X PATCH", Outcome.DENY),
    ("gh api -X DELETE repos/acme/payments/issues/comments/1", Outcome.ASK),
    ("gh api -X PATCH repos/acme/payments -f description=x", Outcome.ASK),
    ("gh repo edit --visibility private", Outcome.ASK),
    ("gh api repos/acme/payments", Outcome.ALLOW),
    ("gh api repos/acme/payments/pulls --jq '.[].title'", Outcome.ALLOW),
])
def test_repository_deleted_or_published(line: str, expected: Outcome) -> None:
    outcome, rules = decide(line)
    assert outcome is expected, rules
    assert (expected is Outcome.DENY) == ("CG-INFRA-005" in rules), rules


def test_unsafe_lifts_destructive_asks_but_nothing_else() -> None:
    unsafe = Engine(EngineSettings(unsafe=True))
    assert decide("git push -f origin main", unsafe)[0] is Outcome.ASK  # a remote write: high
    assert decide("git reset --hard", unsafe)[0] is Outcome.ALLOW
    assert decide("rm -rf /", unsafe)[0] is Outcome.DENY
    assert decide("cp a /etc/app.conf", unsafe)[0] is Outcome.ASK


def test_kubectl_kind_slash_name_is_the_kind() -> None:
    """CG-NET-001 reads kubectl's kind/name spelling as the kind."""
    outcome, rules = decide("kubectl delete ns/prod")
    assert outcome.name == "DENY" and "CG-NET-001" in rules
    outcome, rules = decide("kubectl delete pod/web-0")
    assert outcome.name == "ASK" and "CG-NET-001" in rules
