"""A fresh PostgreSQL database per test, on the cluster scripts/postgres.sh runs for this
checkout (or CLAWGATE_TEST_POSTGRES); tests skip without one unless CLAWGATE_REQUIRE_POSTGRES=1."""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cluster_url() -> str | None:
    given = os.environ.get("CLAWGATE_TEST_POSTGRES")
    if given:
        return given
    recorded = ROOT / ".clawgate-postgres" / "url"
    return recorded.read_text().strip() if recorded.exists() else None


def fresh_database() -> str:
    """A new, empty database on the cluster; its URL. Skips (or fails when required)."""
    import sqlalchemy as sa

    url = cluster_url()
    required = os.environ.get("CLAWGATE_REQUIRE_POSTGRES") == "1"
    if url is None:
        if required:
            pytest.fail("CLAWGATE_REQUIRE_POSTGRES=1 but no cluster: run scripts/postgres.sh")
        pytest.skip("no PostgreSQL cluster (scripts/postgres.sh starts one)")
    name = f"cg_{secrets.token_hex(4)}"
    admin = sa.create_engine(url.rsplit("/", 1)[0] + "/postgres", isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    except sa.exc.OperationalError as exc:
        if required:
            raise
        pytest.skip(f"the PostgreSQL cluster does not answer: {exc}")
    finally:
        admin.dispose()
    return url.rsplit("/", 1)[0] + f"/{name}"


def restart_cluster() -> None:
    subprocess.run(["bash", str(ROOT / "scripts" / "postgres.sh"), "restart"], check=True,
                   capture_output=True)
