"""Shared test configuration: pytester drives the clawgate pytest plugin in its tests."""

pytest_plugins = ["pytester"]
