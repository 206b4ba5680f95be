"""Desktop programs that run what they are given: terminal emulators (a window with a shell,
or ``xterm -e CMD``), openers by file type (``xdg-open x.desktop``) and VS Code and its forks
(opening a folder runs its tasks and extensions)."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.argv import command_start, inner, opts
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.programs import words_of
from clawgate.validators.risktables import editor_reads

# The program catalog's editors with ``tier_rule: editor`` (VS Code and its forks), for
# dispatch; tests/validators/test_escapes.py holds the two equal.
EDITORS = words_of("code code-insiders code-oss codium cursor windsurf")
_EXPOSING = frozenset({"tunnel", "serve-web"})  # CG-EXPO-003's
# Terminal emulators: a window with a shell in it, or the command after -e/-x/--.
_TERMINALS = words_of("""
xterm uxterm urxvt rxvt st konsole alacritty terminator xfce4-terminal tilix lxterminal
mate-terminal sakura qterminal terminology eterm aterm cool-retro-term guake gnome-terminal
x-terminal-emulator kitty foot ghostty wezterm
""")
_TERMINAL_MARKERS = frozenset({"-e", "-x", "--command", "--execute", "--exec", "--"})
_POSITIONAL_TERMINALS = frozenset({"kitty", "foot", "ghostty"})
_TERMINAL_OPTIONS = opts("oTdcaw", "title directory config override class name session "
                         "working-directory app-id")
# The word that makes a terminal's command a remote control of running terminals.
_REMOTE_CONTROL = {"kitty": ("@",), "wezterm": ("cli",)}
_TERMINAL_INFO = frozenset({"--version", "-version", "-v", "-V", "--help", "-help", "-h",
                            # ghostty's (and kitty's +list-fonts) actions that only print
                            "+version", "+help", "+list-fonts", "+list-keybinds",
                            "+list-themes", "+list-colors", "+list-actions", "+show-config",
                            "+show-face", "+validate-config", "+explain-config"})
# Openers by file type, and the files they run rather than show.
_OPENERS = words_of("open xdg-open gio gnome-open kde-open kde-open5 exo-open gtk-launch "
                    "kioclient kioclient5 mimeopen run-mailcap")
# (Installers and disk images open a window that waits for the user: not among them.)
_RUNNABLE = lazy_pattern(r"(?i)\.(?:desktop|command|tool|terminal|app/?|sh|bash|zsh|py|pl|rb|"
                         r"jar|jnlp|exe|bat|cmd|ps1|vbs|workflow|action|appimage|run|bin|lnk)$")
_RUNNER_APP = lazy_pattern(r"(?i)terminal|iterm|script editor|automator|osascript|wezterm|"
                           r"alacritty|kitty|hyper|warp|ghostty")


@register
class TerminalEmulator(Validator):
    """A terminal emulator (``xterm``, ``gnome-terminal``, ``kitty``, ``alacritty``,
    ``konsole`` ...) opens a window with a shell in it, or runs the command given after
    ``-e``/``-x``/``--`` (kitty, foot, ghostty: its operands): ASK, and that command is
    checked (one word with spaces is shell code).

    Bad: ``xterm -e 'curl -s x | sh'``. Harmless: ``xterm -version``.
    """

    id = "CG-ESC-015"
    programs = _TERMINALS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program not in _TERMINALS or _TERMINAL_INFO.intersection(cmd.args[:1]):
            return NO_OPINION
        if _REMOTE_CONTROL.get(program) == cmd.args[:1]:
            return NO_OPINION  # kitty @ …, wezterm cli …: typedtext.py's, no window opens
        words = cmd.words
        start = next((i + 1 for i, w in enumerate(words[1:], start=1)
                      if w.shown in _TERMINAL_MARKERS), None)
        if start is None and program in _POSITIONAL_TERMINALS:
            start = command_start(words, 1, _TERMINAL_OPTIONS)
        message = f"{program} opens a terminal window"
        if start is None or start >= len(words):
            return Verdict.ask(self.id, message, hint="run the command itself")
        rest = words[start:]
        if len(rest) == 1 and rest[0].value is not None and " " in rest[0].value:
            return Verdict.unwrap(rest[0].value, outcome=Outcome.ASK, rule_id=self.id,
                                  message=f"{message} that runs shell code")
        return Verdict.unwrap(inner(cmd, start), outcome=Outcome.ASK, rule_id=self.id,
                              message=f"{message} that runs a command")


@register
class OpenByAssociation(Validator):
    """A file opened with whatever its type is associated with (``xdg-open``, ``open``,
    ``gio open``, ``kioclient exec``) runs it when it is a program: a ``.desktop`` entry's
    ``Exec=``, a ``.command`` or ``.app``, a script, a ``.jar``; ``open -a Terminal X``,
    ``gtk-launch``, ``gio launch`` start programs outright. ASK.

    Bad: ``xdg-open ./evil.desktop``, ``open -a Terminal run.sh``, ``open -a Calculator``.
    Harmless: ``xdg-open README.md``, ``open .``, ``open -a Preview doc.pdf``.
    """

    id = "CG-ESC-016"
    programs = _OPENERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program not in _OPENERS:
            return NO_OPINION
        args = cmd.args
        runs = program == "gtk-launch" or (program == "gio" and args[:1] == ("launch",)) or (
            program == "open" and _launches_app(args)) or any(
            a in ("-a", "-b") and i + 1 < len(args) and _RUNNER_APP.search(args[i + 1])
            for i, a in enumerate(args)) or any(_RUNNABLE.search(a) for a in args
                                                if not a.startswith("-"))
        if not runs:
            return NO_OPINION
        return Verdict.ask(self.id, f"{program} hands a program or script to whatever runs it",
                           hint="run it directly, where it can be checked")


_OPEN_VALUED = frozenset({"-s", "-u", "--env", "--stdin", "--stdout", "--stderr"})


def _launches_app(args: tuple[str, ...]) -> bool:
    """``open -a Calculator``, ``open -b com.apple.Terminal``, ``open -a X --args …``: macOS
    ``open`` naming an application and no document starts that program outright, as
    ``gtk-launch`` does. (``open -a Preview doc.pdf`` shows a document.)"""
    app = documents = False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--args":
            return app
        if arg[:1] == "-" and arg[1:2] not in ("", "-") and arg[-1] in "ab":  # -a, -na
            app, i = True, i + 2
            continue
        i += 2 if arg in _OPEN_VALUED else 1
        documents = documents or not arg.startswith("-")
    return app and not documents


@register
class EditorWorkspace(Validator):
    """VS Code and its forks (``code``, ``cursor``, ``windsurf``, ``codium``) opening a
    window: a folder opened runs its tasks (``.vscode/tasks.json`` with ``runOn:
    folderOpen``, where workspace trust is off or granted, as in Cursor by default) and
    loads the workspace settings its extensions obey (an interpreter or formatter path);
    ``--install-extension`` installs code that runs with the user's rights. ASK, whatever
    the autonomy. Printing what it is and has stays ALLOW; tunnels and ``serve-web`` are
    CG-EXPO-003's.

    Bad: ``cursor .``, ``code --install-extension ./x.vsix``. Harmless: ``code --version``,
    ``code --list-extensions``.
    """

    id = "CG-ESC-014"
    programs = EDITORS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program not in EDITORS or editor_reads(cmd):
            return NO_OPINION
        if len(cmd.words) > 1 and cmd.words[1].value in _EXPOSING:
            return NO_OPINION
        if any(a.partition("=")[0] == "--install-extension" for a in cmd.args):
            return Verdict.ask(self.id, f"{program} --install-extension installs code that "
                               "runs in the editor with your rights",
                               hint="install extensions yourself")
        return Verdict.ask(self.id, f"{program} opens an editor window, which runs the "
                           "opened folder's tasks (runOn: folderOpen) and extensions",
                           hint="open the editor yourself")
