"""Programs whose documented output is shell setup for the caller's own shell: ``eval "$(opam
env)"``, ``eval "$(pyenv init -)"``, ``eval "$(brew shellenv)"``. What they print is variable
settings (and a version manager's shell function, a prompt's or a directory jumper's hooks:
``starship init``, ``zoxide init``, ``fzf --bash``) drawn from the tool's own installation; the
tool itself runs as the command it is and is judged as one. Evaluating that output adds nothing
the tool could not do by running, so ``eval`` of exactly such a substitution is not text only
known at run time.

A completion script printed by a program the catalog knows, for the shell it names (``source
<(kubectl completion bash)``, ``. <(gh completion -s bash)``, ``eval "$(rustup completions
bash)"``), is the same: function definitions and ``complete`` registrations generated from the
program's own installation, which add nothing the program could not do by running. The same
words read through ``source``/``.`` of a process substitution count as through ``eval``.

Left out on purpose: printers whose output runs the project's own files (``direnv hook``
evaluates ``.envrc`` at every prompt, ``mise activate`` a project's tasks and templates),
printers that start a daemon holding credentials (``ssh-agent``, ``gpg-agent``), and any
printer given an operand or an option outside the short list below (``opam env
--root=/elsewhere`` would put another tree's programs first on ``PATH``).
"""

from __future__ import annotations

import re
import shlex

from clawgate import programs
from clawgate.shell.model import Word

# (program, subcommand words): the invocation that prints the setup
_PRINTERS = frozenset({
    ("opam", "env"), ("opam", "config", "env"),
    ("pyenv", "init"), ("pyenv", "virtualenv-init"), ("rbenv", "init"), ("nodenv", "init"),
    ("goenv", "init"), ("jenv", "init"), ("plenv", "init"), ("phpenv", "init"),
    ("fnm", "env"), ("brew", "shellenv"), ("luarocks", "path"), ("dircolors",),
    ("conda", "shell.bash", "hook"), ("conda", "shell.zsh", "hook"),
    ("conda", "shell.posix", "hook"),
    # prompt and directory-jumping tools: functions and prompt hooks of their own
    ("starship", "init"), ("zoxide", "init"),
    ("fzf", "--bash"), ("fzf", "--zsh"), ("fzf", "--fish"),
})
_SHELLS = frozenset({"bash", "zsh", "sh", "fish", "ksh"})
# subcommands and options that print a completion script (``--completion`` takes the shell)
_COMPLETION = frozenset({"completion", "completions", "--completion", "--completions",
                         "gen-completions", "generate-completion", "generate-completions",
                         "generate-shell-completion", "shell-completion", "shell-completions"})
_TOOL_NAME = re.compile(r"^[a-z][a-z0-9-]*$")  # rustup completions bash cargo: a tool's name
# words after it that only pick the shell the script is for
_COMPLETION_SHELL = _SHELLS | frozenset(f"--{s}" for s in _SHELLS) | frozenset(
    f"{o}={s}" for o in ("--shell", "-s", "--completion", "--completions") for s in _SHELLS)
_SHELL_OPTIONS = frozenset({"-s", "--shell"})
# words after the invocation that only pick the shell or the form of the output
_PLAIN = frozenset({"-", "-b", "-s", "--sh", "--bourne-shell", "--bin", "--lr-path",
                    "--lr-cpath", "--no-rehash", "--path", "--set-switch", "--readonly"}
                   ) | _SHELLS | frozenset(f"--shell={s}" for s in _SHELLS)


def _plain(word: str) -> bool:
    """A word that picks the shell or the output's form, or an installed switch by name
    (``--switch=default``; a path would name a tree elsewhere)."""
    name = word.removeprefix("--switch=")
    return word in _PLAIN or (name != word and name.replace("-", "").replace(".", "").isalnum())


def _substitution(word: Word) -> str | None:
    """The command inside a word that is one command substitution and nothing else."""
    text = word.text
    if text.startswith('"') and text.endswith('"') and len(text) > 1:
        text = text[1:-1]
    if text.startswith("$(") and text.endswith(")") and not text.startswith("$(("):
        return text[2:-1]
    if text.startswith("`") and text.endswith("`") and text.count("`") == 2:
        return text[1:-1]
    return None


def _completion_printer(argv: list[str]) -> bool:
    """``PROG completion SHELL``, ``PROG completion -s SHELL``, ``PROG --completions=zsh``,
    ``npm completion``: a program the catalog knows printing its completion script (for the
    shell it names, and for one of its tools: ``rustup completions bash cargo``)."""
    if len(argv) < 2 or argv[1] not in _COMPLETION or "/" in argv[0] or not (
            programs.entry(argv[0]) or programs.learned_entry(argv[0])):
        return False
    rest, shells = argv[2:], 0
    while rest:
        if rest[0] in _SHELL_OPTIONS and len(rest) > 1 and rest[1] in _SHELLS:
            rest, shells = rest[2:], shells + 1
        elif rest[0] in _COMPLETION_SHELL:
            rest, shells = rest[1:], shells + 1
        elif shells == 1 and len(rest) == 1 and _TOOL_NAME.match(rest[0]):
            rest = []  # the last word names which of its tools the script completes
        else:
            return False
    return shells <= 1  # none: the one script it prints (``npm completion``)


def _printer(inner: str) -> bool:
    """``inner`` is one plain command that prints shell setup or a completion script."""
    if any(c in inner for c in "$`;&|<>()\n\\'\""):
        return False  # one plain command: nothing in it is only known at run time
    argv = shlex.split(inner)
    for printer in _PRINTERS:
        if tuple(argv[: len(printer)]) == printer:
            return all(_plain(a) for a in argv[len(printer):])
    return _completion_printer(argv)


def prints_shell_setup(words: tuple[Word, ...]) -> bool:
    """``words`` (what ``eval`` is given) are one substitution running a setup printer."""
    if len(words) != 1:
        return False
    inner = _substitution(words[0])
    return inner is not None and _printer(inner)


def sources_shell_setup(word: Word) -> bool:
    """``word`` (what ``source``/``.`` is given) is one process substitution running a setup
    printer: ``<(kubectl completion bash)``."""
    text = word.text
    return text.startswith("<(") and text.endswith(")") and _printer(text[2:-1])
