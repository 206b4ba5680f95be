"""``policy explain-program NAME``: what the engine knows of a program, from the catalog.

Its tier (and the tier rule behind it), whether it takes unique prefixes of long options, what
each option and operand does, its subcommands and their tiers, and the catalog's examples with
the decision the engine gives each today.
"""

from __future__ import annotations

import json

import click

from clawgate.cli.exitcodes import ExitCode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from clawgate.programs.model import Program, Subcommand

_KINDS = {"write": "writes the file it is given", "read": "reads the file it is given",
          "echoes": "reads the file it is given and prints its text back",
          "run": "runs the command it is given", "code": "runs the code it is given",
          "config": "obeys the configuration it is given",
          "setting": "takes a KEY=VALUE setting (judged by its key)",
          "network": "reaches the address it is given", "value": "takes a value",
          "run-argv": "runs the words up to ';' or '+' as a command",
          "flag": "a switch", "runs": "runs a helper configured elsewhere",
          "deletes": "deletes what it matches",
          "publishes": "sends the result to a remote (high)",
          "in-place": "rewrites the files it is given",
          "unconfined": "writes the files its input names, wherever they are (asks)"}


def _grouped(options: dict[str, str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for spellings, kind in options.items():
        found.setdefault(kind, []).extend(spellings.split())
    return found


def _sub_json(sub: str | Subcommand) -> dict[str, Any]:
    if isinstance(sub, str):
        return {"tier": sub}
    return {"tier": sub.tier, "options": _grouped(dict(sub.options)), "operands": sub.operands,
            "subcommands": {k: _sub_json(v) for k, v in sub.subcommands.items()}}


def _examples(program: Program) -> list[dict[str, Any]]:
    from clawgate.engine import Engine
    from clawgate.shell import parse_one
    from clawgate.validators.risk import risk_of

    engine = Engine()
    rows = []
    for example in program.examples:
        decision = engine.check(example.command, cwd="/tmp/workspace")
        rows.append({"command": example.command, "expected": example.model_dump(
            exclude_none=True, exclude={"command"}), "decision": decision.outcome.name.lower(),
            "tier": risk_of(parse_one(example.command)).name.lower(),
            "rules": sorted({r.rule_id for r in decision.reasons})})
    return rows


def describe(name: str) -> dict[str, Any] | None:
    """Everything the catalog says of ``name`` (a program or an alias), or None."""
    from clawgate.programs.build import load_model

    catalog = load_model()
    found = catalog.programs.get(name)
    canonical = name
    if found is None:
        canonical = next((n for n, p in catalog.programs.items() if name in p.aliases), "")
        found = catalog.programs.get(canonical)
    if found is None:
        return _learned(name)
    return {"program": canonical, "aliases": found.aliases, "summary": found.summary,
            "tier": found.tier, "tier_rule": found.tier_rule, "style": found.style,
            "long_prefixes": found.long_prefixes, "loopback": found.loopback,
            "options_before_subcommand": found.options_before_subcommand,
            "options": _grouped(dict(found.options)), "operands": found.operands,
            "language": found.language,
            "subcommands": {k: _sub_json(v) for k, v in found.subcommands.items()},
            "tasks": dict(found.tasks), "examples": _examples(found)}


def _learned(name: str) -> dict[str, Any] | None:
    """What the data says of a program without a hand-written entry, and where it says it."""
    from clawgate.programs import learned, learned_entry

    spec = learned_entry(name)
    if spec is None:
        return None
    project = {"fish": "fish-shell", "man": "Debian manual pages"}[spec["from"]]
    source = next(s for s in learned.sources() if s["project"] == project)
    where = {"project": project, "repository": source["repository"], "path": spec["path"],
             "licence": source["licence"]}
    where.update({k: v for k, v in (("commit", source.get("commit")),
                                     ("package", spec.get("package"))) if v})
    examples = [{"command": c, **_decided(c)}
                for c in spec.get("examples", [])]
    return {"program": name, "aliases": [], "summary": None, "tier": spec["tier"],
            "tier_rule": None, "style": "getopt", "long_prefixes": False, "loopback": False,
            "options_before_subcommand": False, "options": _grouped(spec["options"]),
            "operands": "command" if spec.get("operands") == "command" else None,
            "language": None, "subcommands": {}, "tasks": {}, "examples": examples,
            "source": where}


def _decided(command: str) -> dict[str, Any]:
    from clawgate.engine import Engine
    from clawgate.shell import parse_one
    from clawgate.validators.risk import risk_of

    decision = Engine().check(command, cwd="/tmp/workspace")
    return {"expected": {}, "decision": decision.outcome.name.lower(),
            "tier": risk_of(parse_one(command)).name.lower(),
            "rules": sorted({r.rule_id for r in decision.reasons})}


def _text(info: dict[str, Any]) -> list[str]:
    lines = [f"{info['program']}" + (f" (also: {', '.join(info['aliases'])})"
                                     if info["aliases"] else "")]
    if info["summary"]:
        lines.append(f"  {info['summary']}")
    source = info.get("source")
    if source:
        lines.append(f"  learned from data: {source['project']} {source['path']}"
                     + (f" at {source['commit']}" if "commit" in source else "")
                     + (f" (package {source['package']})" if "package" in source else "")
                     + f"; {source['licence']}")
        lines.append("  no hand-written entry: which options take a value, a file or a "
                     "command is all it says")
    rule = f" (tier rule: {info['tier_rule']})" if info["tier_rule"] else ""
    lines.append(f"  tier: {info['tier']}{rule}")
    lines.append(f"  options: {info['style']} style; unique prefixes of long options "
                 f"{'accepted' if info['long_prefixes'] else 'not accepted'}"
                 + ("; its own options only before the subcommand"
                    if info["options_before_subcommand"] else ""))
    for kind, spellings in info["options"].items():
        lines.append(f"    {' '.join(spellings)}: {_KINDS[kind]}")
    if info["operands"]:
        lines.append(f"  operands: {info['operands']}"
                     + (" line it runs (checked as one)" if info["operands"] == "command"
                        else ""))
    if info["language"]:
        lines.append(f"  scripts: {info['language']}")
    lines.extend(_subcommand_lines(info["subcommands"], "  "))
    if info["tasks"]:
        lines.append("  tasks: " + ", ".join(f"{k}: {v}" for k, v in info["tasks"].items()))
    if info["examples"]:
        lines.append("  examples:")
    for row in info["examples"]:
        lines.append(f"    {row['command']}  -> {row['decision'].upper()} ({row['tier']})"
                     + (f" [{', '.join(row['rules'])}]" if row["rules"] else ""))
    return lines


def _subcommand_lines(subs: dict[str, Any], indent: str) -> list[str]:
    lines = [f"{indent}subcommands:"] if subs else []
    for name, sub in subs.items():
        lines.append(f"{indent}  {name}: {sub['tier']}")
        for kind, spellings in sub.get("options", {}).items():
            lines.append(f"{indent}    {' '.join(spellings)}: {_KINDS[kind]}")
        lines.extend(_subcommand_lines(sub.get("subcommands", {}), indent + "    "))
    return lines


@click.command("explain-program")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def explain_program(name: str, as_json: bool) -> int:
    """Print what the engine knows of program NAME: options, effects, tiers, examples."""
    info = describe(name)
    if info is None:
        click.echo(f"policy: the program catalog does not know {name!r}: an unknown program "
                   "is medium risk, and a word handed to it that is a command line or code that "
                   "starts processes is judged as one (CG-PROG-004); so is a known program's "
                   "name run from a path outside the installed programs' places (./grep)",
                   err=True)
        return ExitCode.USAGE
    if as_json:
        click.echo(json.dumps(info, indent=2, sort_keys=True))
    else:
        click.echo("\n".join(_text(info)))
    return ExitCode.OK
