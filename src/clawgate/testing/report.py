"""How a fuzz result reads: one line per invariant, and for a failure the counter-example, the
rewrites that made it and the commands that reproduce it. Shared by ``policy fuzz`` and the
pytest plugin."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clawgate.testing.fuzz import FuzzConfig, Result

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\E"}


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
        elif ch.isprintable():
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


def reproduce(result: Result, config: FuzzConfig, policies: Sequence[str]) -> list[str]:
    """Commands that show a failure again: one ``policy check`` per line involved, and the
    ``policy fuzz`` run narrowed to the invariant."""
    flags = "".join(f" --policy {shlex.quote(p)}" for p in policies)
    out = [f"policy check{flags} {shell_quote(line)}"
           for line in (result.violation.lines() if result.violation else ())]
    seed = f" --seed {config.seed}" if config.seed is not None else ""
    out.append(f"policy fuzz{flags} --invariant {result.name} --examples {config.examples}"
               f"{seed} --deadline-ms {config.deadline_ms:g} "
               f"--deadline-ratio {config.deadline_ratio:g}")
    return out


def describe(result: Result, config: FuzzConfig, policies: Sequence[str]) -> list[str]:
    """The lines that report ``result``."""
    if result.status == "skipped":
        return [f"{result.name:<9} skipped  {result.note}"]
    if result.status == "ok" or result.violation is None:
        note = f", {result.note}" if result.note else ""
        return [f"{result.name:<9} ok       {result.examples} examples, {result.applied} with "
                f"something to keep, {result.seconds:.1f} s{note}"]
    violation = result.violation
    count = f" ({result.failures} of {result.examples} failed)" if config.keep_going else ""
    out = [f"{result.name:<9} FAIL     at example {result.failed_at}{count}, "
           f"{result.seconds:.1f} s: {violation.message}"]
    for key, value in violation.arguments.items():
        shown = shell_quote(value) if isinstance(value, str) else repr(value)
        out.append(f"    {key + ':':<13} {shown}")
    if result.steps:
        out.append(f"    {'rewrites:':<13} {', '.join(result.steps)}")
    if result.note:
        out.append(f"    {'note:':<13} {result.note}")
    for index, command in enumerate(reproduce(result, config, policies)):
        out.append(f"    {'reproduce:' if index == 0 else '':<13} {command}")
    return out
