"""Turning off what watches the machine or the account: audit rules, SELinux and AppArmor,
endpoint detection agents, cloud audit trails and threat detectors (CG-INFRA-001)."""

from __future__ import annotations

import posixpath
import re

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.argv import option_values
from clawgate.validators.base import Context, Validator, register

# Words of the names of security agents and their services, units, daemonsets, releases.
SECURITY_AGENTS = frozenset({
    "auditd", "auditbeat", "falco", "falcon", "crowdstrike", "osqueryd", "osquery",
    "wazuh", "ossec", "sysdig", "sentinelone", "sentinelagent", "cbagentd", "carbonblack",
    "cylancesvc", "tanium", "taniumclient", "qualys", "rapid7", "mdatp", "sophos", "clamd",
    "clamav", "fail2ban", "apparmor", "selinux", "aide", "tripwire", "rsyslog", "syslog",
    "journald", "splunkd", "splunkforwarder", "sysmon", "tetragon", "tracee", "neuvector",
    "twistlock", "kyverno", "gatekeeper", "nessusagent", "elastic-agent", "defender", "eset",
    "ds_agent", "nxlog", "guardduty"})
_WORDS = lazy_pattern(r"[a-z0-9]+(?:_agent)?")
_STOPS = frozenset({"stop", "disable", "mask", "kill", "unload", "bootout", "remove",
                    "delete", "uninstall", "scale"})
# Agents' own control tools, and the operands that turn them off.
_AGENT_CONTROLS = frozenset({"sentinelctl", "falconctl", "osqueryctl", "mdatp", "wazuh-control",
                             "ossec-control", "cbagentd", "taniumclient", "elastic-agent"})
_OFF = frozenset({"stop", "disable", "disabled", "unload", "uninstall", "off", "false"})
_PSA_OFF = lazy_pattern(r"^pod-security\.kubernetes\.io/(?:enforce(?:=privileged|-)$|"
                        r"enforce-version=|audit-$|warn-$)")
_SERVICE_MANAGERS = frozenset({"systemctl", "service", "rc-service", "launchctl", "sv",
                               "rc-update", "chkconfig", "update-rc.d", "kill", "pkill", "killall",
                               "kubectl", "oc", "helm", "docker", "podman"})
# (program, words among its first operands) that turn a cloud's audit or detection off.
_CLOUD: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("aws", ("cloudtrail", "stop-logging")), ("aws", ("cloudtrail", "delete-trail")),
    ("aws", ("guardduty", "delete-detector")), ("aws", ("guardduty", "disassociate-members")),
    ("aws", ("securityhub", "disable-security-hub")), ("aws", ("macie2", "disable-macie")),
    ("aws", ("config", "stop-configuration-recorder")), ("aws", ("inspector2", "disable")),
    ("aws", ("config", "delete-configuration-recorder")), ("aws", ("ec2", "delete-flow-logs")),
    ("aws", ("config", "delete-delivery-channel")), ("aws", ("detective", "delete-graph")),
    ("aws", ("access-analyzer", "delete-analyzer")),
    ("gcloud", ("logging", "sinks", "delete")), ("gcloud", ("logging", "buckets", "delete")),
    ("gcloud", ("logging", "logs", "delete")),
    ("az", ("monitor", "diagnostic-settings", "delete")),
    ("az", ("monitor", "log-profiles", "delete")),
    ("az", ("monitor", "log-analytics", "workspace", "delete")))


# Settings files whose text turns a defense off from the next boot or reload, and the text
# that does it: SELinux's mode, the kernel command line's security switches.
_OFF_SETTINGS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("/etc/selinux/config", re.compile(r"\bSELINUX\s*=\s*(?:disabled|permissive)\b", re.I)),
    ("/etc/default/grub", re.compile(r"\b(?:selinux|apparmor|audit|enforcing)=0\b|"
                                     r"\bsecurity=none\b")),
)
_WRITERS = frozenset({"sed", "gsed", "tee", "echo", "printf", "cat", "perl"})
# The kernel's own defenses, as sysctl keys, and the values that turn them off or weaken them:
# address-space randomisation, ptrace and kernel-pointer restrictions, the links and core
# dump protections, unprivileged BPF and its JIT hardening.
_KERNEL_DEFENSES: dict[str, frozenset[str]] = {
    "kernel.randomize_va_space": frozenset({"0", "1"}),
    "kernel.yama.ptrace_scope": frozenset({"0"}),
    "kernel.kptr_restrict": frozenset({"0"}),
    "kernel.dmesg_restrict": frozenset({"0"}),
    "kernel.unprivileged_bpf_disabled": frozenset({"0"}),
    "kernel.perf_event_paranoid": frozenset({"-1"}),
    "net.core.bpf_jit_harden": frozenset({"0"}),
    "fs.protected_symlinks": frozenset({"0"}),
    "fs.protected_hardlinks": frozenset({"0"}),
    "fs.protected_regular": frozenset({"0"}),
    "fs.protected_fifos": frozenset({"0"}),
    "fs.suid_dumpable": frozenset({"1", "2"}),
}


def _kernel_defense_off(settings: list[tuple[str, str]]) -> str | None:
    """The first (key, value) among ``settings`` that turns a kernel defense off."""
    for key, value in settings:
        name = key.strip().strip("/").replace("/", ".")
        if value.strip().strip("'\"") in _KERNEL_DEFENSES.get(name, frozenset()):
            return f"sets {name} to {value.strip()}, turning a kernel defense off"
    return None


def _sysctl_settings(cmd: SimpleCommand) -> list[tuple[str, str]]:
    """``sysctl [-w] KEY=VALUE …``: the settings written."""
    return [(key, value) for w in cmd.words[1:] if not w.shown.startswith("-")
            for key, eq, value in [w.shown.partition("=")] if eq]


def _proc_sys_settings(cmd: SimpleCommand) -> list[tuple[str, str]]:
    """Text written into ``/proc/sys/KEY`` (``echo 0 > /proc/sys/kernel/randomize_va_space``)."""
    from clawgate.validators.written import written

    return [(path[len("/proc/sys/"):], text) for path, text in written(cmd)
            if text is not None and path.startswith("/proc/sys/")]


def _settings_off(cmd: SimpleCommand) -> str | None:
    """A write to a defense's settings file whose text turns the defense off: ``sed -i
    's/SELINUX=enforcing/SELINUX=disabled/' /etc/selinux/config``, ``echo SELINUX=disabled >
    /etc/selinux/config``."""
    from clawgate.validators.written import written

    found: list[tuple[str, str]] = []
    if cmd.program in ("sed", "gsed", "perl"):
        words = [w.value or "" for w in cmd.words[1:]]
        text = "\n".join(words)
        found = [(posixpath.normpath(w), text) for w in words if w.startswith("/")]
    found += [(path, text) for path, text in written(cmd) if text is not None]
    for path, text in found:
        for settings, turns_off in _OFF_SETTINGS:
            if path == settings and turns_off.search(text):
                return f"writes {settings} to turn a defense off at the next boot"
    return None


def _within(operands: list[str], words: tuple[str, ...]) -> bool:
    return any(tuple(operands[i:i + len(words)]) == words for i in range(min(4, len(operands))))


def _agent(names: list[str]) -> str | None:
    return next((n for n in names if set(_WORDS.findall(n.lower())) & SECURITY_AGENTS), None)


def _what(cmd: SimpleCommand) -> str | None:
    program = cmd.program or ""
    args = [w.shown for w in cmd.words[1:]]
    operands = [a for a in args if not a.startswith("-")]
    if program == "auditctl":
        values = {v for _, _, v in option_values(cmd.words, 1, "e", frozenset())}
        rules = [v or "" for _, _, v in option_values(cmd.words, 1, "aA", frozenset())]
        off = "-D" in args or "0" in values or any("never" in r.split(",") for r in rules)
        return "auditctl turns audit rules off" if off else None
    if program in _AGENT_CONTROLS and set(operands) & _OFF:
        return f"{program} turns the security agent off"
    if program in ("kubectl", "oc") and operands[:1] == ["label"] and any(
            _PSA_OFF.match(a) for a in operands):
        return "turns the namespace's pod security admission off"
    if program == "sysctl":
        return _kernel_defense_off(_sysctl_settings(cmd))
    if program in _WRITERS:
        return _kernel_defense_off(_proc_sys_settings(cmd)) or _settings_off(cmd)
    if program == "setenforce":
        return "setenforce turns SELinux enforcement off" if operands[:1] in (
            ["0"], ["Permissive"], ["permissive"]) else None
    if program in ("aa-teardown", "aa-disable", "aa-complain"):
        return f"{program} turns AppArmor confinement off"
    if program in SECURITY_AGENTS and operands[:1] == ["stop"]:
        return f"stops {program}"  # /etc/init.d/auditd stop
    for name, words in _CLOUD:
        if program == name and _within(operands, words):
            return f"{program} {' '.join(words)} turns audit logging or detection off"
    # (``kill $(pgrep falcon-sensor)``: the agent is named in the substitution)
    if program in _SERVICE_MANAGERS and (program in ("kill", "pkill", "killall") or _STOPS & set(
            operands[:3])):
        agent = _agent(operands + [v for a in args if (v := a.partition("=")[2])])
        if agent is not None:
            return f"{program} stops or removes the security agent {agent}"
    return None


@register
class SecurityControlsOff(Validator):
    """Turning off audit logging, detectors or confinement: ``auditctl -D``, ``auditctl -e 0``,
    ``setenforce 0``, ``aa-teardown``, stopping or removing an EDR, audit or log agent
    (``systemctl disable --now falcon-sensor``, ``kubectl delete daemonset falco -n falco``),
    ``aws cloudtrail stop-logging``, ``aws guardduty delete-detector``, ``gcloud logging sinks
    delete``, ``auditctl -a never,task``, an agent's own ``sentinelctl control stop``,
    a namespace labelled ``pod-security.kubernetes.io/enforce=privileged``, SELinux's settings
    file or the kernel command line written to turn a defense off at the next boot, a kernel
    defense switched off (``sysctl -w kernel.randomize_va_space=0``, ``echo 0 >
    /proc/sys/kernel/yama/ptrace_scope``): DENY. It
    is how an intrusion hides itself; no coding task needs it.

    Bad: ``systemctl stop auditd``. Harmless: ``systemctl status auditd``, ``auditctl -l``.
    """

    id = "CG-INFRA-001"
    programs = _SERVICE_MANAGERS | SECURITY_AGENTS | {
        "auditctl", "setenforce", "aa-teardown", "aa-disable", "aa-complain", "aws", "gcloud",
        "az", "sysctl"} | _AGENT_CONTROLS | _WRITERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in self.programs:
            return NO_OPINION
        what = _what(cmd)
        if what is None:
            return NO_OPINION
        return Verdict.deny(self.id, what, hint="leave the machine's and the account's "
                            "monitoring on; ask an administrator")
