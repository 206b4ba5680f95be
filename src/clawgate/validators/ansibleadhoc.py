"""Ansible's ad-hoc calls: ``ansible HOSTS -m MODULE -a ARGS`` runs one module on the hosts
(``-c local``: on this machine). The module and its arguments say what happens: ``shell`` and
``command`` run their arguments as a command line, ``file state=absent`` deletes a path,
``copy`` and ``lineinfile`` write one, ``get_url`` downloads into one. Each is judged as the
ordinary command it amounts to, so the same deletion or write is the same decision whichever
tool performs it."""

from __future__ import annotations

import shlex
from collections.abc import Callable

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register

_MODULE_OPTIONS = frozenset({"-m", "--module-name"})
_ARGS_OPTIONS = frozenset({"-a", "--args"})
_BECOME = frozenset({"-b", "--become"})
# modules whose arguments are a command line (``command`` is the default module)
_COMMAND_MODULES = frozenset({"shell", "command", "raw", "ansible.builtin.shell",
                              "ansible.builtin.command", "ansible.builtin.raw"})
# modules that only read or report
_QUIET_MODULES = frozenset({"ping", "setup", "debug", "stat", "gather_facts", "slurp_info",
                            "ansible.builtin.ping", "ansible.builtin.setup",
                            "ansible.builtin.debug", "ansible.builtin.stat"})


def _q(value: str) -> str:
    """Quoted, but a leading ``~`` kept: modules expand it to the home directory."""
    if value == "~" or value.startswith("~/"):
        return "~" + ("/" + shlex.quote(value[2:]) if value[2:] else "")
    return shlex.quote(value)


def _file(a: dict[str, str]) -> str | None:
    path = a.get("path") or a.get("dest") or a.get("name")
    if path is None:
        return None
    state = a.get("state", "file")
    return {"absent": f"rm -rf -- {_q(path)}", "touch": f"touch -- {_q(path)}",
            "directory": f"mkdir -p -- {_q(path)}",
            "link": f"ln -sf -- {_q(a.get('src', ''))} {_q(path)}",
            "hard": f"ln -f -- {_q(a.get('src', ''))} {_q(path)}"}.get(state, f"ls -- {_q(path)}")


def _copy(a: dict[str, str]) -> str | None:
    dest = a.get("dest")
    if dest is None:
        return None
    return f"cp -- {_q(a['src'])} {_q(dest)}" if "src" in a else f"tee -- {_q(dest)}"


def _in_file(a: dict[str, str]) -> str | None:
    path = a.get("path") or a.get("dest")
    return None if path is None else f"tee -a -- {_q(path)}"


def _get_url(a: dict[str, str]) -> str | None:
    url, dest = a.get("url"), a.get("dest")
    return None if url is None or dest is None else f"curl -fsSL -o {_q(dest)} {_q(url)}"


# module → the command its key=value arguments amount to (None: not enough to tell)
_MODULES: dict[str, Callable[[dict[str, str]], str | None]] = {
    "file": _file, "copy": _copy, "template": _copy, "lineinfile": _in_file,
    "blockinfile": _in_file, "get_url": _get_url,
}


def _module_and_args(cmd: SimpleCommand) -> tuple[str | None, str | None, bool, bool]:
    """(module, its arguments, whether every word is known, whether it becomes root)."""
    module: str | None = "command"
    args: str | None = None
    known, become = True, False
    words = cmd.words
    for index, word in enumerate(words[1:], start=1):
        text = word.shown
        name, eq, glued = text.partition("=")
        following = words[index + 1].value if index + 1 < len(words) else None
        if text in _BECOME:
            become = True
        if name in _MODULE_OPTIONS or name in _ARGS_OPTIONS:
            value = glued if eq else following
            known = known and (word.value is not None) and value is not None
            if name in _MODULE_OPTIONS:
                module = value
            else:
                args = value
    return module, args, known, become


def _pairs(args: str) -> dict[str, str] | None:
    try:
        words = shlex.split(args)
    except ValueError:
        return None
    found = dict(w.partition("=")[::2] for w in words if "=" in w)
    return found if len(found) == len(words) else None


@register
class AnsibleAdHoc(Validator):
    """``ansible HOSTS -m MODULE -a ARGS``: ``shell``/``command``/``raw`` run their arguments
    (checked as that command line), ``file``, ``copy``, ``template``, ``lineinfile``,
    ``blockinfile`` and ``get_url`` are checked as the ``rm``, ``cp``/``tee`` or ``curl -o``
    they amount to (with ``sudo`` under ``-b``). A module or arguments known only at run time,
    or ones not read here, ASK.

    Bad: ``ansible localhost -c local -m file -a 'path=~/.ssh state=absent'``. Harmless:
    ``ansible localhost -c local -m ping``, ``ansible all -m file -a 'path=build state=absent'``.
    """

    id = "CG-WRAP-025"
    programs = frozenset({"ansible"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program != "ansible" or len(cmd.words) < 2:
            return NO_OPINION
        module, args, known, become = _module_and_args(cmd)
        if not known or module is None:
            return Verdict.ask(self.id, "the ansible module or its arguments are only known at "
                               "run time")
        short = module.removeprefix("ansible.builtin.")
        sudo = "sudo " if become else ""
        if module in _COMMAND_MODULES:
            return Verdict.unwrap(sudo + args) if args else NO_OPINION
        if module in _QUIET_MODULES or (args is None and short not in _MODULES):
            return NO_OPINION
        build = _MODULES.get(short)
        pairs = _pairs(args) if args is not None else None
        line = build(pairs) if build is not None and pairs is not None else None
        if line is None:
            return Verdict.of(Outcome.ASK, self.id, f"the ansible module {module} changes "
                              "the hosts in a way not read here")
        return Verdict.unwrap(sudo + line)
