"""Where system programs live and the names of the well-known ones: what a glob-spelled program
(``/???/?m``, ``/b?n/r[m]``) can match. A fixed list, not the live filesystem: the decision must
not depend on the machine that checks, and the machine that runs may differ."""

from __future__ import annotations

import re

from clawgate.validators.programs import words_of

SYSTEM_DIRS = ("/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin")
PROGRAMS = words_of("""
awk base32 base64 basename bash bc busybox bzip2 cat chattr chgrp chmod chown chroot cmp comm
cp cpio crontab csh curl cut dash date dd df diff dig dirname dmesg du echo ed egrep env ex
expand expr false fgrep file find fmt fold ftp gawk gcc gdb git grep groups gunzip gzip head
hexdump host hostname id ifconfig install ionice ip join kill killall ksh less ln locate
logger login ls lsof lua make man mawk mkdir mkfifo mknod mktemp more mount mv nano nawk nc
ncat netcat nice nl nmap node nohup nproc nslookup od openssl passwd paste perl php ping pkill
printenv printf ps pwd python python2 python3 readlink realpath reboot rev rm rmdir rsync ruby
scp screen script sed seq setsid sftp sh sha1sum sha256sum shred shutdown sleep socat sort
split ssh stat strace strings su sudo sync tac tail tar taskset tclsh tcpdump tee telnet test
time timeout tmux top touch tr true truncate tty umount uname uniq unzip uptime useradd
userdel usermod vi view vim watch wc wget whereis which who whoami xargs xxd yes zip zsh
apt apt-get dpkg yum dnf rpm systemctl service iptables mkfs fdisk parted insmod modprobe
rmmod visudo chpasswd wall
""")


def glob_programs(pattern: str) -> list[str]:
    """The well-known programs (as full paths) a glob-spelled program name can match."""
    from fnmatch import fnmatchcase, translate  # only for the rare glob-spelled name

    directory, _, base = pattern.rpartition("/")
    if not directory or not base:
        return []
    places = [place for place in SYSTEM_DIRS if fnmatchcase(place, directory)]
    if not places:
        return []
    # fnmatchcase's own test, compiled once for the ~240 names rather than looked up per name
    match = re.compile(translate(base)).match
    names = [name for name in _SORTED if match(name) is not None]
    return [f"{place}/{name}" for place in places for name in names]


_SORTED = tuple(sorted(PROGRAMS))
