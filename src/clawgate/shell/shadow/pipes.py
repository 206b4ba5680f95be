"""The pipelines a shadow run's executions formed: one program's standard output is the pipe
another's standard input reads, so ``curl … | sh`` decoded from a payload is judged as the
pipeline it is, not as a download and a shell apart (each only ASK alone).

Stages are joined by the pipe's identity (``pipe:[inode]``, the same in every process that
holds it), whatever shell depth started them; a builtin stage (``echo``, ``printf``) records
nothing and ends the chain there.
"""

from __future__ import annotations

from clawgate.shell.shadow.records import Execution
from clawgate.shell.shadow.requote import requote

MAX_PIPELINES = 16  # pipelines written out per run
MAX_STAGES = 8  # stages followed in one pipeline


def pipelines(executions: tuple[Execution, ...]) -> list[tuple[Execution, ...]]:
    """Every chain of two or more executions joined stdout-to-stdin by one pipe, from a stage
    whose input no recorded execution writes, in the order bash started their first stage."""
    readers: dict[str, list[Execution]] = {}
    for execution in executions:
        pipe = _pipe(execution, 0, writes=False)
        if pipe is not None:
            readers.setdefault(pipe, []).append(execution)
    written = {_pipe(e, 1, writes=True) for e in executions} - {None}
    found: list[tuple[Execution, ...]] = []
    for start in executions:
        if _pipe(start, 0, writes=False) in written:
            continue  # not a first stage
        _follow((start,), readers, found)
        if len(found) >= MAX_PIPELINES:
            break
    return found[:MAX_PIPELINES]


def requote_pipeline(stages: tuple[Execution, ...]) -> str:
    """The stages as one pipeline line."""
    return " | ".join(requote(stage) for stage in stages)


def _follow(chain: tuple[Execution, ...], readers: dict[str, list[Execution]],
            found: list[tuple[Execution, ...]]) -> None:
    pipe = _pipe(chain[-1], 1, writes=True)
    following = [e for e in readers.get(pipe, ()) if e not in chain] if pipe else []
    if not following or len(chain) >= MAX_STAGES:
        if len(chain) > 1:
            found.append(chain)
        return
    for reader in following:
        if len(found) >= MAX_PIPELINES:
            return
        _follow((*chain, reader), readers, found)


def _pipe(execution: Execution, fd: int, *, writes: bool) -> str | None:
    for descriptor in execution.fds:
        if descriptor.fd == fd and descriptor.target.startswith("pipe:"):
            return descriptor.target if descriptor.writes is writes else None
    return None
