"""Commands that destroy the machine or the account at once: DENY, whatever the autonomy."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.flags import parse_options
from clawgate.validators.paths import resolve
from clawgate.validators.writes import write_targets

BLOCK_DEVICE = lazy_pattern(r"/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|loop\d|dm-\d"
                            r"|md\d|sr\d|mapper/|disk/|mem$|kmem$|port$|root$)")
_FORMATTERS = frozenset({"wipefs", "mke2fs", "mkswap", "blkdiscard", "sgdisk", "sfdisk",
                         "fdisk", "parted", "cfdisk", "gdisk"})
_POWER = frozenset({"shutdown", "reboot", "poweroff", "halt", "kexec"})
_POWER_PROGRAMS = _POWER | {"init", "telinit", "systemctl", "loginctl"}
_POWER_VERBS = frozenset({"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate",
                          "rescue", "emergency"})


@register
class FormatDisk(Validator):
    """Formatting, wiping or repartitioning a disk: every file on it is gone.

    Bad: ``mkfs.ext4 /dev/sda1``, ``wipefs -a /dev/sdb``. Harmless: ``lsblk``, ``fdisk -l``.
    """

    id = "CG-CAT-002"

    def shapes(self, program: str | None) -> int:
        if program is not None and (program.startswith("mkfs") or program in _FORMATTERS):
            return sh.ANY
        return 0

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program is None or not (program.startswith("mkfs") or program in _FORMATTERS):
            return NO_OPINION
        if program in {"fdisk", "sfdisk", "parted", "gdisk", "sgdisk"} and _only_lists(cmd):
            return NO_OPINION
        if _only_asks_about_itself(cmd):
            return NO_OPINION
        return Verdict.deny(self.id, f"{program} formats or wipes a disk",
                            hint="do this by hand, outside the agent")


_SELF_INFO = frozenset({"--version", "-V", "--help", "-h", "-?", "--usage"})


def _only_asks_about_itself(cmd: SimpleCommand) -> bool:
    """``mkfs.ext4 -V``, ``wipefs --version``: every word asks for the version or the usage,
    and no device is named, so nothing can be formatted (``mkfs -V /dev/sda`` is verbose)."""
    return len(cmd.words) > 1 and not cmd.redirects and all(
        w.value in _SELF_INFO for w in cmd.words[1:])


def _only_lists(cmd: SimpleCommand) -> bool:
    options = parse_options(cmd.words[1:], aliases={"--list": "l", "--print": "p"})
    return options.has("l", "p") or any(w.value == "print" for w in cmd.words)


@register
class BlockDeviceWrite(Validator):
    """Writing to a block device or to raw memory (``dd of=/dev/sda``, ``> /dev/nvme0n1``)
    overwrites a file system below every file on it.

    Bad: ``dd if=/dev/zero of=/dev/sda``. Harmless: ``dd if=/dev/zero of=./disk.img count=1``.
    """

    id = "CG-CAT-003"

    def shapes(self, program: str | None) -> int:
        return sh.DEV | sh.REDIRECT

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if "/dev/" not in cmd.text and not any(
                r.target is not None and "/dev/" in r.target.text for r in cmd.redirects):
            return NO_OPINION
        for word in write_targets(cmd):
            path = resolve(word, ctx).path
            if path is not None and BLOCK_DEVICE.match(path):
                return Verdict.deny(self.id, f"writes to the block device {path}",
                                    hint="write to an image file in the workspace")
        return NO_OPINION



@register
class ForkBomb(Validator):
    """A function that pipes into itself in the background multiplies until the machine stops.

    Bad: ``:(){ :|:& };:``. Harmless: ``f() { ls | wc -l; }; f``.
    """

    id = "CG-CAT-004"

    def shapes(self, program: str | None) -> int:
        return 0 if program is None else sh.NESTED

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not cmd.inside("function") or cmd.program is None:
            return NO_OPINION
        if cmd.program in cmd.downstream or cmd.program in cmd.upstream:
            return Verdict.deny(self.id, "a function that pipes into itself: a fork bomb")
        return NO_OPINION


@register
class PowerOff(Validator):
    """Shutting down or rebooting the machine ends every session on it.

    Bad: ``sudo reboot``, ``init 0``, ``systemctl poweroff``. Harmless: ``grep reboot log.txt``.
    """

    id = "CG-CAT-005"
    programs = frozenset(_POWER_PROGRAMS)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program not in _POWER_PROGRAMS:
            return NO_OPINION
        args = cmd.args
        if program in _POWER or (program in {"init", "telinit"} and args[:1] in (("0",), ("6",))):
            return Verdict.deny(self.id, f"{' '.join(cmd.argv[:2])} stops or restarts the "
                                "machine")
        if program in {"systemctl", "loginctl"} and _POWER_VERBS & set(args):
            return Verdict.deny(self.id, "systemctl stops or restarts the machine")
        return NO_OPINION
