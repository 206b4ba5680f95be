"""The schema of ``catalog.yaml``, checked with pydantic (tests, ``policy explain-program`` and
the build step only: the check path reads the compiled JSON and never imports this)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Tier = Literal["low", "medium", "high", "network"]
OptionKind = Literal["write", "read", "echoes", "run", "code", "config", "setting", "network",
                     "value", "run-argv", "wrap",
                     "flag", "runs", "deletes", "publishes", "in-place", "unconfined"]
OperandKind = Literal["read", "write", "output", "write-last", "write-after-first",
                      "write-first", "read-then-write", "wrap"]
Decision = Literal["allow", "ask", "deny"]
TIER_RULES = frozenset({"git", "docker", "openssl", "text-tool", "status-only",
                        "system-packages", "pip", "pipx", "uv", "node-packages", "cargo", "go",
                        "gem", "perl-packages", "crontab", "command", "sysctl", "cloud-reads",
                        "editor", "archive", "sets-system", "privileged", "ansible-galaxy",
                        "corepack"})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_spellings(options: dict[str, OptionKind]) -> dict[str, OptionKind]:
    for key in options:
        for spelling in key.split():
            if not spelling.startswith("-") or spelling in ("-", "--"):
                raise ValueError(f"{spelling!r} is not an option spelling")
    return options


class Subcommand(_Strict):
    """A subcommand: its tier, its own options and operands, and its own subcommands."""

    tier: Tier
    options: dict[str, OptionKind] = Field(default_factory=dict)
    operands: OperandKind | None = None
    subcommands: dict[str, Tier | Subcommand] = Field(default_factory=dict)

    _spellings = field_validator("options")(_check_spellings)


class Example(_Strict):
    """A command and what the catalog must make of it (only the fields given are checked)."""

    command: str
    writes: list[str] | None = None
    runs: list[str] | None = None
    tier: Literal["low", "medium", "high"] | None = None
    decision: Decision | None = None


class Program(_Strict):
    """What one program does with its options and operands."""

    summary: str | None = None
    aliases: list[str] = Field(default_factory=list)
    tier: Tier
    # The program prints the text of the files it reads (its file operands, or its standard
    # input), whole, line by line or re-encoded, or copies it where a person reads it (a
    # printer, the clipboard, a copy): what it is given to read is shown.
    prints: bool = False
    tier_rule: str | None = None
    loopback: bool = False
    long_prefixes: bool = False
    # the program's own options stand only before its subcommand (git, docker): after a
    # subcommand the catalog does not list, the options are that subcommand's, not these
    options_before_subcommand: bool = False
    style: Literal["getopt", "single"] = "getopt"
    options: dict[str, OptionKind] = Field(default_factory=dict)
    operands: OperandKind | None = None
    language: Literal["sed", "awk", "expression", "console"] | None = None
    subcommands: dict[str, Tier | Subcommand] = Field(default_factory=dict)
    tasks: dict[str, Tier] = Field(default_factory=dict)
    # A status query: the words with which the program only prints the system's state
    # (``auditctl -l``; the empty word "" where the program alone is one: ``getenforce``). A
    # command of these words alone changes nothing, and run with privileges it shows more and
    # still changes nothing.
    queries: list[str] | None = None
    examples: list[Example] = Field(default_factory=list)

    _spellings = field_validator("options")(_check_spellings)

    @field_validator("tier_rule")
    @classmethod
    def _known_rule(cls, value: str | None) -> str | None:
        if value is not None and value not in TIER_RULES:
            raise ValueError(f"unknown tier rule {value!r} (known: {sorted(TIER_RULES)})")
        return value


class Catalog(_Strict):
    version: Literal[1]
    programs: dict[str, Program]

    @field_validator("programs")
    @classmethod
    def _unique_names(cls, programs: dict[str, Program]) -> dict[str, Program]:
        seen = set(programs)
        for name, entry in programs.items():
            for alias in entry.aliases:
                if alias in seen:
                    raise ValueError(f"{alias!r} (an alias of {name!r}) is listed twice")
                seen.add(alias)
        return programs
