"""One exception tree for clawgate.

::

    ClawgateError
      PolicyError            a bad manifest (path, location, detail)
      ToolError              a tool call that cannot go on; ``kind`` is one of ToolErrorKind
        CapacityExceeded     the spawn cap is reached (kind ExecutionFailed); also an ExecutorError
      ExecutorError          the machinery that runs commands failed
        SandboxUnavailable   bwrap or docker is missing or not answering
        CapacityExceeded
      MissingExtra           an optional part was asked for and its extra is not installed
                             (also an ImportError)

Verdicts are values, never exceptions: only failures of the machinery raise. Errors from a
backend (subprocess, the Docker SDK, the YAML parser) are converted at one boundary with
``raise ... from exc``.
"""

from __future__ import annotations

from enum import Enum

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from clawgate.decision import Reason


class ClawgateError(Exception):
    """The root of every error clawgate raises on purpose."""


class PolicyError(ClawgateError):
    """A manifest that cannot be used. Printed as ``file:line: what is wrong``."""

    def __init__(self, path: str, location: str | int | None, detail: str) -> None:
        self.path = path
        self.location = location
        self.detail = detail
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.location in (None, "") else f"{self.path}:{self.location}"
        return f"{where}: {self.detail}"


class ToolErrorKind(str, Enum):
    NOT_FOUND = "NotFound"
    INVALID_ARGS = "InvalidArgs"
    EXECUTION_FAILED = "ExecutionFailed"
    PERMISSION_DENIED = "PermissionDenied"
    FILE_NOT_FOUND = "FileNotFound"
    INVALID_PATH = "InvalidPath"
    TIMEOUT = "Timeout"


class ToolError(ClawgateError):
    """A tool call that failed, with a message fit to show the model."""

    def __init__(self, kind: ToolErrorKind | str, message: str,
                 reasons: tuple[Reason, ...] = ()) -> None:
        self.kind = ToolErrorKind(kind)
        self.message = message
        self.reasons = reasons  # the rules that refused, when a decision did
        super().__init__(f"{self.kind.value}: {message}")


class ExecutorError(ClawgateError):
    """An executor could not run a command."""


class SandboxUnavailable(ExecutorError):
    """The sandbox a policy asks for (bwrap, a Docker engine) is missing. Never a quiet host run."""


class MissingExtra(ClawgateError, ImportError):
    """An optional part (the Docker executor, the MCP proxy, the harness) whose extra is not
    installed. The message is one line naming the extra and the command that installs it."""

    def __init__(self, extra: str, what: str) -> None:
        self.extra = extra
        self.what = what
        super().__init__(f"clawgate: {what} needs the '{extra}' extra: "
                         f"pip install 'clawgate[{extra}]'")


class CapacityExceeded(ExecutorError, ToolError):
    """The spawn cap is reached; a ToolError of kind ExecutionFailed naming the cap."""

    def __init__(self, message: str) -> None:
        ToolError.__init__(self, ToolErrorKind.EXECUTION_FAILED, message)


class RegistryError(ClawgateError):
    """A validator without an ID, with a malformed or duplicate ID, or without a docstring."""
