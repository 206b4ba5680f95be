"""``policy fuzz``: run the harness's invariants against a policy; exit 0 when all hold, 4 when
one fails (with the shrunk counter-example and the commands that reproduce it)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from clawgate.cli.common import load_engine, say
from clawgate.cli.exitcodes import ExitCode
from clawgate.errors import PolicyError

if TYPE_CHECKING:
    from clawgate.testing.fuzz import FuzzConfig, Result

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\E"}
_NAMES = ("decides", "rewrites", "adding", "wrappers", "paths", "audit")


def shell_quote(text: str) -> str:
    """``text`` as one shell word a person can paste: ``$'…'`` when it holds control or
    non-printable characters, plain quoting otherwise."""
    if text.isprintable():
        return shlex.quote(text)
    out = []
    for ch in text:
        if ch in "\\'":
            out.append("\\" + ch)
        elif ch in _NAMED:
            out.append(_NAMED[ch])
        elif ch.isprintable() and ch != "\n":
            out.append(ch)
        else:
            out.extend(f"\\x{b:02x}" for b in _bytes_of(ch))
    return "$'" + "".join(out) + "'"


def _bytes_of(ch: str) -> bytes:
    """UTF-8 bytes of ``ch``; an escaped byte (U+DC80..U+DCFF) as itself, any other lone
    surrogate as its three-byte encoding."""
    try:
        return ch.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return ch.encode("utf-8", "surrogatepass")


@click.command()
@click.option("--policy", "policies", multiple=True, type=click.Path(dir_okay=False),
              help="A manifest layered over the embedded default (repeatable, in order).")
@click.option("--examples", default=200, show_default=True, type=click.IntRange(1),
              help="Generated examples per invariant.")
@click.option("--seed", type=int, default=None, help="Random seed (default: derandomised).")
@click.option("--deadline-ms", default=50.0, show_default=True, type=click.FloatRange(0.1),
              help="Time bound for one decision, in CPU milliseconds.")
@click.option("--invariant", "only", multiple=True, type=click.Choice(_NAMES),
              help="Run only this invariant (repeatable).")
@click.option("--save", type=click.Path(dir_okay=False), default=None,
              help="Append each counter-example as a JSON line (a regressions file).")
@click.option("--keep-going", is_flag=True,
              help="Count every failing example instead of stopping at the first (no shrinking).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def fuzz(policies: tuple[str, ...], examples: int, seed: int | None, deadline_ms: float,
         only: tuple[str, ...], save: str | None, keep_going: bool, as_json: bool) -> int:
    """Check the policy's invariants on generated commands, rewrites, wrappers and paths."""
    from clawgate.testing.examples import read_all
    from clawgate.testing.fuzz import FuzzConfig, run

    try:
        engine = load_engine(policies)
        seeds = tuple(dict.fromkeys(e.command for e in read_all(policies)))
    except PolicyError as exc:
        say(str(exc))
        return ExitCode.USAGE
    config = FuzzConfig(examples, seed, deadline_ms, only, seeds, keep_going)
    printer = None if as_json else (lambda r: _print(r, config, policies))
    results = run(engine, config, on_result=printer)
    if save:
        _save(Path(save), results)
    failed = any(r.status == "FAIL" for r in results)
    if as_json:
        # ASCII-escaped: counter-examples may hold lone surrogates, which stdout cannot encode.
        click.echo(json.dumps({"ok": not failed,
                               "invariants": [_as_dict(r, policies) for r in results]}))
    return ExitCode.DENY if failed else ExitCode.OK


def reproduce(result: Result, config: FuzzConfig, policies: Sequence[str]) -> list[str]:
    """Commands that show a failure again: one ``policy check`` per line involved, and the
    ``policy fuzz`` run narrowed to the invariant."""
    flags = "".join(f" --policy {shlex.quote(p)}" for p in policies)
    out = [f"policy check{flags} {shell_quote(line)}"
           for line in (result.violation.lines() if result.violation else ())]
    seed = f" --seed {config.seed}" if config.seed is not None else ""
    out.append(f"policy fuzz{flags} --invariant {result.name} --examples {config.examples}"
               f"{seed} --deadline-ms {config.deadline_ms:g}")
    return out


def _print(result: Result, config: FuzzConfig, policies: Sequence[str]) -> None:
    if result.status == "skipped":
        click.echo(f"{result.name:<9} skipped  {result.note}")
        return
    if result.status == "ok":
        click.echo(f"{result.name:<9} ok       {result.examples} examples, {result.applied} "
                   f"with something to keep, {result.seconds:.1f} s"
                   + (f", {result.note}" if result.note else ""))
        return
    violation = result.violation
    assert violation is not None
    count = f" ({result.failures} of {result.examples} failed)" if config.keep_going else ""
    click.echo(f"{result.name:<9} FAIL     at example {result.failed_at}{count}, "
               f"{result.seconds:.1f} s: "
               f"{violation.message}")
    for key, value in violation.arguments.items():
        click.echo(f"    {key + ':':<13} {shell_quote(value) if isinstance(value, str) else value}")
    if result.steps:
        click.echo(f"    {'rewrites:':<13} {', '.join(result.steps)}")
    for index, command in enumerate(reproduce(result, config, policies)):
        click.echo(f"    {'reproduce:' if index == 0 else '':<13} {command}")


def _as_dict(result: Result, policies: Sequence[str]) -> dict[str, object]:
    out: dict[str, object] = {
        "name": result.name, "status": result.status, "examples": result.examples,
        "applied": result.applied, "seconds": round(result.seconds, 3), "note": result.note,
    }
    if result.violation is not None:
        out["counterexample"] = {"message": result.violation.message,
                                 "arguments": result.violation.arguments,
                                 "steps": list(result.steps), "failed_at": result.failed_at,
                                 "failures": result.failures}
    return out


def _save(path: Path, results: Sequence[Result]) -> None:
    with path.open("a", encoding="utf-8") as out:
        for result in results:
            if result.violation is None:
                continue
            record = {"invariant": result.name, "arguments": result.violation.arguments,
                      "message": result.violation.message, "steps": list(result.steps)}
            out.write(json.dumps(record, ensure_ascii=True) + "\n")
