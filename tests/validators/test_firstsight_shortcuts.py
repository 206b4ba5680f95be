"""Shortcuts taken for a line's first sight answer as the longer work they stand in front of:
each is compared with that work over tables and generated input."""

from __future__ import annotations

import fnmatch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clawgate.validators.procfs import _SECRET_FILES, _matches_environ


def _fnmatch_only(component: str) -> bool:
    """Whether a last component names a process's secrets, as it was decided before: the
    names themselves, or a glob that fnmatch finds matching one."""
    return component in _SECRET_FILES or (bool(set("*?[") & set(component)) and any(
        fnmatch.fnmatchcase(name, component) for name in _SECRET_FILES))


@pytest.mark.parametrize("component", [
    "environ", "mem", "env*", "e?viron", "*", "?", "???", "*?*", "m?m", "*on", "en*r*n",
    "[e]nviron", "[!x]em", "e[n]v*", "environ?", "env?ron*", "memory*", "m*m*", "*mem*",
    "shellshock.txt?vuln=20?shadow=", "x?", "??????????", "*e*n*v*i*r*o*n*", "e*nv\\iron",
    "[", "env[", "en?v", "envi*ron", "MEM", "Env*", "",
])
def test_glob_components(component: str) -> None:
    assert _matches_environ(component) is _fnmatch_only(component)


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="environmEMx*?[]!-\\/.", max_size=12))
def test_generated_components(component: str) -> None:
    assert _matches_environ(component) is _fnmatch_only(component)
