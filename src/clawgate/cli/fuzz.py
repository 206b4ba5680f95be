"""``policy fuzz``: run the harness's invariants against a policy; exit 0 when all hold, 4 when
one fails (with the shrunk counter-example and the commands that reproduce it)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from clawgate.cli.common import load_engine, policy_paths, say
from clawgate.cli.exitcodes import ExitCode
from clawgate.errors import MissingExtra, PolicyError
from clawgate.extras import require
from clawgate.testing.report import describe, reproduce

if TYPE_CHECKING:
    from clawgate.engine import Engine
    from clawgate.testing.fuzz import FuzzConfig, Result

_NAMES = ("decides", "rewrites", "adding", "wrappers", "paths", "audit")


@click.command()
@click.option("--policy", "policies", multiple=True, type=click.Path(dir_okay=False),
              help="A manifest layered after the discovered ones "
              "(repeatable, in order; see `policy config`).")
@click.option("--examples", default=200, show_default=True, type=click.IntRange(1),
              help="Generated examples per invariant.")
@click.option("--seed", type=int, default=None, help="Random seed (default: derandomised).")
@click.option("--deadline-ms", default=50.0, show_default=True, type=click.FloatRange(0.1),
              help="Time bound for one decision, in CPU milliseconds (per 256 characters "
                   "of a longer line).")
@click.option("--deadline-ratio", default=8.0, show_default=True, type=click.FloatRange(0),
              help="On a slower machine, the bound is this many times what a heavy ordinary "
                   "line costs beside it, where that is more than --deadline-ms.")
@click.option("--invariant", "only", multiple=True, type=click.Choice(_NAMES),
              help="Run only this invariant (repeatable).")
@click.option("--save", type=click.Path(dir_okay=False), default=None,
              help="Append each counter-example as a JSON line (a regressions file).")
@click.option("--keep-going", is_flag=True,
              help="Count every failing example instead of stopping at the first (no shrinking).")
@click.option("--jobs", type=click.IntRange(1), default=1, show_default=True,
              help="Invariants run at once, in forked worker processes.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def fuzz(*, policies: tuple[str, ...], examples: int, seed: int | None, deadline_ms: float,
         deadline_ratio: float, only: tuple[str, ...], save: str | None, keep_going: bool,
         jobs: int, as_json: bool) -> int:
    """Check the policy's invariants on generated commands, rewrites, wrappers and paths."""
    from clawgate.testing.examples import read_all

    try:
        require("testing", "clawgate.testing.fuzz", "policy fuzz")
    except MissingExtra as exc:
        say(str(exc))
        return ExitCode.USAGE
    from clawgate.testing.fuzz import FuzzConfig
    try:
        layered = policy_paths(policies)  # the discovered files too, for every invariant
        engine = load_engine(policies)
        manifests = [p for p in layered if os.path.basename(p) != "pyproject.toml"]
        seeds = tuple(dict.fromkeys(e.command for e in read_all(manifests)))
    except PolicyError as exc:
        say(str(exc))
        return ExitCode.USAGE
    config = FuzzConfig(examples, seed, deadline_ms, only, seeds, keep_going, layered, jobs,
                        deadline_ratio)
    printer = None if as_json else (lambda r: click.echo("\n".join(describe(r, config, policies))))
    results = _run(engine, config, printer)
    if save:
        _save(Path(save), results)
    failed = any(r.status == "FAIL" for r in results)
    if as_json:
        # ASCII-escaped: counter-examples may hold lone surrogates, which stdout cannot encode.
        click.echo(json.dumps({"ok": not failed,
                               "invariants": [_as_dict(r, config, policies) for r in results]}))
    return ExitCode.DENY if failed else ExitCode.OK


def _run(engine: Engine, config: FuzzConfig, printer: Callable[[Result], None] | None
         ) -> list[Result]:
    """The harness's run; on a terminal, with a progress bar per invariant on stderr."""
    from clawgate.testing.fuzz import INVARIANTS, run

    if not sys.stderr.isatty():
        return run(engine, config, on_result=printer)
    from clawgate.cli.fuzz_progress import progress

    chosen = [n for n in INVARIANTS if not config.only or n in config.only]
    with progress(chosen, printer) as on_result:
        return run(engine, config, on_result=on_result)


def _as_dict(result: Result, config: FuzzConfig, policies: Sequence[str]) -> dict[str, object]:
    out: dict[str, object] = {
        "name": result.name, "status": result.status, "examples": result.examples,
        "applied": result.applied, "seconds": round(result.seconds, 3), "note": result.note,
    }
    if result.violation is not None:
        out["counterexample"] = {"message": result.violation.message,
                                 "arguments": result.violation.arguments,
                                 "steps": list(result.steps), "failed_at": result.failed_at,
                                 "failures": result.failures,
                                 "reproduce": reproduce(result, config, policies)}
    return out


def _save(path: Path, results: Sequence[Result]) -> None:
    with path.open("a", encoding="utf-8") as out:
        for result in results:
            if result.violation is None:
                continue
            record = {"invariant": result.violation.invariant,  # a hang is `decides`'s
                      "arguments": result.violation.arguments,
                      "message": result.violation.message, "steps": list(result.steps)}
            out.write(json.dumps(record, ensure_ascii=True) + "\n")
