"""Names the ignore templates projects start from (github/gitignore) declare are not source,
kept where they mean build output, a cache, installed dependencies or a report in every
project that uses them (``curation``: the reviewed rules); ``build`` derives ``names.json``
from a checkout of the templates.

    template_names()  -> the kept names, lowercased: a component of a path inside the
                         workspace named so is regenerable (``regenerable()``)
"""

from __future__ import annotations

import functools
import json
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


@functools.cache
def template_names() -> frozenset[str]:
    """The names ``names.json`` keeps, read once, on the first delete that the hand-written
    list does not settle."""
    with open(os.path.join(_HERE, "names.json"), encoding="utf-8") as handle:
        kept = json.load(handle)["regenerable"]
    if not isinstance(kept, dict) or not all(isinstance(k, str) for k in kept):
        raise ValueError("names.json: 'regenerable' is not a mapping of names")
    return frozenset(kept)
