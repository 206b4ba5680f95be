"""Secrets and exposure: the whole environment dumped into the agent's context, and the machine
served to the network (a listener bound beyond loopback, a tunnel): ASK; DENY where what it
serves is a credential store or the home directory."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.programs.pyargv import python_module
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.credentials import credential_in, is_credential
from clawgate.validators.envdump import DUMPERS, dumps_environment
from clawgate.validators.paths import resolve
from clawgate.validators.secrets import SENDERS

_HINT = "print only the variable you need (printenv NAME)"


@register
class EnvironmentDump(Validator):
    """The whole environment printed into the agent's context (``env``, ``printenv``,
    ``export -p``, ``declare -x``, ``set``, ``ps e``, ``ps -p 1 eww``; ``compgen -e``, whose
    names a loop prints with ``${!v}``): API keys and tokens
    travel with it into the transcript. ASK; DENY when piped into a program that sends it
    anywhere (``ps eww | base64 | curl -d @- …``); one named variable stays ALLOW.

    Bad: ``env``, ``printenv | sort``. Harmless: ``printenv HOME``, ``env FOO=1 make``.
    """

    id = "CG-EXPO-001"
    programs = DUMPERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program in self.programs and dumps_environment(cmd):
            if cmd.pipes_into(SENDERS):
                return Verdict.deny(self.id, f"{cmd.text[:40]} sends every environment "
                                    f"variable, secrets included, to {', '.join(cmd.downstream)}")
            return Verdict.ask(self.id, f"{cmd.text[:40]} prints every environment variable, "
                               "secrets included", hint=_HINT)
        return NO_OPINION


_LOOPBACK = lazy_pattern(r"^(localhost|127(\.\d+){3}|::1|\[::1\]|ip6-localhost)(:\d+)?$")
_ADDRESS = lazy_pattern(r"^(\d{1,3}(\.\d{1,3}){3}|\[?[0-9a-fA-F:]{0,39}:[0-9a-fA-F:]{0,39}\]?"
                        r"|\*|localhost|[\w.-]{1,253}\.local)(:\d{1,5})?$")
_BIND_OPTIONS = frozenset({"--host", "--hostname", "--bind", "--bind-address", "--ip",
                           "--listen", "--address", "--addr", "--http-host", "--server-host"})
_BIND_HINT = lazy_pattern(r"--(host|bind|ip\b|listen|addr|http-host|server-host)|0\.0\.0\.0|::")
_ALL_INTERFACES = lazy_pattern(r"^(0\.0\.0\.0|\[?::\]?)(:\d+)?$")
_SPECIFIC = frozenset({"php", "socat", "ruby", "busybox", "nc", "ncat", "netcat", "pwncat"})
# Servers and the runners that start them, told where to bind with --host/--bind/--ip ...
_SERVERS = frozenset({
    "python", "pypy", "flask", "uvicorn", "gunicorn", "hypercorn", "daphne", "granian",
    "jupyter", "jupyter-lab", "jupyter-notebook", "voila", "streamlit", "gradio", "panel",
    "bokeh", "datasette", "mkdocs", "sphinx-autobuild", "mlflow", "tensorboard", "ollama",
    "vite", "astro", "next", "nuxt", "nuxi", "webpack", "webpack-dev-server", "http-server",
    "serve", "live-server", "browser-sync", "parcel", "ng", "vue-cli-service", "remix",
    "svelte-kit", "gatsby", "docusaurus", "storybook", "start-storybook", "node", "deno",
    "bun", "npm", "pnpm", "yarn", "npx", "bunx", "hugo", "jekyll", "bundle", "rails",
    "rackup", "puma", "thin", "unicorn", "php", "artisan", "symfony", "dotnet", "hexo",
    "zola", "caddy", "redis-server", "mongod", "code-server", "ttyd", "gotty", "wetty",
    "miniserve", "simple-http-server", "static-web-server", "darkhttpd", "busybox", "ruby",
    "uv", "poetry", "pipenv", "hatch", "pdm", "manage.py", "django-admin", "go", "cargo",
    "trunk", "dx", "mix", "iex", "lein", "clojure", "sbt", "gradle", "gradlew", "mvn",
    "quarto", "Rscript", "R", "shiny", "dash", "sanic", "fastapi", "litestar", "chainlit",
    *_SPECIFIC})
_WEB_TERMINALS = frozenset({"ttyd", "gotty", "wetty"})
_SOCAT_LISTEN = lazy_pattern(r"(?i)^(tcp[46]?|udp[46]?|openssl|sctp|unix|ssl)-listen:")
_NETCATS = frozenset({"nc", "ncat", "netcat", "pwncat"})
# Static file servers that bind every interface unless told an address (http-server, serve).
_WIDE_BY_DEFAULT = frozenset({"http-server", "serve", "live-server", "miniserve",
                              "simple-http-server", "static-web-server", "darkhttpd"})
_LOOPBACK_IN = lazy_pattern(r"(?:^|[=/@\[])(?:localhost|127\.\d+\.\d+\.\d+|::1)\b")


def _binds_wide(cmd: SimpleCommand) -> str | None:
    """The address a server is told to bind beyond loopback (``--host 0.0.0.0``), if any."""
    if not _BIND_HINT.search(cmd.text):
        return None
    words = [w.shown for w in cmd.words[1:]]
    for index, word in enumerate(words):
        if _ALL_INTERFACES.match(word):
            return word  # manage.py runserver 0.0.0.0:8000
        name, equals, value = word.partition("=")
        if name not in _BIND_OPTIONS:
            continue
        if not equals:
            value = words[index + 1] if index + 1 < len(words) else ""
            if name == "--host" and (not value or value.startswith("-")):
                return "every interface"  # vite/astro --host with no value
        if _ADDRESS.match(value) and not _LOOPBACK.match(value):
            return value
    return None


def _server(cmd: SimpleCommand) -> str | None:
    """What a command serves to the network beyond this machine, or None."""
    program = cmd.program or ""
    stem = program.rstrip("0123456789.")
    if program in _WEB_TERMINALS:
        return f"{program} (a shell in a web page)"
    if program in _WIDE_BY_DEFAULT:
        wide = _binds_wide(cmd)
        if wide is not None or not any(_LOOPBACK_IN.search(w.shown) for w in cmd.words[1:]):
            return f"{program} bound to {wide or 'every interface'}"
        return None
    if program not in _SPECIFIC and stem not in ("python", "pypy"):
        wide = _binds_wide(cmd)
        return None if wide is None else f"{program} bound to {wide}"
    args = [w.shown for w in cmd.words[1:]]
    module = python_module(args) if stem in ("python", "pypy") else None
    if module is not None and module[0] in ("http.server", "SimpleHTTPServer"):
        own = args[module[1]:]  # -mhttp.server, -Bm http.server: as CPython reads them
        bind = next((own[i + 1] for i, a in enumerate(own[:-1]) if a in ("-b", "--bind")), "")
        return None if _LOOPBACK.match(bind) else "python -m http.server (all interfaces)"
    if program == "php" and "-S" in args:
        where = args[args.index("-S") + 1] if args.index("-S") + 1 < len(args) else ""
        return None if _LOOPBACK.match(where) else f"php -S {where}"
    if program in _NETCATS and any(a.startswith("-") and "l" in a and not a.startswith("--")
                                   for a in args):
        return None if any(_LOOPBACK.match(a) for a in args) else f"{program} listening"
    if program == "socat" and any(_SOCAT_LISTEN.match(a) and "bind=127." not in a
                                  for a in args):
        return "socat listening"
    if program in ("ruby", "busybox") and "httpd" in args[:4]:
        return None if any(_LOOPBACK.match(a.rsplit("=", 1)[-1]) for a in args) else (
            f"{program} httpd")
    wide = _binds_wide(cmd)
    return None if wide is None else f"{program} bound to {wide}"


@register
class ServesTheMachine(Validator):
    """A listener open to the network: ``python -m http.server`` (it binds every interface
    unless told otherwise), ``php -S 0.0.0.0:8000``, ``nc -l``, ``socat TCP-LISTEN``, a dev
    server (or the runner starting it) given ``--host 0.0.0.0`` or a bare ``--host``, a
    terminal served as a web page (``ttyd``): whoever can reach the machine gets in. ASK.

    Bad: ``python3 -m http.server 8000``. Harmless: ``python3 -m http.server -b 127.0.0.1``.
    """

    id = "CG-EXPO-002"
    programs = _SERVERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program or ""
        if len(cmd.words) < 2 or (program not in _SERVERS and
                                  program.rstrip("0123456789.") not in _SERVERS):
            return NO_OPINION
        what = _server(cmd)
        if what is None:
            return NO_OPINION
        served = credential_in(cmd, ctx) or _home_named(cmd, ctx) or _cwd_served(cmd, ctx)
        if served is not None:  # --directory ~/.ssh, -t ~, busybox httpd -h ~/.aws
            return Verdict.deny(self.id, f"{what} serves {served}, credentials included, to "
                                "the network", hint="serve the project's own directory")
        return Verdict.ask(self.id, f"{what} serves this machine to the network",
                           hint="bind to 127.0.0.1")


_ROOT_OPTIONS = frozenset({"--directory", "-d", "-t", "-h", "--root", "--dir"})


def _cwd_served(cmd: SimpleCommand, ctx: Context) -> str | None:
    """The working directory, when it is the home directory or a credential store and the
    server is given no directory of its own to serve (``cd ~ && python3 -m http.server``)."""
    if any(w.shown.split("=", 1)[0] in _ROOT_OPTIONS for w in cmd.words[1:]):
        return None
    here = ctx.cwd.rstrip("/")
    if here == ctx.home.rstrip("/") or is_credential(here, ctx):
        return here
    return None


def _home_named(cmd: SimpleCommand, ctx: Context) -> str | None:
    """The home directory, when a word of ``cmd`` (or an option's value) names it whole."""
    for word in cmd.words[1:]:
        text = word.shown.rsplit("=", 1)[-1]
        path = resolve(Word(text, text, expansions=word.expansions), ctx).path
        if path is not None and path.rstrip("/") == ctx.home.rstrip("/"):
            return path
    return None


_TUNNELS = {"ngrok": None, "cloudflared": frozenset({"tunnel", "access"}), "lt": None,
            "localtunnel": None, "bore": frozenset({"local"}), "frpc": None, "zrok": None,
            "tailscale": frozenset({"funnel", "serve"}), "devtunnel": frozenset({"host"}),
            "loclx": None, "expose": None, "pagekite": None, "pagekite.py": None,
            "telebit": None, "tunnelto": None,
            # VS Code and its forks: a tunnel, or the editor (terminal included) as a web page
            **dict.fromkeys(("code", "code-insiders", "code-oss", "codium", "cursor",
                             "windsurf"), frozenset({"tunnel", "serve-web"}))}
_QUERIES = frozenset({"version", "--version", "-v", "help", "--help", "-h", "status", "list"})


@register
class Tunnel(Validator):
    """A tunnel that publishes a local port or the machine itself on the internet (``ngrok``,
    ``cloudflared tunnel``, ``ssh -R``, ``lt``, ``bore local``, ``tailscale funnel``,
    ``code tunnel``, ``code serve-web``: an editor with a terminal served as a web page). ASK.

    Bad: ``ngrok http 8000``, ``ssh -R 80:localhost:3000 serveo.net``. Harmless: ``ngrok version``.
    """

    id = "CG-EXPO-003"
    programs = frozenset({*_TUNNELS, "ssh", "autossh"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program or ""
        args = [w.shown for w in cmd.words[1:]]
        if program in ("ssh", "autossh"):
            if any(a.startswith("-") and not a.startswith("--") and "R" in a for a in args):
                return Verdict.ask(self.id, "ssh -R publishes a local port on a remote host",
                                   hint="use -L to reach a remote service instead")
            return NO_OPINION
        if program not in _TUNNELS or not args or args[0] in _QUERIES:
            return NO_OPINION
        verbs = _TUNNELS[program]
        operands = [a for a in args if not a.startswith("-")]
        if verbs is not None and not verbs.intersection(operands[:1]):
            return NO_OPINION
        return Verdict.ask(self.id, f"{program} publishes this machine on the internet",
                           hint="share a build artefact instead")


_SHORT_P = lazy_pattern(r"^-[a-zA-Z]{0,8}p\d*$")  # -p, -p1, -fp 1 (strace)
_ATTACHERS = {"gdb": ("-p", "--pid"), "lldb": ("-p", "--attach-pid"), "strace": ("-p",),
              "ltrace": ("-p",), "gcore": (), "py-spy": ("-p", "--pid"), "pyrasite": (),
              "perf": ("-p", "--pid"), "bpftrace": ("-p",)}


@register
class AttachToProcess(Validator):
    """Attaching a debugger or tracer to a running process (``gdb -p``, ``strace -p``,
    ``gcore``, ``py-spy dump --pid``): its memory, environment and every string it handles
    (the guard's own keys, when the pid is the guard's) come out. ASK, high.

    Bad: ``gdb -p $PPID -batch -ex 'info proc'``. Harmless: ``gdb ./a.out``, ``strace ls``.
    """

    id = "CG-EXPO-004"
    programs = frozenset(_ATTACHERS)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program or ""
        options = _ATTACHERS.get(program)
        if options is None:
            return NO_OPINION
        words = [w.shown for w in cmd.words[1:]]
        attaches = (not options and bool(words)) or any(
            w in options or any(w.startswith(o + "=") for o in options)
            or ("-p" in options and _SHORT_P.match(w) is not None) for w in words
        ) or (program in ("gdb", "lldb") and any("attach" in w for w in words))
        if not attaches:
            return NO_OPINION
        return Verdict.of(Outcome.ASK, self.id, f"{program} attaches to a running process "
                          "and reads its memory", hint="debug a process you start yourself",
                          risk=Risk.HIGH)
