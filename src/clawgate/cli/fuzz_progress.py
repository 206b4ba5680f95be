"""``policy fuzz``'s progress on a terminal (stderr): which invariant runs, how many are done.
Only imported when stderr is a terminal; piped runs print nothing extra."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from clawgate.testing.fuzz import Result


@contextmanager
def progress(names: Sequence[str], report: Callable[[Result], None] | None
             ) -> Iterator[Callable[[Result], None]]:
    """An ``on_result`` callback that reports each result (``report``) and moves the bar on;
    the bar names the invariant being run (results come in the order of ``names``)."""
    console = Console(file=sys.stderr)
    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                   MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                   redirect_stdout=_same_terminal(), redirect_stderr=False, transient=True)
    pending = list(names)

    def on_result(result: Result) -> None:
        if report is not None:
            report(result)
        if result.name in pending:
            pending.remove(result.name)
        bar.update(task, advance=1, description=_running(pending))
        bar.refresh()  # each invariant named at least once, however fast it runs

    with bar:
        task = bar.add_task(_running(pending), total=len(names))
        bar.refresh()
        yield on_result


def _same_terminal() -> bool:
    """Whether stdout is the terminal the bar is drawn on: then rich prints the results above
    the bar (through stderr, to the same screen); otherwise stdout is left alone."""
    try:
        out, err = sys.stdout.fileno(), sys.stderr.fileno()
        return os.isatty(out) and os.path.samestat(os.fstat(out), os.fstat(err))
    except (AttributeError, OSError, ValueError):
        return False


def _running(pending: Sequence[str]) -> str:
    return f"invariant {pending[0]}" if pending else "done"
