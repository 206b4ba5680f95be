"""``FakeExecutor``: a real executor whose backend is a function, for users' tests and ours.

It goes through the same spawn cap, workspace check, environment filter and timeout clamp as
the real executors, and records every request it ran, so a test of code that runs commands can
assert what would have run without running anything.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from clawgate.executors.base import ExecRequest, ExecResult, Executor, Job

Handler = Callable[[ExecRequest], ExecResult]


def _succeed(request: ExecRequest) -> ExecResult:
    return ExecResult(0)


class FakeExecutor(Executor):
    """Answers each request with ``handler(request)`` (by default: exit 0, no output)."""

    name = "fake"

    def __init__(self, handler: Handler | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.handler = handler or _succeed
        self.requests: list[ExecRequest] = []
        self.jobs: list[Job] = []
        self._lock = threading.Lock()

    def _execute(self, job: Job) -> ExecResult:
        with self._lock:
            self.requests.append(job.request)
            self.jobs.append(job)
        return self.handler(job.request)
