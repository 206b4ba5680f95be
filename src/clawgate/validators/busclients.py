"""Method calls over D-Bus to the services that run programs or act on the machine for their
caller: systemd's manager (start, stop, enable, link units, transient units with their own
command lines), logind (power off, reboot, kill sessions), PolicyKit, and Flatpak's host
command portals (``HostCommand``, ``Spawn``: a command run outside the sandbox).

``dbus-send``, ``busctl``, ``gdbus`` and ``qdbus`` reach them without ``systemctl``'s name, so
no rule about ``systemctl`` applies. What they only read (``Get*``, ``List*``,
``Introspect``, ``Ping``) is left alone.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register

_CLIENTS = frozenset({"dbus-send", "busctl", "gdbus", "qdbus", "qdbus6"})
_ACTING_SERVICES = lazy_pattern(r"^org\.freedesktop\.(?:systemd1|login1|PolicyKit1|Flatpak|"
                                r"portal\.Flatpak)(?:\.|$)")
_READS = lazy_pattern(r"^(?:Get|List|Introspect|Ping|Peek|Can|Inhibit$)")
_BUSCTL_OPTIONS = frozenset({"--host", "-H", "--machine", "-M", "--address", "--timeout",
                             "--destination", "--match", "--size", "--json"})


def _gdbus(values: list[str]) -> tuple[str, str] | None:
    """(destination, method) of ``gdbus call --dest D --object-path P --method I.M``."""
    if "call" not in values:
        return None
    found: dict[str, str] = {}
    for i, value in enumerate(values):
        for name, short in (("--dest", "-d"), ("--method", "-m")):
            if value in (name, short) and i + 1 < len(values):
                found[name] = values[i + 1]
            elif value.startswith(name + "="):
                found[name] = value.split("=", 1)[1]
    if "--dest" not in found or "--method" not in found:
        return None
    return found["--dest"], found["--method"]


def _dbus_send(values: list[str]) -> tuple[str, str] | None:
    """(destination, method) of ``dbus-send --dest=D … /path I.M ARGS``."""
    dest = next((v.split("=", 1)[1] for v in values if v.startswith("--dest=")), None)
    operands = [v for v in values[1:] if not v.startswith("-")]
    if dest is None or len(operands) < 2:
        return None
    return dest, operands[1]


def _busctl(values: list[str]) -> tuple[str, str] | None:
    """(service, method) of ``busctl [--user] call SERVICE PATH INTERFACE METHOD …``."""
    operands: list[str] = []
    skip = False
    for value in values[1:]:
        if skip:
            skip = False
        elif value in _BUSCTL_OPTIONS:
            skip = True
        elif not value.startswith("-"):
            operands.append(value)
    if operands[:1] != ["call"] or len(operands) < 5:
        return None
    return operands[1], operands[4]


def _qdbus(values: list[str]) -> tuple[str, str] | None:
    """(service, method) of ``qdbus SERVICE PATH [INTERFACE.]METHOD …``."""
    operands = [v for v in values[1:] if not v.startswith("-")]
    return (operands[0], operands[2]) if len(operands) >= 3 else None


_READERS = {"gdbus": _gdbus, "dbus-send": _dbus_send, "busctl": _busctl, "qdbus": _qdbus,
            "qdbus6": _qdbus}


@register
class BusMethodCall(Validator):
    """A D-Bus method call to a service that runs programs or acts on the machine for its
    caller (``org.freedesktop.systemd1``'s ``StartUnit``, ``StartTransientUnit``,
    ``EnableUnitFiles``; logind's ``PowerOff``; Flatpak's ``HostCommand``): ASK, as
    ``systemctl start`` or a command outside the sandbox is.

    Bad: ``dbus-send --session --dest=org.freedesktop.systemd1 … Manager.StartUnit …``.
    Harmless: ``busctl --user list``, ``gdbus call … --method org.freedesktop.Notifications.Notify
    …``.
    """

    id = "CG-ESC-023"
    programs = _CLIENTS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        reader = _READERS.get(cmd.program or "")
        if reader is None:
            return NO_OPINION
        values = [w.value for w in cmd.words]
        if any(v is None for v in values):
            return Verdict.ask(self.id, f"{cmd.program}'s call is only known at run time")
        found = reader([v for v in values if v is not None])
        if found is None:
            return NO_OPINION
        service, method = found
        name = method.rsplit(".", 1)[-1]
        if not _ACTING_SERVICES.match(service) or _READS.match(name):
            return NO_OPINION
        return Verdict.ask(self.id, f"{cmd.program} calls {name} of {service}, which starts "
                           "programs or acts on the machine for its caller",
                           hint="use the service's own command, where it can be checked")
