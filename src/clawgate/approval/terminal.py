"""Asking a person on the controlling terminal, with a timeout; no terminal is a deny."""

from __future__ import annotations

import os
import select
import termios
import threading
import time
import unicodedata

from clawgate.approval.model import ApprovalAnswer, ApprovalRequest

_REPLIES = {"y": ApprovalAnswer.ALLOW_ONCE, "yes": ApprovalAnswer.ALLOW_ONCE,
            "a": ApprovalAnswer.ALLOW_ALWAYS, "always": ApprovalAnswer.ALLOW_ALWAYS}


def printable(text: str) -> str:
    """Control and format characters shown as escapes, so a request cannot redraw the prompt."""
    return "".join(
        ch.encode("unicode_escape").decode("ascii")
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch
        for ch in text
    )


class TerminalApprover:
    """Asks on the controlling terminal; no terminal, or no answer within ``timeout_s``, is deny.

    Pending input is discarded before asking so that type-ahead cannot answer, and prompts
    from several threads are asked one at a time.
    """

    def __init__(self, timeout_s: float = 120.0, device: str = "/dev/tty") -> None:
        self.timeout_s = timeout_s
        self.device = device
        self._lock = threading.Lock()

    @property
    def can_approve(self) -> bool:
        """A person can answer only where the terminal device opens as a terminal."""
        try:
            fd = os.open(self.device, os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            return os.isatty(fd)
        finally:
            os.close(fd)

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        deadline = time.monotonic() + self.timeout_s
        if not self._lock.acquire(timeout=self.timeout_s):
            return ApprovalAnswer.DENY
        try:
            fd = os.open(self.device, os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError:
            self._lock.release()
            return ApprovalAnswer.DENY
        try:
            if not os.isatty(fd):
                return ApprovalAnswer.DENY
            termios.tcflush(fd, termios.TCIFLUSH)
            os.write(fd, self._prompt(request).encode("utf-8", "replace"))
            reply = _read_line(fd, deadline)
            if reply is None:
                os.write(fd, b"\n(no answer in time: denied)\n")
                return ApprovalAnswer.DENY
            return _REPLIES.get(reply.strip().lower(), ApprovalAnswer.DENY)
        finally:
            os.close(fd)
            self._lock.release()

    def _prompt(self, request: ApprovalRequest) -> str:
        lines = [f"\nclawgate: {printable(request.tool)} wants to run:",
                 f"    {printable(request.summary or request.key)}"]
        lines += [f"  {printable(r.rule_id)}: {printable(r.message)}" for r in request.reasons]
        lines.append(f"Allow? [y] once, [a] always, [N] no ({self.timeout_s:g} s): ")
        return "\n".join(lines)


def _read_line(fd: int, deadline: float) -> str | None:
    """Bytes up to a newline, or None when the deadline passes first (or the tty closes)."""
    data = b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return None
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    return data.split(b"\n", 1)[0].decode("utf-8", "replace")


