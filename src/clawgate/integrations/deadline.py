"""A hook answers in time, or answers deny: its agent's own timeout must never be what ends it.

Claude Code and Gemini CLI kill a hook that outlives the ``timeout`` of its settings entry and
then let the call go on, as they do for a hook that crashes. So the hook keeps its own deadline
(``hooks.HOOK_DEADLINE_S``, below the installed timeout): a watchdog thread that, once it
passes, writes a deny naming the deadline and ends the process, whatever the hook was waiting
for (a person, the approval service, a slow disk, stdin that never closes). Whichever of the
hook and the watchdog answers first is the only answer written.
"""

from __future__ import annotations

import _thread
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from clawgate.integrations.gate import INTERNAL_ID, refused
from clawgate.integrations.hooks import HookAdapter, HookOptions, answer

Emit = Callable[[dict[str, Any]], None]

# Run before the process ends at the deadline, once the deny is written (the resident decider
# hands the answer back from here: the hook runs in its worker, with no process of its own).
_BEFORE_ENDING: list[Callable[[], None]] = []
# The watchdogs not ended yet, each by the lock it releases as it ends (``join_watchdogs``).
_RUNNING: set[_thread.LockType] = set()


def before_ending(then: Callable[[], None]) -> None:
    """Call ``then()`` after the deadline's deny is written, before the process ends."""
    _BEFORE_ENDING.append(then)


def answer_in_time(adapter: HookAdapter, read: Callable[[], bytes], options: HookOptions,
                   deadline_s: float, emit: Emit) -> None:
    """Read the hook's input, decide and ``emit`` the answer, all within ``deadline_s``;
    past it, ``emit`` a deny saying so and end the process (exit 0: the deny is the answer)."""
    once = threading.Lock()

    def expire() -> None:
        if not once.acquire(blocking=False):
            return  # the hook's own answer is being written
        try:
            emit(late(adapter, deadline_s))
            sys.stdout.flush()
            for then in _BEFORE_ENDING:
                then()
        finally:
            os._exit(0)

    cancel = _watchdog(deadline_s, expire)
    said = answer(adapter, read(), options)
    if once.acquire(blocking=False):
        cancel.release()
        emit(said)
        return
    threading.Event().wait()  # the watchdog is answering and ends the process


def _watchdog(deadline_s: float, expire: Callable[[], None]) -> _thread.LockType:
    """A thread that calls ``expire()`` once ``deadline_s`` have passed, unless the lock
    returned is released first. Started without waiting for it to run (``threading.Timer``
    waits for its thread to be scheduled: a wait of its own on every hook call, long on a
    busy machine); the deadline counts from its start all the same."""
    cancel, ended = _thread.allocate_lock(), _thread.allocate_lock()
    cancel.acquire()
    ended.acquire()
    _RUNNING.add(ended)

    def watch() -> None:
        try:
            if not cancel.acquire(timeout=remaining()):
                expire()
        finally:
            _RUNNING.discard(ended)
            ended.release()

    start = time.monotonic()

    def remaining() -> float:
        return max(0.0, deadline_s - (time.monotonic() - start))

    _thread.start_new_thread(watch, ())
    return cancel


def join_watchdogs(timeout_s: float) -> None:
    """Wait until every watchdog started so far has ended (the cancelled ones end at once):
    the resident decider forks its workers from a process with no thread but its own."""
    for ended in list(_RUNNING):
        if ended.acquire(timeout=timeout_s):
            ended.release()


def late(adapter: HookAdapter, deadline_s: float) -> dict[str, Any]:
    """The deny a hook answers when its deadline passes."""
    return adapter.render(refused("(hook)", INTERNAL_ID, f"clawgate did not decide within "
                                  f"{deadline_s:g} s (the hook's deadline); failing closed"))
