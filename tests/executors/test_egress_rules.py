"""The egress rules: which host and port a sandboxed command may reach, by the policy's
``executor.network`` lists (a table), and how the keys load and layer."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.egressrules import ALLOWED_KEY, DENIED_KEY, LOOPBACK_KEY, EgressRules
from clawgate.errors import PolicyError
from clawgate.executors.settings import egress_from_settings, network_allowed
from clawgate.policy.loader import load_policy

DEFAULT = EgressRules()
OPEN = EgressRules(allowed_domains=("*",), denied_domains=("evil.test",),
                   allow_loopback_ports=(8080,))


@pytest.mark.parametrize(("rules", "host", "port", "allowed", "key"), [
    (DEFAULT, "pypi.org", 443, True, ALLOWED_KEY),
    (DEFAULT, "files.pythonhosted.org", 443, True, ALLOWED_KEY),
    (DEFAULT, "PyPI.org.", 443, True, ALLOWED_KEY),  # case and the root dot
    (DEFAULT, "eu.pypi.org", 443, True, ALLOWED_KEY),  # a subdomain of a listed name
    (DEFAULT, "registry.npmjs.org", 443, True, ALLOWED_KEY),
    (DEFAULT, "crates.io", 443, True, ALLOWED_KEY),
    (DEFAULT, "proxy.golang.org", 443, True, ALLOWED_KEY),
    (DEFAULT, "github.com", 443, True, ALLOWED_KEY),
    (DEFAULT, "objects.githubusercontent.com", 443, True, ALLOWED_KEY),
    (DEFAULT, "evilpypi.org", 443, False, ALLOWED_KEY),  # not at a label boundary
    (DEFAULT, "pypi.org.evil.test", 443, False, ALLOWED_KEY),
    (DEFAULT, "example.com", 443, False, ALLOWED_KEY),
    (DEFAULT, "151.101.0.223", 443, False, ALLOWED_KEY),  # an address is never a name
    (DEFAULT, "10.0.0.1", 80, False, ALLOWED_KEY),
    (DEFAULT, "169.254.169.254", 80, False, ALLOWED_KEY),
    (DEFAULT, "localhost", 8080, False, LOOPBACK_KEY),
    (DEFAULT, "127.0.0.1", 8080, False, LOOPBACK_KEY),
    (DEFAULT, "::1", 8080, False, LOOPBACK_KEY),
    (DEFAULT, "[::ffff:127.0.0.1]", 8080, False, LOOPBACK_KEY),
    (DEFAULT, "pypi.org", 0, False, ALLOWED_KEY),
    (DEFAULT, "pypi org", 443, False, ALLOWED_KEY),
    (DEFAULT, "", 443, False, ALLOWED_KEY),
    (OPEN, "example.com", 443, True, ALLOWED_KEY),  # * covers every name ...
    (OPEN, "10.1.2.3", 80, False, ALLOWED_KEY),  # ... never an address
    (OPEN, "0.0.0.0", 8081, False, ALLOWED_KEY),
    (OPEN, "evil.test", 443, False, DENIED_KEY),  # denied wins
    (OPEN, "a.evil.test", 443, False, DENIED_KEY),
    (OPEN, "localhost", 8080, True, LOOPBACK_KEY),
    (OPEN, "127.0.0.1", 8080, True, LOOPBACK_KEY),
    (OPEN, "127.0.0.1", 8081, False, LOOPBACK_KEY),
    (OPEN, "app.localhost", 8081, False, LOOPBACK_KEY),
    (EgressRules(allowed_domains=("10.0.0.5",)), "10.0.0.5", 3141, True, ALLOWED_KEY),
    (EgressRules(allowed_domains=("10.0.0.5",)), "10.0.0.6", 3141, False, ALLOWED_KEY),
    (EgressRules(allowed_domains=()), "pypi.org", 443, False, ALLOWED_KEY),
    (EgressRules(allowed_domains=("bücher.example",)), "xn--bcher-kva.example", 443, True,
     ALLOWED_KEY),
])
def test_decide(rules: EgressRules, host: str, port: int, allowed: bool, key: str) -> None:
    verdict = rules.decide(host, port)
    assert (verdict.allowed, verdict.key) == (allowed, key), verdict.why


@pytest.mark.parametrize(("address", "port", "refused"), [
    ("151.101.0.223", 443, False),
    ("10.0.0.7", 443, False),  # a listed name may live on a private network
    ("127.0.0.1", 443, True),  # a name that resolves to loopback: only on a listed port
    ("127.0.0.1", 8080, False),
    ("::ffff:127.0.0.1", 443, True),
    ("169.254.169.254", 80, True),  # cloud metadata, whatever the name
    ("fe80::1%eth0", 80, True),
    ("0.0.0.0", 80, True),
    ("224.0.0.1", 80, True),
])
def test_resolved_address(address: str, port: int, refused: bool) -> None:
    assert (OPEN.address_allowed(address, port) is not None) is refused


@pytest.mark.parametrize("entry", ["https://pypi.org", "pypi.org:443", "pypi.org/simple",
                                   "*.pypi.org", "bad host", ""])
def test_bad_entries_stop_loading(tmp_path: Path, entry: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(f"version: 1\nexecutor:\n  network:\n    allowed_domains: [{entry!r}]\n",
                    encoding="utf-8")
    with pytest.raises(PolicyError, match="allowed_domains"):
        load_policy(path)


@pytest.mark.parametrize("text", ["allow_loopback_ports: [0]", "allow_loopback_ports: [70000]",
                                  "allowed: [pypi.org]"])
def test_bad_keys_stop_loading(tmp_path: Path, text: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(f"version: 1\nexecutor:\n  network: {{{text}}}\n", encoding="utf-8")
    with pytest.raises(PolicyError, match="network"):
        load_policy(path)


def _rules(tmp_path: Path, *layers: str) -> EgressRules:
    paths = []
    for index, text in enumerate(layers):
        path = tmp_path / f"l{index}.yaml"
        path.write_text(f"version: 1\n{text}\n", encoding="utf-8")
        paths.append(path)
    return egress_from_settings(load_policy(*paths).executor)


def test_the_default_is_the_registries(tmp_path: Path) -> None:
    assert _rules(tmp_path) == EgressRules()


def test_layers_replace_allowed_and_add_denied(tmp_path: Path) -> None:
    rules = _rules(tmp_path,
                   "executor: {network: {allowed_domains: [pypi.org, example.org], "
                   "denied_domains: [a.example.org]}}",
                   "executor: {network: {allowed_domains: [example.org, b.test], "
                   "denied_domains: [c.example.org]}}")
    assert rules.allowed_domains == ("example.org", "b.test")
    assert rules.denied_domains == ("a.example.org", "c.example.org")


def test_a_locked_layer_is_not_widened(tmp_path: Path) -> None:
    rules = _rules(tmp_path,
                   "locked: true\nexecutor: {network: {allowed_domains: [pypi.org], "
                   "allow_loopback_ports: [8080]}}",
                   "executor: {network: {allowed_domains: [pypi.org, evil.test], "
                   "allow_loopback_ports: [8080, 22]}}")
    assert rules.allowed_domains == ("pypi.org",)
    assert rules.allow_loopback_ports == (8080,)
    narrowed = _rules(tmp_path, "locked: true\nexecutor: {network: {allowed_domains: "
                      "[pypi.org, github.com]}}",
                      "executor: {network: {allowed_domains: [github.com]}}")
    assert narrowed.allowed_domains == ("github.com",)


@pytest.mark.parametrize(("section", "shared"), [
    ({"network": True}, True),  # the spelling from before the egress proxy
    ({"share_network": True}, True),  # policy run --network
    ({"docker": {"network": "bridge"}}, True),
    ({"network": {"allowed_domains": ["pypi.org"]}}, False),
    ({}, False),
])
def test_what_shares_the_host_network(section: dict[str, object], shared: bool) -> None:
    assert network_allowed(section) is shared
    listed = ("pypi.org",) if isinstance(section.get("network"), dict) else DEFAULT.allowed_domains
    assert egress_from_settings(section).allowed_domains == listed
