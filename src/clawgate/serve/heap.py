"""The service's heap and the garbage collector: what set the latency tail of ``policy serve``.

A full (oldest-generation) collection walks every container object the process holds: the
engine's program catalog, the parsers, FastAPI's and pydantic's models — some 80,000 objects
made at start-up that live as long as the process. Walking them took 50–80 ms, and it ran on
the event loop's thread, so every request in flight or arriving meanwhile waited: three such
pauses in ten seconds at 1,500 decisions a second put 2–3 % of the requests behind one, which
was the whole of the p99 (README, the serve figures). ``settle`` builds what the first decision
builds lazily, collects once, and moves everything alive into the collector's permanent
generation (``gc.freeze``): later collections walk only what the service made since — its
bounded caches and the requests in flight — and still free every cycle among those.
"""

from __future__ import annotations

import gc
from collections.abc import Callable


def settle(warm: Callable[[], object]) -> int:
    """Run ``warm`` (the lazy start-up work), collect, and freeze what is alive; the number of
    objects frozen."""
    warm()
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def release() -> None:
    """Give the frozen objects back to the collector (the service stopped; a process that goes
    on, such as a test, collects them again)."""
    gc.unfreeze()
