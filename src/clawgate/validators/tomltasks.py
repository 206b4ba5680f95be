"""Task runners whose tasks are written in TOML, read for the command lines they run:
cargo-make's ``Makefile.toml`` (``[tasks.NAME]`` with ``command`` and ``args``, or a shell
``script``) and Poe the Poet's ``[tool.poe.tasks]`` of a ``pyproject.toml`` (a string or
``cmd`` run as a command, ``shell`` run by a shell, ``sequence`` of those). Each reader gives
the lines (None when the text is no TOML or a task is not read here: judged as unknown)."""

from __future__ import annotations

import shlex

_SHELL_RUNNERS = frozenset({"@shell", "bash", "sh", "zsh", "dash", "/bin/sh", "/bin/bash"})


def _toml(text: str) -> dict[str, object] | None:
    import tomllib

    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return None


def _strings(value: object) -> list[str] | None:
    """A string, or a list of strings, as a list; None for anything else."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def cargo_make_tasks(text: str) -> list[str] | None:
    """The command lines of every ``[tasks.NAME]`` of a cargo-make ``Makefile.toml``."""
    data = _toml(text)
    tasks = data.get("tasks") if data is not None else None
    if not isinstance(tasks, dict):
        return None if data is None else []
    found: list[str] = []
    for task in tasks.values():
        if not isinstance(task, dict):
            return None
        command = task.get("command")
        if command is not None:
            args = _strings(task.get("args", []))
            if not isinstance(command, str) or args is None:
                return None
            found.append(shlex.join([command, *args]))
        script = task.get("script")
        if script is not None:
            runner = task.get("script_runner", "@shell")
            lines = _strings(script)
            if lines is None or not isinstance(runner, str) or runner not in _SHELL_RUNNERS:
                return None  # a script in another language (@rust, @duckscript)
            found.extend(lines)
    return found


def poe_tasks(text: str) -> list[str] | None:
    """The command lines of Poe the Poet's tasks in a ``pyproject.toml`` (none when it has
    no ``[tool.poe.tasks]``)."""
    data = _toml(text)
    if data is None:
        return None
    tool = data.get("tool")
    poe = tool.get("poe") if isinstance(tool, dict) else None
    tasks = poe.get("tasks") if isinstance(poe, dict) else None
    if tasks is None:
        return []
    if not isinstance(tasks, dict):
        return None
    found: list[str] = []
    for task in tasks.values():
        lines = _poe_task(task)
        if lines is None:
            return None
        found.extend(lines)
    return found


def _poe_task(task: object) -> list[str] | None:
    if isinstance(task, str):
        return [task]  # a cmd task
    if isinstance(task, list):  # a sequence
        found: list[str] = []
        for step in task:
            lines = _poe_task(step)
            if lines is None:
                return None
            found.extend(lines)
        return found
    if not isinstance(task, dict):
        return None
    for key in ("cmd", "shell"):
        if key in task:
            return _strings(task[key])
    if "sequence" in task:
        return _poe_task(task["sequence"])
    if "script" in task:
        target = task["script"]
        if not isinstance(target, str):
            return None
        module, _, call = target.partition(":")
        return [shlex.join(["python3", "-c", f"import {module}; {module}.{call or 'main()'}"])]
    if "ref" in task:
        return []  # another task of the table, read with the others
    return None
