"""The optional parts of clawgate and the one way to ask for them.

``pip install clawgate`` installs what ``policy check``, the Guard and the host and bubblewrap
executors need. The rest comes with an extra:

    docker    the Docker executor (the Docker SDK)
    mcp       the MCP proxy (``policy mcp-proxy``: the MCP SDK, stdio and streamable HTTP)
    testing   the property-based harness (hypothesis: ``policy fuzz``, the pytest plugin's options)
    serve     the decision service and console (``policy serve``: FastAPI, uvicorn, SQLAlchemy,
              psycopg, prometheus-client); its client, ``ServerApprover``, needs no extra
    all       every extra above

An import site asks ``require(extra, module, what)``: the module, or ``MissingExtra`` with one
line that names the extra (``clawgate: the Docker executor needs the 'docker' extra: pip install
'clawgate[docker]'``). A module of clawgate itself that is missing is a broken install, not a
missing extra: that ImportError goes on unchanged.
"""

from __future__ import annotations

from importlib import import_module

from clawgate.errors import MissingExtra

TYPE_CHECKING = False  # no runtime ``typing`` import on the check path
if TYPE_CHECKING:
    from types import ModuleType

EXTRAS = ("docker", "mcp", "testing", "serve")


def require(extra: str, module: str, what: str) -> ModuleType:
    """``module`` imported, or ``MissingExtra`` naming ``extra`` when a package from outside
    clawgate that it needs is not installed."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}")
    try:
        return import_module(module)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").partition(".")[0]
        if not missing or missing == "clawgate":
            raise
        raise MissingExtra(extra, what) from exc
