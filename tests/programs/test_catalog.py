"""The program catalog: its schema, its compiled form, and every entry's examples."""

from __future__ import annotations

import json

import pytest

from clawgate import programs
from clawgate.decision import Outcome, Risk
from clawgate.engine import Engine
from clawgate.programs.build import COMPILED, compiled_text, load_model
from clawgate.shell import parse_one
from clawgate.validators.risk import risk_of
from clawgate.validators.writes import write_targets

CATALOG = load_model()
EXAMPLES = [(name, ex) for name, entry in CATALOG.programs.items() for ex in entry.examples]
ENGINE = Engine()
_OUTCOMES = {"allow": Outcome.ALLOW, "ask": Outcome.ASK, "deny": Outcome.DENY}
_TIERS = {"low": Risk.LOW, "medium": Risk.MEDIUM, "high": Risk.HIGH}


def test_the_compiled_form_is_in_sync_with_the_yaml() -> None:
    with open(COMPILED, encoding="utf-8") as handle:
        shipped = handle.read()
    assert shipped == compiled_text(), "run: python -m clawgate.programs.build"


def test_the_catalog_knows_the_common_tools() -> None:
    assert len(programs.names()) >= 200
    assert json.loads(compiled_text())["aliases"]["gsed"] == "sed"


@pytest.mark.parametrize(("program", "example"), EXAMPLES,
                         ids=[ex.command for _, ex in EXAMPLES])
def test_every_example_decides_as_it_says(program: str, example: object) -> None:
    from clawgate.programs.model import Example

    assert isinstance(example, Example)
    cmd = parse_one(example.command)
    assert cmd.program in {program, *CATALOG.programs[program].aliases}
    if example.writes is not None:
        assert sorted({w.shown for w in write_targets(cmd)}) == sorted(example.writes)
    if example.runs is not None:
        found = [e.word.shown for e in programs.runs(cmd) if e.word is not None]
        assert found == example.runs
    if example.tier is not None:
        assert risk_of(cmd) is _TIERS[example.tier]
    if example.decision is not None:
        outcome = ENGINE.check(example.command, cwd="/tmp/workspace").outcome
        assert outcome is _OUTCOMES[example.decision], example.command


@pytest.mark.parametrize(("line", "option", "kind"), [
    ("git log --outp=/tmp/x", "--output", "write"),
    ("sort --outp=x a", "--output", "write"),
    ("tar --to-com=cat -xf a.tar", "--to-command", "run"),
    ("make --ev='x:' x", "--eval", "code"),
])
def test_long_options_are_matched_by_unique_prefix(line: str, option: str, kind: str) -> None:
    found = [(e.option, e.kind) for e in programs.effects(parse_one(line))]
    assert (option, kind) in found


def test_prefixes_only_for_programs_that_accept_them() -> None:
    # gcc does not take --outp for anything: no prefix matching for it
    assert programs.effects(parse_one("gcc --o=x a.c")) == []
    assert programs.effects(parse_one("sort --ou=x")) != []


@pytest.mark.parametrize(("line", "target"), [
    ("find . -\"fprint\" out.txt", "out.txt"),
    ("find . -\\f\\p\\r\\i\\n\\t out.txt", "out.txt"),
    ("sort -\"o\" out.txt a", "out.txt"),
    ("sort -uo out.txt a", "out.txt"),
    ("sort -oout.txt a", "out.txt"),
    ("cp -t dest a b", "dest"),
    ("sed -n '/x/w out.txt' in.txt", "out.txt"),
    ("sed -e 's/a/b/w out.txt' in.txt", "out.txt"),
    ("awk '{print > \"out.txt\"}' in.txt", "out.txt"),
    ("openssl req -new -key k.pem -out req.csr", "req.csr"),
])
def test_words_are_judged_as_the_program_receives_them(line: str, target: str) -> None:
    assert target in [w.shown for w in write_targets(parse_one(line))]


@pytest.mark.parametrize("line", ["sed 's/a/b/g' f.txt", "awk '{if ($1 > 2) print}' f",
                                  "awk '$3 > 5 {print}' f", "sort -n f", "gcc -O2 -c x.c",
                                  "find . -name '*.py' -print"])
def test_reads_write_nothing(line: str) -> None:
    assert list(write_targets(parse_one(line))) == []


def test_subcommand_tiers_come_from_the_catalog() -> None:
    assert programs.tier(parse_one("docker volume rm data")) == ("high", "docker")
    assert programs.tier(parse_one("docker volume ls")) == ("low", "docker")
    assert programs.tier(parse_one("git -C repo status")) == ("low", "git")
    assert programs.tier(parse_one("unknown-tool x")) is None


@pytest.mark.parametrize(("line", "kinds"), [
    ("git -p status", ["runs"]),  # git's own -p (--paginate), before the subcommand
    ("git -c core.pager=cat -p log", ["setting", "runs"]),
    ("git stash show -p", []),  # after a subcommand the catalog does not list: its own -p
    ("git add -p", []),
    ("git checkout -p -- src", []),
    ("docker compose -c x up", []),  # docker's -c (--context) only before the subcommand
])
def test_global_options_stand_only_before_the_subcommand(line: str, kinds: list[str]) -> None:
    assert [e.kind for e in programs.effects(parse_one(line))] == kinds


def test_dispatch_sets_cover_the_catalog() -> None:
    from clawgate.validators.escapes_config import SETTERS

    def kinds(entry: dict[str, object]) -> set[str]:
        options = entry.get("options", {})
        assert isinstance(options, dict)
        return set(options.values())

    setting = {name for name in programs.names()
               if "setting" in kinds(programs.entry(name) or {})}
    assert setting <= SETTERS, setting - SETTERS


def test_dispatch_sets_are_the_catalogs() -> None:
    from clawgate.validators.catalogrules import _HANDLED_ELSEWHERE, RUNNERS
    from clawgate.validators.netaddr import NETWORK_CLIENTS

    network = {n for n in programs.names() if (programs.entry(n) or {})["tier"] == "network"}
    assert network == NETWORK_CLIENTS, network ^ NETWORK_CLIENTS
    runners = programs.runners() - _HANDLED_ELSEWHERE
    assert runners == RUNNERS, runners ^ RUNNERS


def test_unconfined_set_is_the_catalogs() -> None:
    from clawgate.validators.catalogrules import UNCONFINED

    def unconfined(spec: dict[str, object]) -> bool:
        options = spec.get("options", {})
        subs = spec.get("subcommands", {})
        assert isinstance(options, dict) and isinstance(subs, dict)
        return "unconfined" in options.values() or any(
            isinstance(sub, dict) and unconfined(sub) for sub in subs.values())

    found = {n for n in programs.names() if unconfined(programs.entry(n) or {})}
    assert found == UNCONFINED, found ^ UNCONFINED


@pytest.mark.parametrize(("line", "outcome"), [
    ("sort$IFS-o$IFS~/.profile data.txt", Outcome.DENY),
    ("sort${IFS}-o${IFS}~/.bashrc data.txt", Outcome.DENY),
    ("find . ${IFS}-fprint${IFS}/etc/cron.d/x", Outcome.DENY),
    ("find . -\"fprint\" /etc/cron.d/x", Outcome.DENY),
    ("find . -\\f\\p\\r\\i\\n\\t /etc/cron.d/x", Outcome.DENY),
    ("git log$IFS--outp=/etc/profile", Outcome.DENY),
    ("tee${IFS}~/.bashrc", Outcome.DENY),
])
def test_options_as_bash_hands_them_over(line: str, outcome: Outcome) -> None:
    assert ENGINE.check(line, cwd="/tmp/workspace").outcome is outcome


def test_an_edited_yaml_is_never_read_stale(tmp_path: object, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    import pathlib
    import shutil

    import clawgate.programs as catalog
    from clawgate.programs import build

    assert isinstance(tmp_path, pathlib.Path)
    shutil.copy(build.SOURCE, tmp_path / "catalog.yaml")
    shutil.copy(COMPILED, tmp_path / "catalog.json")
    with open(tmp_path / "catalog.yaml", "a", encoding="utf-8") as handle:
        handle.write("  zz-new-tool: {tier: high}\n")
    monkeypatch.setattr(catalog, "_HERE", str(tmp_path))
    assert str(tmp_path / "catalog.yaml") != build.SOURCE
    assert "zz-new-tool" in catalog._compiled()["programs"]


def test_a_remembered_answer_names_the_asking_commands_words() -> None:
    """Answers are kept by the words' text; validators match the written words by identity
    (``cp .env.example .env`` writes ``.env``, it does not read it), so an answer given to an
    earlier command of the same text must point at this command's own words."""
    line = "openssl genrsa -out fresh-ca.key 2048"
    first, second = parse_one(line), parse_one(line)
    assert programs.writes(first)[0] is first.words[3]
    assert programs.writes(second)[0] is second.words[3]
    assert ENGINE.check(line, cwd="/tmp/workspace").outcome is Outcome.ALLOW
