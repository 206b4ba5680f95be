"""Destruction by degree (CG-DEG): outside the workspace and the temp directories a recursive
or forced delete is DENY; inside, non-regenerable trees ASK; build output goes freely."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, WS, assert_allowed, assert_caught, decide

from clawgate.validators.regenerable import regenerable


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("rm -rf ~/.config/app", DENY, "CG-DEG-001"),
    # a target known only at run time, under a literal directory outside the workspace
    ("find / | xargs -I% rm -f %", DENY, "CG-DEG-001"),
    ("find / | xargs -I% unlink %", DENY, "CG-DEG-001"),
    ("ls / | xargs -I{} unlink /{}", DENY, "CG-DEG-001"),
    ('rm -f ~/"$name"', DENY, "CG-DEG-001"),
    # xargs deleting names from input nobody sees: many files, rm -r or not
    ("xargs rm < paths.txt", ASK, "CG-DEG-002"),
    ("cat paths.txt | xargs rm", ASK, "CG-DEG-002"),
    ("rm -rf $HOME/.npm", DENY, "CG-DEG-001"),
    ("rm -f ~/.ssh/known_hosts", DENY, "CG-DEG-001"),
    ("rm -rf ../other-project", DENY, "CG-DEG-001"),
    ("rm -rf /opt/app/data", DENY, "CG-DEG-001"),
    ("sudo rm -rf /srv/www/site", DENY, "CG-DEG-001"),
    ("timeout 5 rm -rf /srv/www/site", DENY, "CG-DEG-001"),
    ("find ~/Documents -name '*.bak' -delete", DENY, "CG-DEG-001"),
    ("shred -u /home/dev/notes.txt", DENY, "CG-DEG-001"),
    ("cd ~ && rm -rf .config", DENY, "CG-DEG-001"),
    ("rm -rf C:\\Users\\bob", DENY, "CG-DEG-001"),
    ("rm -r -fo 'D:\\data'", DENY, "CG-DEG-001"),
    ("rm -rf src", ASK, "CG-DEG-002"),
    ("rm -r docs", ASK, "CG-DEG-002"),
    ("rm -rf .git", ASK, "CG-DEG-002"),
    # the whole workspace: its root, every entry of it, an unnarrowed find or listing of it
    ("rm -rf *", DENY, "CG-DEG-002"),
    ("rm -rf .", DENY, "CG-DEG-002"),
    ("rm -rf *.md", ASK, "CG-DEG-002"),
    ("rm -rf */", ASK, "CG-DEG-002"),
    ("sudo rm -rf src", ASK, "CG-DEG-002"),
    ("find . -name '*.md' -delete", ASK, "CG-DEG-002"),
    ("find src -type f -exec rm -f {} +", ASK, "CG-DEG-002"),
    ("shred secrets.txt", ASK, "CG-DEG-002"),
    ("truncate -s 0 data/users.csv", ASK, "CG-DEG-002"),
    ("cd build; rm -rf *", DENY, "CG-DEG-002"),  # the workspace when build is missing
    ("cd build && make; rm -rf *", DENY, "CG-DEG-002"),
    ("cd src && rm -rf *", ASK, "CG-DEG-002"),
    ("(cd /tmp && true); rm -rf src", ASK, "CG-DEG-002"),
    ("ls | xargs rm -rf", DENY, "CG-DEG-002"),
    ("ls src | xargs rm -rf", ASK, "CG-DEG-002"),
    ("find . -name '*.md' | xargs rm -rf", ASK, "CG-DEG-002"),
    ("xargs rm -rf < dirs.txt", ASK, "CG-DEG-002"),
    ("cat list | xargs -I{} rm -rf {}", ASK, "CG-DEG-002"),
    ("echo src | xargs -I{} rm -rf {}", ASK, "CG-DEG-002"),
    ("echo ~/.config | xargs rm -rf", DENY, "CG-DEG-001"),
    ("cd; rm -rf .config", DENY, "CG-DEG-001"),
    ("if true; then cd ~; fi; rm -rf .config", DENY, "CG-DEG-001"),
    # find -exec through a wrapper runs the same delete (env, nice, timeout, sudo ...)
    ("find . -name important-file -exec env rm -f {} \\;", ASK, "CG-DEG-002"),
    ("find src -type f -exec nice -n 5 rm {} +", ASK, "CG-DEG-002"),
    ("find . -exec timeout 5 rm {} \\;", DENY, "CG-DEG-002"),
    ("find src -exec timeout 5 rm {} \\;", ASK, "CG-DEG-002"),
    ("find ~/Documents -exec env A=1 /bin/rm -f {} +", DENY, "CG-DEG-001"),
    ("find /srv -execdir sudo -u www rm -rf {} +", DENY, "CG-DEG-001"),
    # rimraf and its kind are rm -rf beyond the workspace, run directly or by a package runner
    ("rimraf ~/.config/app", DENY, "CG-DEG-001"),
    ("npx rimraf ../other-project", DENY, "CG-DEG-001"),
    ("pnpm dlx del-cli /opt/app/data", DENY, "CG-DEG-001"),
    ("bunx premove $HOME/.npm", DENY, "CG-DEG-001"),
    ("npx rimraf@latest ~/.config/app", DENY, "CG-DEG-001"),  # a package spec runs its bin
    ("npm exec --yes -- del-cli@5 ../other-project", DENY, "CG-DEG-001"),
    ("find /srv -exec command -p rm -rf {} +", DENY, "CG-DEG-001"),
    # secure-delete tools are deletes of what they name; -r/-R takes whole directories
    ("srm -r ~/.ssh", DENY, "CG-DEG-001"),
    ("srm -R $HOME/.aws", DENY, "CG-DEG-001"),
    ("wipe -rf ~/.gnupg", DENY, "CG-DEG-001"),
    ("wipe -r -Q 2 ~/.kube", DENY, "CG-DEG-001"),
    ("shred -n 3 -u ~/.pypirc", DENY, "CG-DEG-001"),
    ("srm -r src", ASK, "CG-DEG-002"),
    ("truncate -r ref.txt data/users.csv", ASK, "CG-DEG-002"),
    # only ../ steps climbing above the workspace, then one name a build brings back: a line
    # written for a deeper directory of a checkout asks; anything else it reaches is DENY
    ("rm -rf ../../../node_modules", ASK, "CG-DEG-001"),
    ("rm -rf ../../../build ../../../dist", ASK, "CG-DEG-001"),
    ("find ../../../node_modules -delete", ASK, "CG-DEG-001"),
    ("rm -rf ../../../", DENY, "CG-DEG-001"),
    ("rm -rf ../../..", DENY, "CG-DEG-001"),
    ("rm -rf ../../../src", DENY, "CG-DEG-001"),
    ("rm -rf ../../../.ssh", DENY, "CG-DEG-001"),
    ("rm -rf ../../../node_modules/", DENY, "CG-DEG-001"),
    ("rm -rf ../../../node_modules/*", DENY, "CG-DEG-001"),
    ("rm -rf ../../../node_modules/../etc", DENY, "CG-DEG-001"),
    ("rm -rf ../../../node_modules ../../../.git", DENY, "CG-DEG-001"),
    ("rm -rf ../node_modules", DENY, "CG-DEG-001"),  # the home's own
    ("rm -rf /node_modules", DENY, "CG-DEG-001"),
    ("rm -rf ~/node_modules", DENY, "CG-DEG-001"),
    ("cd /srv/app && rm -rf ../../../node_modules", DENY, "CG-DEG-001"),
])
def test_destruction_by_degree(line: str, expected: object, rule: str) -> None:
    assert_caught(line, expected, rule)  # type: ignore[arg-type]


@pytest.mark.parametrize("line", [
    'rm -f /tmp/"$name"',
    'rm -f build/"$name"',
    "unlink stale.lock",
    'find . -name "*.pyc" | xargs rm -f',
    "rm -rf build dist",
    "rm -rf node_modules",
    "rm -rf node_modules package-lock.json",
    "find . -name '*.log' -mtime +7 -delete",
    "rm -rf ./*.egg-info .pytest_cache .mypy_cache",
    "rm -rf dist/*",
    "rm -r docs/_build",
    "rm -rf target/debug",
    "rm -rf .venv .tox",
    "rm -rf /tmp/build-cache",
    "rm -f notes.txt",
    "rm -f ./a.out",
    "find . -name '*.pyc' -delete",
    "find . -type d -name __pycache__ -exec rm -rf {} +",
    "find build -delete",
    "truncate -s 0 build/app.log",
    "shred -u build/tmp.key",
    "srm build/tmp.key",
    "wipe -rf build",
    "srm -r dist",
    "cd build && rm -rf *",
    "cd build && make && rm -rf *",
    'bash -c "cd build && rm -rf *"',
    "rmdir empty",
    "find . -name __pycache__ | xargs rm -rf",
    "find . -name __pycache__ -print0 | xargs -0 rm -rf",
    "find build -type d | xargs rm -rf",
    "find . -name '*.pyc' | xargs rm -f",
    "echo build dist | xargs rm -rf",
    "printf 'build\\ndist\\n' | xargs rm -rf",
    "find . -name '*.pyc' -exec env LC_ALL=C rm -f {} +",
    "find . -name '*.log' -exec nice echo {} +",  # the wrapped program deletes nothing
    "rimraf dist coverage",
    "npx rimraf node_modules",
    "rimraf -g './src/**/fixtures/**/snapshots'",  # a project's own clean script
    "rimraf /tmp/build-cache",
    "npx rimraf@5 dist",
    "find . -name x -exec command -v {} +",  # command -v only names the program
    # the build output of other ecosystems: Erlang/Elixir ebin, Zig, Swift, GHC and C objects
    "rm -rf lib/*/ebin",
    "rm -rf lib/elixir/test/ebin/",
    "rm -rf zig-out .zig-cache",
    "rm -rf .build",
    "rm -rf autom4te.cache libvterm/.libs src/.deps",
    "rm -f *.so *.a *.lo",
    "find . -name '*.beam' -delete",
    "find . -name '*.hi' -o -name '*.dyn_o' -delete",
    "find . -name '*.swo' -exec rm -f {} +",  # vim's swap files, .swp to .swa
    "find . -name '.#*' -delete",  # emacs's lock files
    "rm -fr build dist .eggs requests.egg-info dist/requests-1.0-py3.12.egg",
    "rm -rf .phpunit.cache .php-cs-fixer.cache .kotlin .yardoc",
])
def test_regenerable_and_scratch_deletes_are_allowed(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("path", "expected"), [
    (f"{WS}/build/lib", True),
    (f"{WS}/pkg/__pycache__", True),
    (f"{WS}/pkg.egg-info", True),
    (f"{WS}/src", False),
    (f"{WS}/notes.bak", False),  # a backup is kept on purpose
    (f"{WS}/src/.main.py.swo", True),
    (f"{WS}/.git", False),
    (f"{WS}/lib/mix/ebin", True),
    (f"{WS}/src/redis.so", True),
    (f"{WS}/src/redis.c", False),
    (f"{WS}/lib/sources", False),
    (WS, False),
    ("/home/dev/build", False),
])
def test_regenerable(path: str, expected: bool) -> None:
    assert regenerable(path, WS) is expected
    assert regenerable(f"{WS}/gen/x", WS, ("gen",))


@pytest.mark.parametrize(("line", "expected"), [
    ("cd build && rm -rf *", None),
    ("cd build; rm -rf *", "CG-DEG-002"),  # DENY: the workspace if build is missing
    ("cd /srv && rm -rf www", "CG-DEG-001"),
])
def test_the_line_check_follows_cd(line: str, expected: str | None) -> None:
    """CG-DEG-003 judges a line's own deletes from where they run; it names the rule of the
    degree it found."""
    from vtables import CTX

    from clawgate.shell import parse
    from clawgate.validators.degreeline import DeleteByDegreeInLine

    verdict = DeleteByDegreeInLine().check_line(parse(line), CTX)
    found = verdict.reasons[0].rule_id if verdict.reasons else None
    assert found == expected


@pytest.mark.parametrize(("line", "expected"), [
    ("rsync -a --delete /tmp/empty/ ~/", DENY),
    ("rsync -r --delete-before emptydir/ /home/dev/", DENY),
    ("rsync -a --delete empty/ src/", ASK),
    ("rsync -a --remove-source-files src/ /tmp/out/", ASK),
    ("mv ~/.ssh /dev/null", DENY),
    ("mv src /dev/null", ASK),
    ("tar --remove-files -cf x.tar src", ASK),
    ("tar czf x.tgz --remove-files docs", ASK),
    ("zip -rm x.zip src", ASK),
    ("7z a -sdel x.7z src", ASK),
])
def test_deletes_by_other_means(line: str, expected: object) -> None:
    """CG-DEG-004 hands each on as the recursive delete it amounts to."""
    assert_caught(line, expected, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("line", [
    "rsync -a --delete src/ build/",
    "rsync -av --delete dist/ deploy@example.com:/srv/app/",  # the remote side is not here
    "tar czf x.tgz src",
    "zip -r x.zip src",
    "mv notes.txt old-notes.txt",
])
def test_copies_and_archives_that_keep_their_sources_pass(line: str) -> None:
    outcome, rules = decide(line)
    assert "CG-DEG-001" not in rules and "CG-DEG-002" not in rules, (line, outcome, rules)


def test_git_rm_recursive_is_a_recursive_delete() -> None:
    """CG-DEG-004: git rm -r removes the files from the worktree; --cached only the index."""
    assert_caught("git rm -rf .", DENY, None)  # every tracked file: the whole workspace
    assert_caught("git rm -r src", ASK, None)
    assert_allowed("git rm -r --cached .")
    assert_allowed("git rm -r build")


@pytest.mark.parametrize("line", [
    "mv src build && rm -rf build",
    "mv src dist; rm -rf dist/*",
    "mv -t node_modules src && rm -rf node_modules",
    "git mv lib target && rm -rf target",
    "mv src build/keep && rm -rf build",
    "cd pkg && mv lib __pycache__ && rm -rf __pycache__",
])
def test_a_delete_the_line_filled_by_moving_first_asks(line: str) -> None:
    assert_caught(line, ASK, "CG-DEG-002")


@pytest.mark.parametrize("line", [
    "mv build/app.tgz release/ && rm -rf build",  # moved out of what is deleted
    "rm -rf build && mv staging build",  # deleted before anything is moved in
    "cp -r src build && rm -rf build",  # a copy: the source stays
])
def test_moves_that_do_not_fill_what_is_deleted_pass(line: str) -> None:
    assert_allowed(line)
