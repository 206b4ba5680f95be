"""Reading what a child wrote to a pseudo-terminal, for tests of terminal output."""

from __future__ import annotations

import os


def read_all(fd: int) -> str:
    """Everything read from the terminal's leader ``fd`` until the child closes its side."""
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")
