"""A credential file given to ``source`` or ``.`` (CG-SEC-001).

The shell runs each line of the file as a command. A line that is none (a private key's
base64 lines, ``-----BEGIN OPENSSH PRIVATE KEY-----``) comes back in the shell's error
message, ``line 2: b3BlbnNzaC1rZXktdjEAAAAA…: command not found``, so sourcing a key shows
it as ``cat`` would: DENY where the file holds key material. A store of
another syntax (``~/.aws/credentials``, ``~/.netrc``) loads nothing a program reads, only
names or tokens into the shell: ASK. An environment file (``.env``, ``.env.test``,
``prod.env``, ``.envrc``) is shell assignments made to be loaded, and what it sets is not
shown: as before, no question.
"""

from __future__ import annotations

import os

from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context
from clawgate.validators.credentials import credential_in, holds_key_material

SOURCERS = frozenset({"source", "."})


def sourced(rule: str, cmd: SimpleCommand, ctx: Context, hint: str) -> Verdict:
    """The verdict on ``cmd`` (``source FILE ARGS…``) when FILE is a credential file."""
    operands = [w for w in cmd.words[1:] if w.value != "--"]
    if not operands:
        return NO_OPINION
    skip = frozenset(id(w) for w in operands[1:])  # the arguments the script is handed
    path = credential_in(cmd, ctx, skip=skip)
    if path is None or _environment_file(path):
        return NO_OPINION
    if holds_key_material(path, ctx):
        return Verdict.deny(rule, f"{cmd.program} runs each line of {path} as a command: the "
                            "shell's errors print the lines that are none, the key's among them",
                            hint=hint)
    return Verdict.of(Outcome.ASK, rule, f"{cmd.program} loads the credential file {path} into "
                      "the shell", hint="read only the value you need, or ask the user",
                      risk=Risk.HIGH)


def _environment_file(path: str) -> bool:
    name = os.path.basename(path.rstrip("/"))
    return name in {".envrc", ".env"} or name.startswith(".env.") or name.endswith(".env")
