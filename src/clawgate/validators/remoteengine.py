"""Container and cluster clients pointed at another machine's engine: ``docker -H
tcp://HOST``, ``DOCKER_HOST=ssh://HOST``, ``podman --url``, ``CONTAINER_HOST``. Every command
the client then sends (list, run, exec, remove) acts on that engine, over the network: the
command is not the local one it reads as. A Unix socket, or the loopback, is this machine."""

from __future__ import annotations

from urllib.parse import urlsplit

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.envvars import assignments
from clawgate.validators.netaddr import classify

_CLIENTS = frozenset({"docker", "podman", "nerdctl"})
_OPTIONS = frozenset({"-H", "--host", "--url"})
_VARIABLES = frozenset({"DOCKER_HOST", "CONTAINER_HOST"})
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly", "env"})
# the clients' other options that take a value (the value is not the subcommand)
_VALUED = frozenset({"--config", "-c", "--context", "-l", "--log-level", "--tlscacert",
                     "--tlscert", "--tlskey", "--connection", "--identity", "--root",
                     "--runroot", "--storage-driver", "--namespace", "-n", "--address", "-a"})


def _remote(value: str | None) -> str | None:
    """The host ``value`` names when it is another machine's (None: this machine); a value
    only known at run time is another machine's until read."""
    if value is None:
        return "a host known only at run time"
    if not value or value.startswith(("unix://", "npipe://", "fd://", "/")):
        return None
    host = urlsplit(value if "://" in value else "tcp://" + value).hostname or ""
    return None if classify(host) == "loopback" else host


def _endpoints(cmd: SimpleCommand) -> list[str | None]:
    found = [value.value for name, value in assignments(cmd) if name in _VARIABLES]
    if cmd.program not in _CLIENTS:
        return found
    words = cmd.words
    i = 1
    while i < len(words):  # the client's own options, up to its subcommand
        word, text = words[i], words[i].value
        if text is None:
            if word.text.startswith(("--host=", "--url=", "-H")):
                found.append(None)
            elif not word.text.startswith("-"):
                break
        elif text in _OPTIONS and i + 1 < len(words):
            found.append(words[i + 1].value)
        elif text.startswith(("--host=", "--url=")):
            found.append(text.partition("=")[2])
        elif text.startswith("-H") and len(text) > 2:
            found.append(text[2:])
        elif not text.startswith("-"):
            break  # the subcommand: what follows is its own
        i += 2 if text in _OPTIONS | _VALUED else 1
    return found


@register
class RemoteEngine(Validator):
    """A container client given another machine's engine (``docker -H tcp://203.0.113.9:2375
    ps``, ``export DOCKER_HOST=ssh://build-host``): every command it sends acts over the
    network on that machine. ASK.

    Bad: ``DOCKER_HOST=tcp://203.0.113.9:2375 docker ps``. Harmless:
    ``docker -H unix:///var/run/docker.sock ps``, ``DOCKER_HOST=tcp://127.0.0.1:2375 docker ps``.
    """

    id = "CG-NET-005"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if program in _CLIENTS or program in _DECLARERS else sh.ASSIGN

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not cmd.assignments and cmd.program not in _CLIENTS | _DECLARERS:
            return NO_OPINION
        for endpoint in _endpoints(cmd):
            host = _remote(endpoint)
            if host is not None:
                return Verdict.ask(self.id, f"the container client talks to the engine of "
                                   f"{host}: what it runs or removes is on that machine, over "
                                   "the network", hint="use the local engine")
        return NO_OPINION
