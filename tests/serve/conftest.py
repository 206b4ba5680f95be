"""The service under uvicorn on 127.0.0.1, a real SQLite database, tokens made by the real
CLI."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from servekit import Server, server_env, start, stop


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One service for a module; each test makes the tokens (agents) it needs."""
    tmp = tmp_path_factory.mktemp("serve")
    env = server_env(tmp)
    database = f"sqlite:///{tmp / 'serve.db'}"
    url, process = start(tmp, database, env)
    try:
        yield Server(url, database, env, process, {})
    finally:
        stop(process)
