"""The embedded default policy and its compiled form.

``policies/default.yaml`` ships inside the wheel as ``clawgate/policies``; in a source checkout
it is the repository's ``policies/``. Next to it, ``default.json`` holds the validated layer
(explicit values, rule examples already checked) with the size and CRC-32 of the YAML it came
from; when they still match, loading the default reads JSON only (no YAML, no pydantic). When
they do not (someone edited the YAML), the YAML is loaded the slow, fully checked way.

Regenerate after editing default.yaml: ``python -m clawgate.policy.embedded``; a test keeps the
two in sync.
"""

from __future__ import annotations

import json
import os
import sys
import zlib

from clawgate.errors import PolicyError
from clawgate.policy.layers import Layer

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import Any


DEFAULT_LABEL = "default.yaml"
COMPILED = "default.json"


def policies_dir() -> str:
    """The directory holding the shipped manifests (wheel first, then the source checkout)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for candidate in (os.path.join(package, "policies"),
                      os.path.join(os.path.dirname(os.path.dirname(package)), "policies")):
        if os.path.isfile(os.path.join(candidate, DEFAULT_LABEL)):
            return candidate
    from importlib.resources import files

    shipped = files("clawgate") / "policies"
    if shipped.joinpath(DEFAULT_LABEL).is_file():
        return str(shipped)
    raise PolicyError(DEFAULT_LABEL, None, "the embedded default policy is missing from the "
                      "installation")


def _fingerprint(raw: bytes) -> dict[str, int]:
    return {"size": len(raw), "crc32": zlib.crc32(raw)}


def embedded_layer() -> Layer:
    """The default layer: from the compiled JSON when in sync, else from the YAML."""
    folder = policies_dir()
    source = os.path.join(folder, DEFAULT_LABEL)
    with open(source, "rb") as handle:
        raw = handle.read()
    try:
        with open(os.path.join(folder, COMPILED), encoding="utf-8") as handle:
            compiled = json.load(handle)
    except (OSError, ValueError):
        compiled = None
    if isinstance(compiled, dict) and compiled.get("source") == _fingerprint(raw):
        data = compiled["layer"]
        return Layer(DEFAULT_LABEL, source, data, bool(data.get("locked", False)))
    return _from_yaml(source)


def _from_yaml(source: str) -> Layer:
    from clawgate.policy.loader import load_layer

    return load_layer(source, DEFAULT_LABEL)


def compiled_form(source: str) -> dict[str, Any]:
    """What ``default.json`` must contain for the YAML at ``source``."""
    with open(source, "rb") as handle:
        raw = handle.read()
    layer = _from_yaml(source)
    return {"source": _fingerprint(raw), "layer": layer.data}


def render(form: dict[str, Any]) -> str:
    return json.dumps(form, indent=1, sort_keys=True) + "\n"


def main() -> int:
    """Write ``default.json`` next to ``default.yaml``."""
    folder = policies_dir()
    target = os.path.join(folder, COMPILED)
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(render(compiled_form(os.path.join(folder, DEFAULT_LABEL))))
    sys.stderr.write(f"wrote {target}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
