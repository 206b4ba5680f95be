"""The pytest plugin: ``pytest --clawgate-policy my.yaml`` checks a policy the way clawgate checks
its own -- every invariant of ``clawgate.testing.invariants`` under hypothesis, and every
``examples:`` entry of the policy's rules as a test item of its own.

    --clawgate-policy FILE      a manifest layered over the embedded default (repeatable)
    --clawgate-engine MOD:FN    an engine built in code instead (FN() returns an Engine)
    --clawgate-profile ci|deep  ci: bounded examples, derandomised; deep: many, random seed
    --clawgate-examples N       examples per invariant, overriding the profile

Registered under the ``pytest11`` entry point, so it loads in every pytest run where clawgate
is installed: this module imports nothing of clawgate (or hypothesis) until a hook needs it,
and does nothing unless one of the options above is given. Those options need hypothesis (the
``testing`` extra); without it they stop the run with one line naming the extra, and pytest
runs that do not use them are untouched. The fixture ``clawgate_engine``
gives a test the engine these options describe (the default policy when none is given).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from importlib import import_module
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from clawgate.engine import Engine
    from clawgate.testing.examples import RuleExample
    from clawgate.testing.fuzz import FuzzConfig

PROFILES = {"ci": 300, "deep": 5000}
_ENGINE = pytest.StashKey["Engine"]()
_CONFIG = pytest.StashKey["FuzzConfig"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("clawgate", "clawgate policy invariants")
    group.addoption("--clawgate-policy", action="append", default=[], metavar="FILE",
                    help="check this manifest (layered over the default; repeatable)")
    group.addoption("--clawgate-engine", default=None, metavar="MODULE:FACTORY",
                    help="check the engine FACTORY() returns (e.g. clawgate.engine:Engine)")
    group.addoption("--clawgate-profile", choices=sorted(PROFILES), default="ci",
                    help="ci: bounded examples, derandomised; deep: many examples, random seed")
    group.addoption("--clawgate-examples", type=int, default=None, metavar="N",
                    help="examples per invariant (overrides the profile)")


def pytest_configure(config: pytest.Config) -> None:
    """With the options given and hypothesis missing, one usage line naming the extra; without
    the options the plugin asks for nothing (a user without the extra runs pytest as ever)."""
    if not _active(config):
        return
    from clawgate.errors import MissingExtra
    from clawgate.extras import require

    try:
        require("testing", "clawgate.testing.fuzz", "pytest --clawgate-policy")
    except MissingExtra as exc:
        raise pytest.UsageError(str(exc)) from None


def _active(config: pytest.Config) -> bool:
    return bool(config.getoption("clawgate_policy") or config.getoption("clawgate_engine"))


def _engine(config: pytest.Config) -> Engine:
    """The engine the options describe, built once per session."""
    if _ENGINE not in config.stash:
        factory = config.getoption("clawgate_engine")
        if factory:
            module, _, attr = factory.partition(":")
            config.stash[_ENGINE] = getattr(import_module(module), attr)()
        else:
            from clawgate.cli.common import load_engine

            config.stash[_ENGINE] = load_engine(config.getoption("clawgate_policy"))
    return config.stash[_ENGINE]


def _fuzz_config(config: pytest.Config) -> FuzzConfig:
    if _CONFIG not in config.stash:
        from clawgate.testing.examples import read_all
        from clawgate.testing.fuzz import FuzzConfig

        profile = config.getoption("clawgate_profile")
        examples = config.getoption("clawgate_examples") or PROFILES[profile]
        seed = None if profile == "ci" else random.randrange(2**32)
        seeds = tuple(dict.fromkeys(e.command for e in read_all(
            config.getoption("clawgate_policy"))))
        policies = None if config.getoption("clawgate_engine") else tuple(
            config.getoption("clawgate_policy"))
        config.stash[_CONFIG] = FuzzConfig(examples=examples, seed=seed, seeds=seeds,
                                           policies=policies)
    return config.stash[_CONFIG]


@pytest.hookimpl(tryfirst=True)  # before -k and -m deselect items
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    if not _active(config):
        return
    added: list[pytest.Item | pytest.Collector] = list(_items(session, config))
    items.extend(i for i in added if isinstance(i, pytest.Item))
    # Items made here come from no collector: report them, so that the counts read right.
    config.hook.pytest_collectreport(report=pytest.CollectReport("clawgate", "passed", None,
                                                                 added))


def _items(session: pytest.Session, config: pytest.Config) -> Iterator[pytest.Item]:
    from clawgate.testing.examples import read_all
    from clawgate.testing.fuzz import INVARIANTS

    for name in INVARIANTS:
        yield InvariantItem.from_parent(session, name=f"clawgate::invariant::{name}",
                                        invariant=name)
    counts: dict[tuple[str, str, str], int] = {}
    for example in read_all(config.getoption("clawgate_policy")):
        key = (example.path, example.rule_id, example.kind)
        index = counts[key] = counts.get(key, -1) + 1
        yield ExampleItem.from_parent(
            session, name=f"clawgate::{example.path}::{example.rule_id}::{example.kind}[{index}]",
            example=example)


class InvariantFailed(AssertionError):
    """An invariant that does not hold; the message is the full report."""


class InvariantItem(pytest.Item):
    """One invariant, run under hypothesis against the session's engine."""

    def __init__(self, *, invariant: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.invariant = invariant

    def runtest(self) -> None:
        from clawgate.testing.fuzz import run_one
        from clawgate.testing.report import describe

        engine = _engine(self.config)
        fuzz_config = _fuzz_config(self.config)
        result = run_one(engine, self.invariant, fuzz_config)
        if result.status == "skipped":
            pytest.skip(result.note)
        if result.status == "FAIL":
            raise InvariantFailed("\n".join(describe(
                result, fuzz_config, self.config.getoption("clawgate_policy"))))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, InvariantFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return "clawgate", None, f"invariant {self.invariant}"


class ExampleItem(pytest.Item):
    """One ``match`` or ``not_match`` example of one rule of the user's policy."""

    def __init__(self, *, example: RuleExample, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.example = example

    def runtest(self) -> None:
        from clawgate.testing.examples import check_example

        check_example(_engine(self.config), self.example)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, AssertionError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return self.example.path, None, f"{self.example.rule_id} {self.example.kind}"


@pytest.fixture
def clawgate_engine(request: pytest.FixtureRequest) -> Engine:
    """The engine of ``--clawgate-policy``/``--clawgate-engine``; the default policy without."""
    return _engine(request.config)
