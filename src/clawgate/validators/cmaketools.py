"""``cmake -E``: CMake's portable command-line tools. ``cmake -E rm -rf DIR`` deletes as ``rm -rf
DIR`` does, ``cmake -E copy A B`` copies as ``cp`` does, ``cmake -E env … CMD`` and ``cmake -E
chdir DIR CMD`` run a command: each tool is judged as the ordinary command it stands for, so a
deletion of home or a write to a start-up file is what it is whichever program performs it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register

_CMAKES = frozenset({"cmake", "cmake3"})


def _q(words: Sequence[str]) -> str:
    """The words as written: quotes, tildes, globs and expansions keep their meaning."""
    return " ".join(words)


def _rm(args: Sequence[str]) -> str:
    flags = [a for a in args if a in ("-r", "-R", "-f", "-rf", "-fr", "-Rf", "-fR")]
    rest = [a for a in args if a not in flags and a != "--"]
    letters = "".join(sorted({c.lower() for f in flags for c in f.lstrip("-")}))
    return f"rm {'-' + letters + ' ' if letters else ''}-- {_q(rest)}"


def _chdir(args: Sequence[str]) -> str:
    return f"cd {args[0]} && {_q(args[1:])}" if len(args) > 1 else "true"


# tool → the ordinary command line it stands for, from the tool's arguments
_TOOLS: dict[str, Callable[[Sequence[str]], str]] = {
    "rm": _rm,
    "remove": lambda a: f"rm -f -- {_q([w for w in a if w != '-f'])}",
    "remove_directory": lambda a: f"rm -rf -- {_q(a)}",
    "copy": lambda a: f"cp -- {_q([w for w in a if w != '-t'])}",
    "copy_if_different": lambda a: f"cp -- {_q(a)}",
    "copy_if_newer": lambda a: f"cp -- {_q(a)}",
    "copy_directory": lambda a: f"cp -r -- {_q(a)}",
    "copy_directory_if_different": lambda a: f"cp -r -- {_q(a)}",
    "rename": lambda a: f"mv -- {_q(a)}",
    "create_symlink": lambda a: f"ln -s -- {_q(a)}",
    "create_hardlink": lambda a: f"ln -- {_q(a)}",
    "make_directory": lambda a: f"mkdir -p -- {_q(a)}",
    "touch": lambda a: f"touch -- {_q(a)}",
    "touch_nocreate": lambda a: f"touch -c -- {_q(a)}",
    "cat": lambda a: f"cat -- {_q(a)}",
    "env": lambda a: f"env {_q(a)}",
    "chdir": _chdir,
    "time": _q,
    "tar": lambda a: f"tar {_q(a)}",
}


@register
class CmakeTools(Validator):
    """``cmake -E TOOL ARGS``: the tool is checked as the command it stands for (``rm``,
    ``cp``, ``mv``, ``ln``, ``mkdir``, ``touch``, ``cat``, ``env``, ``cd … &&``, ``tar``). Tools
    that only print or compare (``echo``, ``compare_files``, ``sha256sum``) change nothing.

    Bad: ``cmake -E rm -rf ~``, ``cmake -E copy payload.sh ~/.bashrc``. Harmless:
    ``cmake -E rm -rf build``, ``cmake -E make_directory build``.
    """

    id = "CG-WRAP-024"
    programs = _CMAKES

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        words = cmd.words
        if cmd.program not in _CMAKES or len(words) < 3 or words[1].text != "-E":
            return NO_OPINION
        tool = words[2].value
        if tool is None:
            return Verdict.ask(self.id, "the cmake -E tool is only known at run time")
        build = _TOOLS.get(tool)
        if build is None:
            return NO_OPINION
        # the stand-in takes each word as written, so the shell expands it as it would here
        return Verdict.unwrap(build([w.text for w in words[3:]]))
