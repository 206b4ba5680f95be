"""Python's own modules that run what their arguments say, read as CPython's modules read
them: ``python -m timeit`` executes its statements and ``-s`` setup, ``pdb -c`` runs debugger
commands (a ``!`` line, or any line that is no debugger command, is a Python statement) before
the script it debugs, ``cProfile``, ``profile`` and ``trace`` run the script or module
they are given, and IPython runs its ``-c`` code (a line starting with ``!`` a shell command)
and its ``-m`` module. ``module_runs`` gives the command lines each amounts to: ``python -c CODE``
for the code, ``python SCRIPT ARGS`` (or ``python -m MOD ARGS``) for the target."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from clawgate.programs.pyargv import python_module

# Each module's options that take a value (the next word, or glued to a short one).
_TIMEIT_VALUED = frozenset({"-n", "--number", "-r", "--repeat", "-u", "--unit", "-s", "--setup"})
_PDB_VALUED = frozenset({"-c", "--command"})
_PROFILE_VALUED = frozenset({"-o", "--outfile", "-s", "--sort"})
_TRACE_VALUED = frozenset({"-f", "--file", "-C", "--coverdir", "--ignore-module",
                           "--ignore-dir"})
_IPYTHON_VALUED = frozenset({"-c", "-m", "--profile", "--profile-dir", "--ipython-dir",
                             "--log-level", "--config", "--colors", "--logfile", "--logappend",
                             "--ext", "--gui", "--pylab", "--matplotlib", "--cache-size",
                             "--editor"})
# pdb's own commands (a -c line starting with one of them is not Python).
_PDB_COMMANDS = frozenset("""h help w where bt d down u up b break tbreak cl clear disable enable
ignore condition commands s step n next unt until j jump l list ll longlist a args p pp whatis
source display undisplay interact alias unalias retval rv c cont continue r return q quit exit
run restart debug exceptions""".split())


def _split(args: Sequence[str | None], valued: frozenset[str], module: bool = False
           ) -> tuple[list[tuple[str, str | None]], list[str | None]] | None:
    """(options with their values, the words from the first operand on); None when an option
    is only known at run time. ``--`` ends the options, and with ``module`` so does ``-m MOD``
    (pdb and the profilers: the words after it are the module's)."""
    options: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None:
            return None
        if arg == "--":
            return options, list(args[i + 1:])
        if not arg.startswith("-") or arg == "-":
            return options, list(args[i:])
        name, equals, glued = arg.partition("=")
        if name == "-m" and module:  # the module, then its own words
            options.append((name, args[i + 1] if i + 1 < len(args) else None))
            return options, list(args[i + 2:])
        if name in valued and not equals and len(name) == len(arg):
            options.append((name, args[i + 1] if i + 1 < len(args) else None))
            i += 2
            continue
        if equals and name in valued:
            options.append((name, glued))
        elif arg[:2] in valued and not arg.startswith("--"):
            options.append((arg[:2], arg[2:]))  # -sCODE, -n5
        else:
            options.append((arg, None))
        i += 1
    return options, []


def _target(rest: list[str | None], module_flag: bool) -> str | None:
    """``python …`` running the target a profiler or debugger is given (a script with its
    arguments, or ``-m MOD …``); None when there is none."""
    if not rest or any(w is None for w in rest):
        return None
    words = [w for w in rest if w is not None]
    head = ["-m"] if module_flag else []
    return shlex.join(["python3", *head, *words])


def _timeit(args: list[str | None]) -> list[str] | None:
    found = _split(args, _TIMEIT_VALUED)
    if found is None:
        return None
    options, rest = found
    code = [v for o, v in options if o in ("-s", "--setup")] + list(rest)
    if any(c is None for c in code):
        return None
    return [shlex.join(["python3", "-c", "\n".join(c for c in code if c is not None)])]


def _pdb(args: list[str | None]) -> list[str] | None:
    found = _split(args, _PDB_VALUED, module=True)
    if found is None:
        return None
    options, rest = found
    code: list[str] = []
    for option, value in options:
        if option not in ("-c", "--command"):
            continue
        if value is None:
            return None
        first = value.split(maxsplit=1)[0] if value.split() else ""
        if value.startswith("!"):
            code.append(value[1:])
        elif first not in _PDB_COMMANDS:
            code.append(value)
    lines = [shlex.join(["python3", "-c", "\n".join(code)])] if code else []
    module = next((v for o, v in options if o == "-m"), None)
    target = _target([module, *rest] if module is not None else rest, module is not None)
    return lines + ([target] if target else [])


def ipython_runs(args: Sequence[str | None]) -> list[str] | None:
    """What ``ipython ARGS`` runs: its ``-c`` code as ``python3 -c`` (IPython's ``!CMD`` lines
    and ``%system``/``%sx`` magics as the shell commands they are), its ``-m`` module as
    ``python3 -m``, a script as ``python3 SCRIPT``; None when a word is only known at run
    time."""
    found = _split(list(args), _IPYTHON_VALUED)
    if found is None:
        return None
    options, rest = found
    lines: list[str] = []
    for option, value in options:
        if option == "-c":
            if value is None:
                return None
            python, shell = _ipython_code(value)
            lines += shell + ([shlex.join(["python3", "-c", python])] if python.strip() else [])
        elif option == "-m":
            if value is None:
                return None
            target = _target([value, *rest], True)
            return lines + ([target] if target else [])
    target = _target(rest, False)
    return lines + ([target] if target else [])


_SHELL_MAGICS = ("!", "%system ", "%sx ", "%%bash", "%%sh", "%%script")


def _ipython_code(code: str) -> tuple[str, list[str]]:
    """(the Python of IPython input, the shell commands its ``!`` lines and shell magics run);
    a statement after ``;`` on one line counts as a line of its own."""
    python: list[str] = []
    shell: list[str] = []
    for raw in code.split("\n"):
        text = raw.strip()
        magic = next((m for m in _SHELL_MAGICS if text.startswith(m)), None)
        if magic is not None:
            shell.append(text[len(magic):].strip())
        else:
            python.append(raw)
    return "\n".join(python), [s for s in shell if s]


def _runner(args: list[str | None], valued: frozenset[str]) -> list[str] | None:
    found = _split(args, valued, module=True)
    if found is None:
        return None
    options, rest = found
    module = next((v for o, v in options if o == "-m"), None)
    as_module = module is not None or any(o == "--module" for o, _ in options)
    target = _target([module, *rest] if module is not None else rest, as_module)
    return [target] if target else []


def module_runs(args: Sequence[str | None]) -> list[str] | None:
    """The command lines ``python ARGS`` amounts to when it runs one of the modules above
    (``[]`` for another module or none); None when their words are only known at run time."""
    found = python_module(args)
    if found is None:
        return []
    module, start = found
    rest = list(args[start:])
    if module == "timeit":
        return _timeit(rest)
    if module == "pdb":
        return _pdb(rest)
    if module in ("cProfile", "profile"):
        return _runner(rest, _PROFILE_VALUED)
    if module == "trace":
        return _runner(rest, _TRACE_VALUED)
    if module == "IPython":
        return ipython_runs(rest)
    return []
