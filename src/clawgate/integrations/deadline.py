"""A hook answers in time, or answers deny: its agent's own timeout must never be what ends it.

Claude Code and Gemini CLI kill a hook that outlives the ``timeout`` of its settings entry and
then let the call go on, as they do for a hook that crashes. So the hook keeps its own deadline
(``hooks.HOOK_DEADLINE_S``, below the installed timeout): a watchdog thread that, once it
passes, writes a deny naming the deadline and ends the process, whatever the hook was waiting
for (a person, the approval service, a slow disk, stdin that never closes). Whichever of the
hook and the watchdog answers first is the only answer written.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from clawgate.integrations.gate import INTERNAL_ID, refused
from clawgate.integrations.hooks import HookAdapter, HookOptions, answer

Emit = Callable[[dict[str, Any]], None]

# Run before the process ends at the deadline, once the deny is written (the resident decider
# hands the answer back from here: the hook runs in its worker, with no process of its own).
_BEFORE_ENDING: list[Callable[[], None]] = []


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

    watchdog = threading.Timer(deadline_s, expire)
    watchdog.daemon = True
    watchdog.start()
    said = answer(adapter, read(), options)
    if once.acquire(blocking=False):
        watchdog.cancel()
        emit(said)
        return
    threading.Event().wait()  # the watchdog is answering and ends the process


def late(adapter: HookAdapter, deadline_s: float) -> dict[str, Any]:
    """The deny a hook answers when its deadline passes."""
    return adapter.render(refused("(hook)", INTERNAL_ID, f"clawgate did not decide within "
                                  f"{deadline_s:g} s (the hook's deadline); failing closed"))
