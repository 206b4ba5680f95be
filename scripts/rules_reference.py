"""Write docs/rules.md, the rule reference, from the registered validators: each rule's ID,
its family, the module it lives in and its docstring (what it catches and why, with examples).
``python scripts/rules_reference.py`` rewrites the page; ``--check`` exits 1 when the page is
not what the validators say (the tests run it)."""

from __future__ import annotations

import inspect
import sys
from collections import defaultdict
from pathlib import Path

from clawgate.validators import load_all

PAGE = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
HEAD = """# Rule reference

Every rule a decision can name, generated from the validators themselves
(`python scripts/rules_reference.py`). A reason's `rule_id` is one of these, or
`policy:<file>#<rule id>` for a rule of a manifest. Each validator is one small class in the
module named beside it; its text says what it catches and why.
"""


def render() -> str:
    families: dict[str, list[tuple[str, type]]] = defaultdict(list)
    for cls in load_all().classes():
        ident = str(getattr(cls, "id"))
        families[ident.rsplit("-", 1)[0]].append((ident, cls))
    parts = [HEAD]
    for family in sorted(families):
        parts.append(f"\n## {family}\n")
        for ident, cls in sorted(families[family], key=lambda pair: pair[0]):
            module = cls.__module__.removeprefix("clawgate.")
            parts.append(f"\n### {ident}\n\n`{module}.{cls.__name__}`\n\n"
                         f"{inspect.cleandoc(cls.__doc__ or '')}\n")
    return "".join(parts)


def main(argv: list[str]) -> int:
    text = render()
    if argv[1:] == ["--check"]:
        if PAGE.read_text(encoding="utf-8") != text:
            sys.stderr.write(f"{PAGE}: out of date; run python scripts/rules_reference.py\n")
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
