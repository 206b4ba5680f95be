"""Wrapper programs: how each parses its options, and what it does when given no command."""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.records import record
from clawgate.shell.model import Word
from clawgate.validators.argv import NO_OPTIONS, Options, command_start, opts

_ASSIGNMENT = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*=")


@record(frozen=True, slots=True)
class Wrap:
    """A program that runs the command given in its argv.

    ``code`` lists short options and ``code_long`` long options whose value is shell code
    (``su -c``, ``flock -c``); ``shell_flags`` are flags that start a shell (``sudo -i``);
    ``bare_shell`` means that with no command the program starts a shell (``chroot dir``).
    ``tail`` lists options (as spelled) after which the rest of argv is the command, the only
    way the program is given one (``nix develop .#ci -c make check``: ``.#ci`` is not a
    command). ``joined`` means the command's words are joined with spaces and run by a shell
    (``watchexec 'cargo test'``); ``unjudged`` lists options (as spelled) with which the
    program runs something that is not read here (``watchexec --shell=PROG``); ``optional``
    lists options (as spelled) whose value is optional, taken from the next word when one
    follows (``watchexec --clear reset -- make``); ``flags`` lists the options known to take
    no value: before a ``tail`` option, any other may have taken it as its value (``nix
    develop --max-jobs -c …``: nix reads any ``--SETTING VALUE``); ``env`` lists options
    whose ``NAME=VALUE`` goes into the command's environment (``watchexec -E``); ``chdir``
    options whose value is the directory the command runs in (``env -C DIR``). ``prefix`` is
    the program the rest of argv is a command of (``yarn workspaces foreach -A run build``
    runs ``yarn run build`` in each workspace). ``split`` means the ``code`` options' value is
    no shell code but split by env's own rules into more of the wrapper's argv (``env -S``).
    """

    options: Options = NO_OPTIONS
    privileged: bool = False
    bare_shell: bool = False
    code: str = ""
    code_long: frozenset[str] = frozenset()
    shell_flags: frozenset[str] = frozenset()
    tail: frozenset[str] = frozenset()
    joined: bool = False
    unjudged: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()
    env: frozenset[str] = frozenset()
    chdir: frozenset[str] = frozenset()
    prefix: str = ""
    split: bool = False


def _w(short: str = "", long: str = "", skip: int = 0, *, privileged: bool = False,
       bare_shell: bool = False, code: str = "", code_long: str = "",
       shell_flags: str = "", tail: str = "", joined: bool = False,
       unjudged: str = "", pair: str = "", optional: str = "", flags: str = "",
       env: str = "", chdir: str = "", dash: str = "", prefix: str = "",
       split: bool = False) -> Wrap:
    return Wrap(opts(short, long, skip, pair, dash), privileged, bare_shell, code,
                frozenset(code_long.split()), frozenset(shell_flags.split()),
                frozenset(tail.split()), joined, frozenset(unjudged.split()),
                frozenset(optional.split()), frozenset(flags.split()), frozenset(env.split()),
                frozenset(chdir.split()), prefix, split)


# mpirun and mpiexec (Open MPI, MPICH): options spelled with one dash or two, some with two
# values (``-mca btl self``, ``-genv NAME VALUE``), then the program and its arguments
_MPI_VALUES = ("np n c N H host hosts hostfile machinefile f map-by bind-to rank-by prefix wdir "
               "npernode npersocket ppn output-filename timeout x")
_MPI = _w("ncNHfx", _MPI_VALUES, pair="mca gmca genv env", dash=_MPI_VALUES + " mca gmca genv env")

# Wrappers that run the rest of their argv with the same privileges.
PLAIN: dict[str, Wrap] = {
    "nice": _w("n", "adjustment"),
    "ionice": _w("cnpPu", "class classdata pid pgid uid"),
    "timeout": _w("sk", "signal kill-after", skip=1),
    "nohup": _w(),
    "setsid": _w(),
    "time": _w("fo", "format output"),
    "stdbuf": _w("ioe", "input output error"),
    "chrt": _w("T", "sched-runtime sched-period sched-deadline", skip=1),
    "taskset": _w("", "", skip=1),
    "cpulimit": _w("lpe", "limit pid exe"),
    "choom": _w("np", "adjust pid"),
    "setarch": _w("B", "uname-2.6"),
    "flock": _w("wEo", "timeout wait conflict-exit-code", skip=1, code="c", code_long="command"),
    "strace": _w("abeEIoOpPsSuUX", "output attach string-limit env user"),
    "ltrace": _w("aADeFlnopsuwx", "output library"),
    "valgrind": _w(),
    "multitime": _w("nqs"),
    "rlwrap": _w("bcCfFgHlOpPqRsStw", "history-filename file prompt-colour"),
    "torify": _w(), "torsocks": _w("uapP", "user pass address port"),
    "proxychains": _w("f"), "proxychains4": _w("f"),
    "aa-exec": _w("pn", "profile namespace"), "aoss": _w(), "distcc": _w(),
    "ld.so": _w("", "library-path preload audit argv0"),
    "ld-linux.so.2": _w("", "library-path preload audit argv0"),
    "ld-linux-x86-64.so.2": _w("", "library-path preload audit argv0"),
    "logsave": _w("", "", skip=1), "grc": _w(), "pexec": _w("nr", "number"),
    "softlimit": _w("mdsalofcrtp"), "setlock": _w("", "", skip=1),
    "sshpass": _w("pfdP"), "ssh-agent": _w("aEtP"), "catchsegv": _w(), "dbus-launch": _w(),
    "dbus-run-session": _w("", "config-file dbus-daemon"),
    "wsl": _w("du", "distribution user cd shell-type unregister export import set-default "
              "set-version install terminate", bare_shell=True),
    "fakeroot": _w("ls"), "eatmydata": _w(), "chronic": _w(), "nocache": _w(), "unbuffer": _w(),
    "caffeinate": _w("tw"), "xvfb-run": _w("nsfep", "server-num server-args error-file auth-file"),
    "faketime": _w("", "", skip=1), "envdir": _w("", "", skip=1),
    "cgexec": _w("g"),
    # macOS arch: the rest of argv run as the architecture named (-arm64, -x86_64, -arch NAME)
    "arch": _w("de", "arch", dash="arch"),
    "prlimit": _w("p", "pid"), "trickle": _w("dulwtn"), "ifne": _w(), "busybox": _w(),
    "toybox": _w(), "exec": _w("a"), "builtin": _w(), "coproc": _w(), "firejail": _w(
        "", "", bare_shell=True), "mpirun": _MPI, "mpiexec": _MPI,
    "srun": _w("nNpcJtw", "partition time job-name"),
    "env": _w("uC", "unset chdir", code="S", chdir="-C --chdir", code_long="split-string",
              split=True),
    "script": _w("IOTBEo", "log-in log-out log-timing", skip=1, code="c",
                 code_long="command", bare_shell=True),
    "screen": _w("SpcheTtrxRD", "", bare_shell=True),  # -d -m -l: flags; -r -x: a session
    "dtach": _w("", "", skip=1), "abduco": _w("", "", skip=1),
    # a Flatpak sandbox's way to run a command (on the host with --host: outside the sandbox,
    # as the same user), heaptrack's profiled run, task spooler's queue (tsp [opts] CMD…:
    # -L, -D, -W and -N take a value), and gpg-agent --daemon CMD… (the command with the
    # agent's environment; the programs its own options name are not read here)
    "flatpak-spawn": _w("", "forward-fd env unset-env directory app-path usr-path "
                        "sandbox-expose sandbox-expose-ro sandbox-expose-path "
                        "sandbox-expose-path-ro sandbox-flag", chdir="--directory"),
    "heaptrack": _w("op", "output pid"),
    "tsp": _w("LDWN"),
    "gpg-agent": _w("", "homedir options log-file pinentry-program scdaemon-program "
                    "debug-level", unjudged="--pinentry-program --scdaemon-program"),
    # GNU parallel's semaphore (sem [opts] CMD…): its words joined and run by a shell
    "sem": _w("j", "id jobs semaphorename semaphoretimeout st timeout", joined=True),
    "setcap-exec": _w(),
    "openvt": _w("cfsuvwe", "console"), "perf": _w("eoCptrGcF", "event output", skip=1),
    "pidstat": _w(), "systemd-cat": _w("tpP", "identifier priority"),
    # what build and test scripts put in front of a command (each one's own documentation):
    # variables set portably (cross-env NAME=VALUE… CMD; cross-env-shell and env-cmd
    # --use-shell join the words for a shell), compiler caches and launchers (ccache gcc …),
    # coverage and tracing runners (kcov [opts] OUTDIR CMD…, ddtrace-run CMD…), container
    # inits (tini [opts] -- CMD…, dumb-init CMD…) and NUMA placement (numactl -N 0 CMD…)
    "cross-env": _w(), "cross-env-shell": _w(joined=True),
    "env-cmd": _w("fer", "file environments rc-file", joined=True),
    "ccache": _w(), "sccache": _w(), "icecc": _w(), "buildcache": _w(),
    "kcov": _w("pl", "pid limits", skip=1), "ddtrace-run": _w(),
    "tini": _w("pe"), "dumb-init": _w("r", "rewrite"),
    "numactl": _w("ipmNCP", "interleave preferred membind cpunodebind physcpubind "
                  "preferred-many"),
    # s6's with-contenv, Xcode's tool runner (xcrun [-sdk SDK] TOOL…), and the g-prefixed
    # names Homebrew gives GNU coreutils
    "with-contenv": _w(),
    "xcrun": _w("", "sdk toolchain", dash="sdk toolchain"),
    "gtimeout": _w("sk", "signal kill-after", skip=1), "gnice": _w("n", "adjustment"),
    "gnohup": _w(), "gstdbuf": _w("ioe", "input output error"),
    "sde": _w(tail="--"), "sde64": _w(tail="--"),  # Intel's emulator: sde [opts] -- CMD…
    # watchexec [opts] [--] CMD...: on each change, CMD's words joined and run by a shell
    # (-c/--clear, --poll and --log-file take a value only when one follows)
    "watchexec": _w("efiwWdsEFoj", "exts filter ignore watch watch-non-recursive debounce "
                    "signal stop-signal stop-timeout delay-run env filter-file ignore-file "
                    "project-origin workdir on-busy-update emit-events-to color watch-file "
                    "wrap-process shell filter-prog fs-events map-signal socket timeout "
                    "completions", joined=True, unjudged="--shell --filter-prog",
                    optional="-c --clear --poll --log-file", env="-E --env",
                    chdir="--workdir"),
    "bwrap": _w("", "bind ro-bind dev-bind chdir setenv unsetenv tmpfs proc dev uid gid "
                "hostname symlink dir file bind-data ro-bind-data remount-ro exec-label "
                "file-label seccomp add-seccomp-fd block-fd info-fd json-status-fd lock-file "
                "sync-fd userns userns2 pidns cap-add cap-drop argv0 perms size chmod"),
}

# Wrappers that change who runs the command: asking is the least, a shell is refused.
PRIVILEGED: dict[str, Wrap] = {
    "sudo": _w("uUgCDhpRrtT", "user other-user group close-from chdir host prompt chroot role "
               "type command-timeout", shell_flags="-s -i --shell --login",
               chdir="-D --chdir"),
    "doas": _w("uC", "", shell_flags="-s"),
    "run0": _w("uUgD", "user group chdir unit property setenv description slice",
               bare_shell=True),
    "pkexec": _w("", "user", bare_shell=True),
    "su": _w("sgGw", "shell group supp-group whitelist-environment", code="c",
             code_long="command session-command", skip=1, bare_shell=True),
    "runuser": _w("ugGsw", "user group supp-group shell whitelist-environment", code="c",
                  code_long="command session-command", bare_shell=True),
    "sg": _w("", "", skip=1, code="c", bare_shell=True),
    "newgrp": _w("", "", skip=1, bare_shell=True),
    "chroot": _w("", "userspec groups", skip=1, bare_shell=True),
    "nsenter": _w("tSGw", "target setuid setgid wd root", bare_shell=True),
    "setpriv": _w("", "reuid regid groups inh-caps ambient-caps bounding-set securebits "
                  "pdeathsig selinux-label apparmor-profile landlock-access landlock-rule"),
    "ksu": _w("nlCc", "", bare_shell=True),
    "systemd-run": _w("pEuMGsHd", "property setenv unit machine uid gid slice description "
                      "working-directory on-calendar on-active on-boot on-startup "
                      "on-unit-active on-unit-inactive timer-property path-property "
                      "socket-property service-type nice", shell_flags="-S --shell"),
    "start-stop-daemon": _w("xaunpcgrNdPIkKsRtm", "exec startas name user pidfile chuid "
                            "group chroot nicelevel chdir procsched iosched umask retry "
                            "signal remove-pidfile"),
    "capsh": _w(),
    "calife": _w("", "", bare_shell=True),
    # the container and supervision tools that run a command as another user (gosu USER CMD…,
    # su-exec USER CMD…, daemontools' setuidgid and s6's s6-setuidgid ACCOUNT CMD…, runit's
    # chpst -u USER CMD…): identity changed as by setpriv
    "gosu": _w("", "", skip=1), "su-exec": _w("", "", skip=1),
    # SELinux: runcon [-t TYPE] [-u USER] [-r ROLE] [-l RANGE] CMD… runs it in another
    # security context (runcon CONTEXT CMD… leaves the context to be read as the command)
    "runcon": _w("turl", "type user role range"),
    "setuidgid": _w("", "", skip=1), "s6-setuidgid": _w("", "", skip=1),
    "chpst": _w("ulUenmdofcrt"),
    "machinectl": _w("", "", skip=1),
    # new namespaces (often a user namespace where the caller is root) or a faked root
    "unshare": _w("SGRw", "propagation setgroups map-user map-group map-users map-groups "
                  "setuid setgid root wd", bare_shell=True),
    "proot": _w("rbqwkmRvp", "rootfs bind mount qemu cwd kernel-release verbose",
                bare_shell=True),
    # containers and chroots as root: a shell in the tree when given no command
    "systemd-nspawn": _w("DMuSEi", "directory machine user slice setenv image bind bind-ro "
                         "overlay overlay-ro tmpfs network-interface network-veth-extra "
                         "capability drop-capability private-users chdir", bare_shell=True),
    "arch-nspawn": _w("CMcf", "", skip=1, bare_shell=True),
    "arch-chroot": _w("u", "", skip=1, bare_shell=True),
}

# uv's options that take a value, shared by ``uv run`` and ``uvx`` (resolver, index, cache).
_UV_VALUES = ("python with with-editable with-requirements project directory env-file index "
              "default-index index-url extra-index-url find-links index-strategy resolution "
              "prerelease exclude-newer link-mode config-file config-setting cache-dir color "
              "keyring-provider python-platform refresh-package reinstall-package "
              "upgrade-package build-constraints constraints overrides allow-insecure-host "
              "fork-strategy no-binary-package no-build-package no-build-isolation-package")

# mise exec|x [TOOL@VERSION…] [-- CMD…] [-c CODE]: the tools are not a command; with neither,
# a shell starts
_MISE = _w("Cj", "cd jobs", code="c", code_long="command", tail="--", bare_shell=True,
           chdir="-C --cd")

# nix develop|shell: the options that take one value, two (--arg NAME EXPR), or none
_NIX = _w("fIkuj", "file include keep unset keep-env-var unset-env-var profile phase expr "
          "inputs-from update-input reference-lock-file output-lock-file eval-store store "
          "log-format arg-from-stdin max-jobs cores system eval-system builders "
          "substituters extra-substituters", pair="s arg argstr arg-from-file override-input "
          "override-flake option redirect set-env-var", tail="-c --command", bare_shell=True,
          flags="-i --ignore-environment --impure --build --check --configure --install "
          "--installcheck --unpack --debugger --refresh --offline -L --print-build-logs -v "
          "--verbose --debug --quiet --no-write-lock-file --recreate-lock-file "
          "--commit-lock-file --no-update-lock-file --no-registries --accept-flake-config "
          "-K --keep-failed --keep-going --fallback --show-trace --dry-run --derivation")

# npm exec's and npx's options that take no value: the next word is the package's command
# (``npx --yes ts-node f.ts``), never the option's value.
_NPX_FLAGS = ("-y --yes --no --no-install --ignore-existing -q --quiet --prefer-online "
              "--prefer-offline --offline --include-workspace-root --workspaces -ws")

# Programs whose subcommand runs the command that follows (``npm exec``, ``uv run``).
SUBCOMMAND: dict[tuple[str, str], Wrap] = {
    ("npm", "exec"): _w("c", "package call", code="c", code_long="call", flags=_NPX_FLAGS),
    ("npx", ""): _w("pc", "package call", code="c", code_long="call", flags=_NPX_FLAGS),
    ("pnpm", "exec"): _w(chdir="-C --dir"), ("pnpm", "dlx"): _w("", "package"),
    ("pnpx", ""): _w("", "package"),  # pnpm's own spelling of pnpm dlx
    ("yarn", "exec"): _w(chdir="--cwd"),
    ("yarn", "dlx"): _w("p", "package"), ("yarn", "run"): _w(),  # yarn run X: or the bin X
    ("pipx", "run"): _w("", "spec python pip-args index-url backend"),
    ("bunx", ""): _w(), ("bun", "x"): _w(), ("bun", "exec"): _w(),
    ("uv", "run"): _w("pifCPbc", _UV_VALUES + " group only-group no-group extra no-extra package",
                      chdir="--directory"),
    ("uvx", ""): _w("pifCPbc", _UV_VALUES + " from"), ("poetry", "run"): _w(),
    ("uv", "tool run"): _w("pifCPbc", _UV_VALUES + " from"),  # uvx spelled long
    ("pipenv", "run"): _w(), ("pdm", "run"): _w(), ("hatch", "run"): _w(), ("rye", "run"): _w(),
    ("bundle", "exec"): _w(), ("cabal", "exec"): _w(), ("stack", "exec"): _w(),
    ("conda", "run"): _w("np", "name prefix cwd"), ("mamba", "run"): _w("np", "name prefix cwd"),
    ("micromamba", "run"): _w("np", "name prefix cwd"),
    ("pixi", "run"): _w("e", "manifest-path environment auth-file pypi-keyring-provider "
                        "concurrent-solves concurrent-downloads"),
    # pixi exec [opts] CMD…: CMD in a temporary environment of the packages given (--with)
    ("pixi", "exec"): _w("swcp", "spec with channel platform auth-file pypi-keyring-provider "
                         "concurrent-solves concurrent-downloads"),
    ("direnv", "exec"): _w("", "", skip=1), ("mise", "exec"): _MISE, ("mise", "x"): _MISE,
    ("asdf", "exec"): _w(), ("rbenv", "exec"): _w(), ("pyenv", "exec"): _w(),
    ("fnm", "exec"): _w("", "using"), ("opam", "exec"): _w(), ("xdotool", "exec"): _w(),
    ("task", "execute"): _w(),
    # pueue add [opts] [--] CMD…: queued for pueue's daemon, its words joined and run by a shell
    ("pueue", "add"): _w("wdgaol", "working-directory delay group after priority label",
                         joined=True, chdir="-w --working-directory"),
    # spin run [--] CMD… (the scientific Python developer tool: CMD in the built package's
    # environment), tox exec [-e ENV] -- CMD…, carton exec CMD… (Perl), newrelic-admin
    # run-program CMD…
    ("spin", "run"): _w(), ("tox", "exec"): _w("ecx", "conf root workdir override", tail="--"),
    ("carton", "exec"): _w(), ("newrelic-admin", "run-program"): _w(),
    # lerna exec [opts] [--] CMD… (a shell runs it in each package: the command is lerna's
    # first operand, and ``--`` only lets its words start with a dash), yarn workspaces
    # foreach [opts] YARN-COMMAND… (in each workspace), volta run [--node V…] CMD…, the exec
    # of the other version managers (as rbenv's and pyenv's), rr record CMD…, esy x CMD…
    ("lerna", "exec"): _w("", "scope ignore concurrency since loglevel", joined=True),
    ("yarn", "workspaces foreach"): _w("j", "jobs include exclude from since", prefix="yarn"),
    ("volta", "run"): _w("", "node npm yarn pnpm env"),
    ("jenv", "exec"): _w(), ("nodenv", "exec"): _w(), ("goenv", "exec"): _w(),
    ("plenv", "exec"): _w(), ("rr", "record"): _w(), ("esy", "x"): _w(),
    ("ip", "netns"): _w("", "", skip=2),
    ("ip", "vrf"): _w("", "", skip=2),
    # nix develop|shell INSTALLABLE… [-c CMD ARGS…]: the installables are not a command, and
    # without -c an interactive shell starts
    ("nix", "develop"): _NIX, ("nix", "shell"): _NIX,
    # devenv shell [--] [CMD ARGS…] and sst shell [CMD…]: the command in the project's
    # environment; without one, an interactive shell
    ("devenv", "shell"): _w(bare_shell=True),
    # melos exec [opts] [--] CMD…: the words after its options joined, run by a shell in each
    # package (``--`` only lets them start with a dash)
    ("melos", "exec"): _w("c", "concurrency scope ignore diff since dir-exists file-exists "
                          "depends-on no-depends-on category", joined=True),
    ("sst", "shell"): _w("", "stage target", bare_shell=True),
    ("nix-shell", ""): _w("pIAjE", "packages include attr cores max-jobs arg argstr keep "
                          "expr", code_long="run command"),
    ("flatpak", "run"): _w("", "", skip=1), ("toolbox", "run"): _w("c", "container"),
    ("distrobox", "enter"): _w("n", "name"), ("schroot", ""): _w("cu", "chroot user"),
    ("codex", "sandbox"): _w("", "", skip=1), ("dotenv", ""): _w("fe"),
    ("doppler", "run"): _w("pc", "project config", code_long="command"),
    ("op", "run"): _w("", "env-file"), ("aws-vault", "exec"): _w("", "", skip=1),
    ("heroku", "run"): _w("a", "app"),
}


def program_through_wrappers(words: tuple[Word, ...], index: int) -> str | None:
    """The basename of the program ``words[index:]`` ends up running, looking through the
    wrappers in front of it with their own options (``env A=b nice -n 5 rm`` runs ``rm``): what
    ``find -exec`` and ``xargs`` hand a command to. None when the command is not known."""
    found = start_through_wrappers(words, index)
    value = None if found is None else words[found].value
    return None if value is None else value.rsplit("/", 1)[-1]


def start_through_wrappers(words: tuple[Word, ...], index: int) -> int | None:
    """The index of the word naming the program ``words[index:]`` ends up running, through the
    wrappers in front of it (see ``program_through_wrappers``); None when not known."""
    for _ in range(8):  # wrappers nest; a deeper chain is not known here
        while index < len(words) and _ASSIGNMENT.match(words[index].shown):
            index += 1
        value = words[index].value if index < len(words) else None
        if value is None:
            return None
        name = value.rsplit("/", 1)[-1]
        if name == "command":  # /usr/bin/command of POSIX: runs its operand (-v only names it)
            start = index
            index += 1
            while index < len(words) and words[index].value in ("-p", "--"):
                index += 1
            if index < len(words) and words[index].value in ("-v", "-V"):
                return start
            continue
        spec = PLAIN.get(name) or PRIVILEGED.get(name)
        if spec is None:
            return index
        found = command_start(words, index + 1, spec.options)
        if found is None:
            return index
        index = found
    return None
