"""Reading an argv the way a rule sees it: positional words in order, and a set of flags.

Flags are normalised so that every spelling of one option compares equal: short clusters are
split (``-rf`` is ``-r -f``), ``--name=value`` is ``--name``, and for well-known programs the
aliases of an option share one canonical name (``rm -r``, ``-R`` and ``--recursive`` are all
``recursive``). Options that take a separate value (``git -C DIR``) swallow it, so the value
is not mistaken for a subcommand. Everything after ``--`` is positional.
"""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from clawgate.records import NamedTuple


def _aliases(*groups: tuple[str, ...]) -> dict[str, str]:
    """Each tuple names one option; its first long spelling becomes the canonical name."""
    table: dict[str, str] = {}
    for spellings in groups:
        canonical = next((s for s in spellings if s.startswith("--")), spellings[0])
        for spelling in spellings:
            table[spelling] = canonical
    return table


_RECURSIVE_FORCE = _aliases(("-r", "-R", "--recursive"), ("-f", "--force"))

# Context ("program" or "program subcommand") -> spelling -> canonical option.
FLAG_ALIASES: dict[str, dict[str, str]] = {
    "rm": _aliases(("-r", "-R", "--recursive"), ("-f", "--force"), ("-i", "--interactive"),
                   ("-d", "--dir"), ("-v", "--verbose")),
    "cp": _RECURSIVE_FORCE,
    "scp": _aliases(("-r", "--recursive")),
    "mv": _aliases(("-f", "--force"), ("-n", "--no-clobber")),
    "chmod": _aliases(("-R", "--recursive")),
    "chown": _aliases(("-R", "--recursive")),
    "chgrp": _aliases(("-R", "--recursive")),
    "git push": _aliases(("-f", "--force"), ("-d", "--delete"), ("-u", "--set-upstream"),
                         ("-n", "--dry-run")),
    "git clean": _aliases(("-f", "--force"), ("-n", "--dry-run")),
    "git commit": _aliases(("-n", "--no-verify"), ("-a", "--all"), ("-m", "--message")),
    "git checkout": _aliases(("-f", "--force")),
    "git branch": _aliases(("-D",), ("-d", "--delete"), ("-f", "--force")),
    "npm": _aliases(("-g", "--global")),
    "npm install": _aliases(("-g", "--global"), ("-f", "--force")),
    "pip install": _aliases(("-U", "--upgrade"), ("-r", "--requirement")),
    "curl": _aliases(("-k", "--insecure"), ("-o", "--output"), ("-X", "--request"),
                     ("-d", "--data")),
    "sed": _aliases(("-i", "--in-place")),
    "docker run": _aliases(("-v", "--volume"), ("-p", "--publish")),
    "kubectl delete": _aliases(("-A", "--all-namespaces")),
}
# Options whose value is the next word (when not written as --name=value).
VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "git": frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}),
    "git commit": frozenset({"-m", "-F", "-C", "-c", "--author", "--date", "--file"}),
    "git push": frozenset({"-o", "--push-option", "--repo", "--receive-pack", "--exec"}),
    "docker": frozenset({"-H", "--host", "--context", "--config", "-l", "--log-level"}),
    "kubectl": frozenset({"-n", "--namespace", "--context", "--kubeconfig", "-s", "--server"}),
    "npm": frozenset({"--prefix", "-w", "--workspace"}),
    "curl": frozenset({"-o", "--output", "-X", "--request", "-H", "--header", "-d", "--data"}),
}
# Programs whose options are single-dash words, not clusters of letters.
SINGLE_DASH_LONG = frozenset({"find", "java", "javac", "gcc", "cc", "clang", "go", "tar"})
SUBCOMMAND_PROGRAMS = frozenset(p.split(" ", 1)[0] for p in (*FLAG_ALIASES, *VALUE_OPTIONS)
                                if " " in p)


class Argv(NamedTuple):
    positionals: tuple[str, ...]
    flags: frozenset[str]
    context: str  # "program" or "program subcommand": where flag aliases are looked up


def canonical(context: str, flag: str) -> str:
    """The canonical name of ``flag`` (one spelling) under ``context``, falling back to the
    program's own aliases (``npm i --global`` is ``npm -g``)."""
    found = FLAG_ALIASES.get(context, {}).get(flag)
    if found is None and " " in context:
        found = FLAG_ALIASES.get(context.split(" ", 1)[0], {}).get(flag)
    return flag if found is None else found


def split_flag(program: str, word: str) -> list[str]:
    """The option spellings one flag word stands for (``-rf`` -> ``-r``, ``-f``)."""
    if word.startswith("--"):
        return [word.partition("=")[0]]
    if program in SINGLE_DASH_LONG or len(word) <= 2:
        return [word]
    return [f"-{letter}" for letter in word[1:]]


def read_argv(program: str, args: Sequence[str]) -> Argv:
    """Positionals and canonical flags of ``args`` (argv without the program word)."""
    context = program
    positionals: list[str] = []
    flags: set[str] = set()
    index, only_positionals = 0, False
    while index < len(args):
        word = args[index]
        index += 1
        if only_positionals or word == "-" or not word.startswith("-"):
            positionals.append(word)
            if len(positionals) == 1 and program in SUBCOMMAND_PROGRAMS:
                context = f"{program} {word}"
            continue
        if word == "--":
            only_positionals = True
            continue
        takes_value = VALUE_OPTIONS.get(context, frozenset())
        spellings = split_flag(program, word)
        for position, spelling in enumerate(spellings):
            flags.add(canonical(context, spelling))
            if spelling in takes_value and "=" not in word:
                if position == len(spellings) - 1:
                    index += 1  # the value is the next word
                break  # otherwise the rest of the cluster is the value: -mmessage
    return Argv(tuple(positionals), frozenset(flags), context)
