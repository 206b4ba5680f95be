"""Containers and pods given the host's powers (CG-INFRA-003): privileged mode, the host's
process, IPC or user namespace, SYS_ADMIN, no confinement, the host's devices or system
directories. A host system directory mounted writable is DENY. A privileged container started
for a job of its own (``docker run --privileged tonistiigi/binfmt --install all``) stays
CG-WRAP-010's ASK; one handed a shell, ``nsenter``, ``chroot`` or a second host power, and a
pod asking for them, is the host: DENY."""

from __future__ import annotations

import re

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.consoles import fed_text

_ENGINES = frozenset({"docker", "podman", "nerdctl"})
# Powers that reach the host by themselves: privileged mode, the host's processes, kernel
# modules and raw devices, mounting filesystems.
_POWERS = lazy_pattern(
    r"^(?:--privileged(?:=true)?|--pid[= ]host|--cap-add[= ](?:ALL|(?:CAP_)?SYS_(?:ADMIN|MODULE|"
    r"RAWIO)|(?:CAP_)?DAC_READ_SEARCH)|--device[= ]/dev/(?:sd|nvme|mem|kmem|port|xvd|vd))", re.I)
# Looser confinement that only helps a power above (alone it is the everyday debugging recipe:
# ``--cap-add=SYS_PTRACE --security-opt seccomp=unconfined``).
_LOOSER = lazy_pattern(
    r"^(?:--(?:ipc|userns|uts|cgroupns)[= ]host|--cap-add[= ](?:CAP_)?SYS_PTRACE|"
    r"--security-opt[= ](?:apparmor|seccomp|systempaths)[=:]unconfined|"
    r"--security-opt[= ]label[=:]disable)", re.I)
# A whole system directory of the host mounted writable (``-v /etc:/x``, ``-v /proc:/host``).
_SYSTEM_MOUNT = lazy_pattern(r"^(?:/(?:etc|root|boot|home|usr|bin|sbin|lib\w*|var|proc|sys|"
                             r"dev|run))/?:[^:]+(?::(?!ro\b)\w+)?$")
_SHELLS = frozenset({"sh", "bash", "ash", "zsh", "dash"})
_INTO_HOST = frozenset({"nsenter", "chroot", "mount", "insmod", "modprobe", "debugfs", "fdisk"})
# Pod fields that hand a pod the node: privileged, host namespaces, host paths of the system.
_POD_POWERS = lazy_pattern(
    r"[\"']?(privileged|hostPID|hostIPC)[\"']?\s*:\s*[\"']?true\b|"
    r"[\"']?(hostPath)[\"']?\s*:\s*\{?\s*[\"']?path[\"']?\s*:\s*[\"']?/(?:etc|root|var/run|"
    r"proc|sys|dev|boot|home)?/?[\"',}\s]|[\"']?add[\"']?\s*:\s*\[?\s*[\"']?(SYS_ADMIN|ALL)\b",
    re.I)


def _joined(words: list[str]) -> list[str]:
    """``--pid host`` as ``--pid=host``, so that a power is one word."""
    out: list[str] = []
    for i, word in enumerate(words):
        if i and words[i - 1] in ("--pid", "--ipc", "--userns", "--uts", "--cap-add",
                                  "--security-opt", "--device", "--cgroupns"):
            out[-1] = f"{out[-1]}={word}"
        else:
            out.append(word)
    return out


def _container(cmd: SimpleCommand) -> str | None:
    words = _joined([w.shown for w in cmd.words[1:]])
    if not {"run", "create", "exec"} & set(words[:2]):
        return None
    mounts = [m for i, m in enumerate(words) if i and words[i - 1] in ("-v", "--volume")
              and _SYSTEM_MOUNT.match(m)]
    if mounts:  # the host's /etc, /root, /proc... writable: its users, cron, kernel, disks
        return f"the host's {mounts[0].split(':', 1)[0]} mounted writable"
    powers = [w for w in words if _POWERS.match(w)]
    interactive = any(w in ("-it", "-ti", "-i", "--interactive") for w in words)
    # a shell that reads its commands from the person (``bash``, not ``bash -c SCRIPT``)
    into = [w for i, w in enumerate(words) if w.rsplit("/", 1)[-1] in _INTO_HOST or (
        w.rsplit("/", 1)[-1] in _SHELLS and words[i + 1:i + 2] != ["-c"])]
    looser = [w for w in words if _LOOSER.match(w)]
    if powers and (len(powers) + len(looser) > 1 or interactive or into):
        return f"a container with {', '.join(powers[:2])}{' and a shell' if into else ''}"
    return None


def _pod(cmd: SimpleCommand) -> str | None:
    texts = [w.value or w.shown for w in cmd.words[1:] if "{" in w.shown or ":" in w.shown]
    for text in [*texts, *fed_text(cmd)]:
        found = _POD_POWERS.search(text)
        if found is not None:
            return f"a pod with {next(g for g in found.groups() if g)}"
    return None


@register
class HostPowersWorkload(Validator):
    """A container or pod given the host: ``docker run --privileged -it ubuntu bash``,
    ``--pid=host … nsenter -t 1``, ``-v /etc:/host/etc``, ``kubectl run --overrides`` or a
    manifest on the line with ``privileged: true``, ``hostPID: true`` or a ``hostPath`` of
    ``/``, ``kubectl debug node/NAME``: DENY. From there every file and process of the node
    is reachable.

    Bad: ``docker run --rm -it --pid=host --privileged alpine nsenter -t 1 -m sh``.
    Harmless: ``docker run --rm -v "$PWD":/src -w /src node:20 npm test``.
    """

    id = "CG-INFRA-003"
    programs = _ENGINES | {"kubectl", "oc"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program in _ENGINES:
            what = _container(cmd)
        elif cmd.program in ("kubectl", "oc") and "debug" in cmd.args[:3] and any(
                a.startswith(("node/", "nodes/")) for a in cmd.args):
            what = "a debugging pod in the node's namespaces with its root mounted"
        elif cmd.program in ("kubectl", "oc") and {"run", "apply", "create", "replace",
                                                   "patch"} & set(cmd.args[:3]):
            what = _pod(cmd)
        else:
            return NO_OPINION
        if what is None:
            return NO_OPINION
        return Verdict.deny(self.id, f"{cmd.program}: {what} can take over the host",
                            hint="run it unprivileged, with only the workspace mounted")
