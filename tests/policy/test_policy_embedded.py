"""The compiled default (default.json) is in sync with default.yaml and used when it is."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from clawgate.policy import embedded
from clawgate.policy.embedded import COMPILED, DEFAULT_LABEL, compiled_form, render


def test_compiled_default_is_in_sync():
    folder = embedded.policies_dir()
    with open(os.path.join(folder, COMPILED), encoding="utf-8") as handle:
        on_disk = handle.read()
    expected = render(compiled_form(os.path.join(folder, DEFAULT_LABEL)))
    assert on_disk == expected, "run: python -m clawgate.policy.embedded"


def test_stale_compiled_form_falls_back_to_the_yaml(tmp_path: Path, monkeypatch):
    folder = embedded.policies_dir()
    shutil.copy(os.path.join(folder, COMPILED), tmp_path / COMPILED)
    text = Path(folder, DEFAULT_LABEL).read_text().replace("timeout_s: 30", "timeout_s: 31")
    (tmp_path / DEFAULT_LABEL).write_text(text)
    monkeypatch.setattr(embedded, "policies_dir", lambda: str(tmp_path))
    layer = embedded.embedded_layer()
    assert layer.data["executor"]["timeout_s"] == 31


def test_fast_path_loads_without_yaml_or_pydantic():
    import subprocess
    import sys

    code = ("import sys; from clawgate.engine import Engine; e = Engine.from_files(); "
            "e.check('git status'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('yaml', 'pydantic')))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.strip() == "[]"
