"""What programs do with their words: the program-semantics catalog and its queries.

``catalog.yaml`` says, per program, which options and operands read, write, run a command or
code, or reach the network, and the program's risk tier (by subcommand where it has them).
The check path reads the compiled ``catalog.json`` (no YAML, no pydantic), once, lazily, after
checking that it was made from the ``catalog.yaml`` beside it (size and CRC-32).

    entry("sort")                    -> the compiled entry, or None
    learned_entry("fzf")             -> the entry learned from data (``learned.py``), for a
                                        program without a hand-written one, or None
    effects(cmd)                     -> every Effect of a SimpleCommand, words as received
    writes(cmd) / runs(cmd)          -> the words it writes / the command texts it runs
    reads(cmd)                       -> the files its options name to read
    tier(cmd)                        -> (tier name, tier rule or None) from the catalog

``effects``, ``reads``, ``writes`` and ``runs`` read a program's learned entry where it has no
hand-written one: which of its options take a value, a file or a command comes from data.
"""

from __future__ import annotations

import json
import os
import zlib

from clawgate.programs import learned
from clawgate.programs.scan import Effect, operands, scan
from clawgate.shell.model import SimpleCommand, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Effect", "effects", "entry", "flag_spellings", "learned_command", "learned_entry",
           "learned_runners", "names", "reads", "runners", "runs", "tier", "writers", "writes"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_index: dict[str, Any] = {}  # program -> compiled entry, filled on first use
_flags: list[frozenset[str]] = []  # option spellings mostly taken as flags, filled on first use
WRITE_KINDS = frozenset({"write", "output", "read-then-write", "write-last",
                         "write-after-first", "write-first"})
RUN_KINDS = frozenset({"run", "run-argv", "wrap", "code", "config", "runs"})


def _compiled() -> dict[str, Any]:
    """The compiled catalog; compiled afresh (YAML, pydantic: slow) when ``catalog.yaml`` was
    edited after ``catalog.json`` was generated, so an edit never goes unseen."""
    source = os.path.join(_HERE, "catalog.yaml")
    with open(source, "rb") as handle:
        raw = handle.read()
    with open(os.path.join(_HERE, "catalog.json"), encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    if data.get("source") == {"size": len(raw), "crc32": zlib.crc32(raw)}:
        return data
    from clawgate.programs.build import compiled_text

    fresh: dict[str, Any] = json.loads(compiled_text(source))
    return fresh


def _load() -> dict[str, Any]:
    if not _index:
        data = _compiled()
        found: dict[str, Any] = data["programs"]
        for spec in found.values():
            spec["acts"] = _acts(spec)
            spec["echoes"] = _echoes(spec)
            spec["walk"] = bool(spec.get("subcommands") or spec.get("tasks")) or (
                "publishes" in spec.get("options", {}).values())
        for alias, name in data["aliases"].items():
            found[alias] = found[name]
        _index.update(found)
    return _index


def _acts(spec: dict[str, Any]) -> bool:
    """Whether any word can make the program do more than read (write, run, delete, name
    another machine)."""
    if spec.get("operands") in WRITE_KINDS or spec.get("operands") == "wrap" or spec.get(
            "language") in ("sed", "awk"):
        return True
    if set(spec.get("options", {}).values()) - {"flag", "value", "read", "echoes"} or (
            "tasks" in spec):
        return True
    return any(isinstance(sub, dict) and _acts(sub)
               for sub in spec.get("subcommands", {}).values())


def _echoes(spec: dict[str, Any]) -> bool:
    """Whether an option (of the program or a subcommand) reads a file it prints back."""
    if "echoes" in spec.get("options", {}).values():
        return True
    return any(isinstance(sub, dict) and _echoes(sub)
               for sub in spec.get("subcommands", {}).values())


def entry(program: str | None) -> dict[str, Any] | None:
    """The compiled catalog entry of ``program`` (a basename), or None when unknown."""
    return None if program is None else (_index or _load()).get(program)


def prints(program: str | None) -> bool:
    """``program`` prints (or copies where a person reads it) the text of the files it reads,
    by the catalog (``cat``, ``pr``, ``iconv``, ``xxd``, ``lp``)."""
    spec = entry(program)
    return spec is not None and bool(spec.get("prints"))


def learned_entry(program: str | None) -> dict[str, Any] | None:
    """The entry learned from data of ``program``, when the hand-written catalog has none."""
    if program is None or (_index or _load()).get(program) is not None:
        return None
    return learned.spec(program)


def _spec(program: str | None) -> dict[str, Any] | None:
    """The hand-written entry, else the learned one."""
    if program is None:
        return None
    return (_index or _load()).get(program) or learned.spec(program)


def learned_runners() -> frozenset[str]:
    """Programs known only from data with an option that takes a command to run."""
    return frozenset(n for n in learned.with_kind("run") - _load().keys()
                     if "run" in (learned.spec(n) or {}).get("options", {}).values())


def learned_command(cmd: SimpleCommand) -> int | None:
    """Where the command line starts that a program known only from data runs from its
    operands (fish's ``entr -r make``: 2), or None when it is not such a program."""
    spec = learned_entry(cmd.program)
    if spec is None or spec.get("operands") != "command":
        return None
    found = operands(cmd.words, spec)
    return next((i for i, w in enumerate(cmd.words) if w is found[0]), None) if found else None


def names() -> frozenset[str]:
    """Every program (and alias) the catalog knows."""
    return frozenset(_load())


def flag_spellings() -> frozenset[str]:
    """Option spellings (``-v``, ``--quiet``) that the catalog's programs mostly take as flags:
    at least two programs or subcommands take it as a flag, and twice as many as take it with
    a value. What a program the catalog does not know most likely means by it."""
    if not _flags:
        counts: dict[str, list[int]] = {}
        seen: set[int] = set()
        for spec in _load().values():
            if id(spec) not in seen:  # an alias shares its program's entry
                seen.add(id(spec))
                _count_flags(spec, counts)
        _flags.append(frozenset(
            o for o, (flag, value) in counts.items() if flag >= max(2, 2 * value)))
    return _flags[0]


def _count_flags(spec: dict[str, Any], counts: dict[str, list[int]]) -> None:
    for option, kind in spec.get("options", {}).items():
        counts.setdefault(option, [0, 0])[kind != "flag"] += 1
    for sub in spec.get("subcommands", {}).values():
        if isinstance(sub, dict):
            _count_flags(sub, counts)


def _scan(cmd: SimpleCommand, spec: dict[str, Any]) -> tuple[list[Effect], str]:
    """One walk per argv: the validators and the risk tier ask about the same command one
    after the other, and the same simple commands recur across lines (``git status``), so
    answers are kept by the words' text (the parser makes the same words of the same text),
    a bounded number of them."""
    last = _last[0]  # one read: another thread may replace it meanwhile
    if last[0] is cmd and last[1] is spec:
        return last[2]  # the same command object asked again, as it is: no key to build
    key = tuple([w.text for w in cmd.words])
    kept = _memo.get(key)
    if kept is None:
        found = scan(cmd.words, spec)
        if len(_memo) >= _MEMO_SIZE:
            _memo.clear()
        _memo[key] = (found, cmd.words)
    else:
        found = _rebind(kept[0], kept[1], cmd.words)
    _last[0] = (cmd, spec, found)  # holding cmd keeps its id from being reused meanwhile
    return found


def _rebind(found: tuple[list[Effect], str], origin: tuple[Word, ...],
            words: tuple[Word, ...]) -> tuple[list[Effect], str]:
    """A remembered answer, its effects pointing at this command's own words: callers match
    words by identity (``cp x .env`` writes, not reads, this ``.env``), and an answer kept from
    an earlier command of the same text holds that command's words."""
    effects, rest = found
    if origin is words or not any(e.word is not None for e in effects):
        return found
    where = {id(w): i for i, w in enumerate(origin)}
    return ([e if e.word is None or id(e.word) not in where
             else Effect(e.kind, e.option, words[where[id(e.word)]]) for e in effects], rest)


_MEMO_SIZE = 2048
_memo: dict[tuple[str, ...], tuple[tuple[list[Effect], str], tuple[Word, ...]]] = {}
_last: list[tuple[Any, Any, tuple[list[Effect], str]]] = [(None, None, ([], ""))]


def effects(cmd: SimpleCommand) -> list[Effect]:
    """What ``cmd``'s options and operands do, read from the catalog (empty when unknown)."""
    spec = _spec(cmd.program)
    if spec is None or len(cmd.words) < 2 or not spec["acts"]:
        return []
    return _scan(cmd, spec)[0]


def writes(cmd: SimpleCommand) -> list[Word]:
    """The words ``cmd`` writes to as files, by its options, operands and scripts."""
    return [e.word for e in effects(cmd) if e.kind == "write" and e.word is not None]


def reads(cmd: SimpleCommand) -> list[Word]:
    """The words ``cmd``'s options name as files it reads (``wc --files0-from F``), by the
    catalog; operands are not counted."""
    spec = _spec(cmd.program)
    if spec is None or len(cmd.words) < 2 or "read" not in spec.get("options", {}).values():
        return []
    return [e.word for e in _scan(cmd, spec)[0] if e.kind == "read" and e.word is not None]


def echoed(cmd: SimpleCommand) -> list[Word]:
    """The words ``cmd``'s options name as files whose text it prints back, in its output or
    its errors: a list of names, URLs or dates read line by line (``file -f F``, ``date -f
    F``), a configuration it lists (``git config -f F --list``)."""
    spec = _spec(cmd.program)
    if spec is None or len(cmd.words) < 2 or not spec.get("echoes"):
        return []
    return [e.word for e in _scan(cmd, spec)[0] if e.kind == "echoes" and e.word is not None]


def runs(cmd: SimpleCommand) -> list[Effect]:
    """Effects by which ``cmd`` runs a command or code it is given, or one configured
    elsewhere."""
    return [e for e in effects(cmd) if e.kind in RUN_KINDS]


def tier(cmd: SimpleCommand, program: str | None = None) -> tuple[str, str | None] | None:
    """(tier, tier rule) of ``cmd`` by the catalog, subcommands followed; None when the
    program (``program``, else the command's) is unknown."""
    spec = entry(program or cmd.program)
    if spec is None:
        return None
    if len(cmd.words) < 2 or not spec["walk"]:
        found = spec["tier"]
    elif program is not None and program != cmd.program:
        found = scan(cmd.words, spec)[1]
    else:
        found = _scan(cmd, spec)[1]
    return found, spec.get("rule")


_INSTALLED = ("/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/local/bin/",
              "/usr/local/sbin/")


def status_query(cmd: SimpleCommand) -> bool:
    """``cmd`` is a status query of the catalog (``auditctl -s``, ``aa-status``): the
    installed program, by name or from a system directory, given only words with which it
    prints the system's state and changes nothing (no words at all only where the catalog
    lists the empty word: ``getenforce`` is a query, ``nginx`` starts a server). Where its
    output goes is the redirections' to say, judged as writes."""
    spec = entry(cmd.program)
    name = cmd.words[0].value if cmd.words else None
    if spec is None or "queries" not in spec or name is None:
        return False
    if "/" in name and not name.startswith(_INSTALLED):
        return False  # a file of that name elsewhere is not the program
    allowed = set(spec["queries"])
    words = cmd.words[1:]
    return all(w.value is not None and _queried(w.value, allowed) for w in words) and (
        bool(words) or "" in allowed)


def _queried(word: str, allowed: set[str]) -> bool:
    """``word`` is one of the query words, or a cluster of short query options read letter
    by letter (``iptables -nvL``)."""
    return word in allowed or (len(word) > 2 and word[0] == "-" and word[1] != "-" and all(
        f"-{letter}" in allowed for letter in word[1:]))


def runners() -> frozenset[str]:
    """Programs with an option that runs a command, code or a configuration."""
    return frozenset(name for name, spec in _load().items() if _may_run(spec))


def _may_run(spec: dict[str, Any]) -> bool:
    if RUN_KINDS & set(spec.get("options", {}).values()) or spec.get("operands") == "wrap":
        return True
    return any(isinstance(sub, dict) and _may_run(sub)
               for sub in spec.get("subcommands", {}).values())


def writers() -> frozenset[str]:
    """Programs that may write files by their options, operands or scripts (those known
    only from data by an option that takes a file it writes)."""
    hand = _load()
    return frozenset(name for name, spec in hand.items() if _may_write(spec)) | frozenset(
        n for n in learned.with_kind("write") - hand.keys()
        if "write" in (learned.spec(n) or {}).get("options", {}).values())


def _may_write(spec: dict[str, Any]) -> bool:
    if spec.get("operands") in WRITE_KINDS or spec.get("language"):
        return True
    if {"write", "in-place"} & set(spec.get("options", {}).values()):
        return True  # an output option, or a switch that writes every operand (shfmt -w)
    return any(isinstance(sub, dict) and _may_write(sub)
               for sub in spec.get("subcommands", {}).values())
