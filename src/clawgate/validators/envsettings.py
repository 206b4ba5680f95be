"""Settings a program takes from its environment as it would from its own options: npm's
``npm_config_<key>`` variables, git's ``GIT_CONFIG_KEY_<n>``/``GIT_CONFIG_VALUE_<n>`` pairs and
``GIT_CONFIG_PARAMETERS``. ``escapes_config.ConfigCommand`` judges them with the options."""

from __future__ import annotations

from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.programs import SHELLS

# npm's configuration keys whose value is a program it starts (escapes_config's list); git:
# the git it runs for git dependencies
NPM_RUNNING_KEYS = frozenset({"script-shell", "shell", "editor", "browser", "viewer",
                              "onload-script", "git"})
# npm's keys that are the variables other programs read: the node options of every script it
# runs, and the files it reads more settings from
NPM_VARIABLE_KEYS = {"node-options": "NODE_OPTIONS", "userconfig": "NPM_CONFIG_USERCONFIG",
                     "globalconfig": "NPM_CONFIG_GLOBALCONFIG"}
NPM_LIKE = frozenset({"npm", "pnpm", "npx"})


def npm_variables(cmd: SimpleCommand) -> list[tuple[str, Word]]:
    """The variables npm's settings amount to, as (NAME, value): ``npm_config_<key>`` in any
    case (npm reads them so: ``npm_config_userconfig`` is ``NPM_CONFIG_USERCONFIG``), and for
    npm and pnpm the options ``--node-options``, ``--userconfig`` and ``--globalconfig`` (up to
    a ``--``), node's options being ``NODE_OPTIONS`` for every script npm runs."""
    found: list[tuple[str, Word]] = []
    for assignment in cmd.assignments:
        name = assignment.name.lower()
        if name.startswith("npm_config_"):
            key = name.removeprefix("npm_config_").replace("_", "-")
            found.append((NPM_VARIABLE_KEYS.get(key, name.upper()), assignment.value))
    if cmd.program not in NPM_LIKE:
        return found
    words = cmd.words
    for index, word in enumerate(words[1:], start=1):
        text = word.shown
        if text == "--":
            break
        key, eq, value = text[2:].partition("=") if text.startswith("--") else ("", "", "")
        if key in NPM_VARIABLE_KEYS:
            given = (Word(value, value if word.value is not None else None) if eq else
                     words[index + 1] if index + 1 < len(words) else Word("", ""))
            found.append((NPM_VARIABLE_KEYS[key], given))
    return found


def npm_environment(cmd: SimpleCommand) -> list[tuple[str, str]]:
    """The program-starting keys given as ``npm_config_<key>`` variables, which npm and pnpm
    read as their options (any case, ``_`` for ``-``: ``npm_config_script_shell=X``)."""
    found: list[tuple[str, str]] = []
    for assignment in cmd.assignments:
        name = assignment.name.lower()
        key = name.removeprefix("npm_config_").replace("_", "-")
        if name.startswith("npm_config_") and key in NPM_RUNNING_KEYS:
            value = assignment.value.value
            if value is None:
                found.append((key, "$" + assignment.name))
            elif not plain_choice(value):
                found.append((key, value))
    return found


def plain_choice(value: str) -> bool:
    """No program at all, or the standard shell (``--script-shell=bash``) or git."""
    return value in ("", "true", "false") or (value.rsplit("/", 1)[-1] in {*SHELLS, "git"} and (
        "/" not in value or value.startswith(("/bin/", "/usr/bin/"))))


def environment_settings(cmd: SimpleCommand) -> list[tuple[str, str]]:
    """git's settings given by the environment: ``GIT_CONFIG_KEY_<n>`` with
    ``GIT_CONFIG_VALUE_<n>``, and ``GIT_CONFIG_PARAMETERS``, the quoted ``'KEY=VALUE'`` list
    git itself hands its children for ``-c`` (each as ``-c KEY=VALUE``)."""
    if not cmd.assignments or cmd.program != "git":
        return []
    values = {a.name: a.value.shown for a in cmd.assignments}
    found = [(key, values.get("GIT_CONFIG_VALUE_" + name[15:], ""))
             for name, key in values.items() if name.startswith("GIT_CONFIG_KEY_")]
    carried = next((a.value for a in cmd.assignments if a.name == "GIT_CONFIG_PARAMETERS"),
                   None)
    if carried is not None:
        found += git_config_parameters(carried.value)
    return found


def git_config_parameters(value: str | None) -> list[tuple[str, str]]:
    """(key, value) of a ``GIT_CONFIG_PARAMETERS`` text (``'core.pager=less' 'a.b'='c'``);
    one ``("config-parameters", "")`` when it is known only at run time or does not split."""
    import shlex

    try:
        items = shlex.split(value) if value is not None else None
    except ValueError:
        items = None
    if items is None:
        return [("config-parameters", "")]
    return [(key.strip(), setting) for key, _, setting in (i.partition("=") for i in items)]
