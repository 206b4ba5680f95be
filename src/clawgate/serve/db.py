"""The service's tables, on SQLite (the embedded default) or PostgreSQL, and their migrations.

Tables are SQLAlchemy Core (no ORM): tokens (hashed), approval requests, allow-always grants,
audit records and rate-limit counters. Migrations are versioned: ``schema_version`` holds the
number of the last one applied, each migration is a list of statements, and ``migrate`` applies
the missing ones at start, in one transaction, under a lock (an advisory lock on PostgreSQL;
SQLite serves one process), so replicas starting together apply each one once.

A SQLite file deleted or replaced under a running service would take every later write with it
(its connections write on into the unlinked file): each commit checks that the file is still
the one the service opened and fails with ``DatabaseLost`` if not, and a connection never
creates the file again. Failures are said on the ``clawgate.serve`` logger.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

LOG = logging.getLogger("clawgate.serve")

metadata = sa.MetaData()

tokens = sa.Table(
    "tokens", metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("digest", sa.String(64), nullable=False, unique=True),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("agent", sa.String(200), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("revoked", sa.Boolean, nullable=False, default=False),
    sa.Column("workspace", sa.Text),  # an agent token's workspace (None: the service's)
)

approvals = sa.Table(
    "approvals", metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("expires", sa.Float, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # pending allowed denied expired
    sa.Column("scope", sa.String(16)),  # once always
    sa.Column("agent", sa.String(200), nullable=False),
    sa.Column("session", sa.String(200), nullable=False),
    sa.Column("workspace", sa.Text, nullable=False),
    sa.Column("tool", sa.String(200), nullable=False),
    sa.Column("summary", sa.Text, nullable=False),
    sa.Column("risk", sa.String(16), nullable=False),
    sa.Column("reasons", sa.Text, nullable=False),  # JSON
    sa.Column("digest", sa.String(64), nullable=False),
    sa.Column("answered_by", sa.String(200)),
    sa.Column("note", sa.Text),
    sa.Column("answered", sa.Float),
    sa.Column("cwd", sa.Text),  # where the call runs (absolute); None in older rows
)

grants = sa.Table(
    "grants", metadata,
    sa.Column("digest", sa.String(64), primary_key=True),
    sa.Column("workspace", sa.Text, nullable=False),
    sa.Column("summary", sa.Text, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("created_by", sa.String(200), nullable=False),
    sa.Column("mac", sa.String(64), nullable=False),
)

audit = sa.Table(
    "audit", metadata,
    sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True,
              autoincrement=False),
    sa.Column("time", sa.Float, nullable=False),
    sa.Column("agent", sa.String(200), nullable=False),
    sa.Column("session", sa.String(200), nullable=False),
    sa.Column("tool", sa.String(200), nullable=False),
    sa.Column("outcome", sa.String(16), nullable=False),
    sa.Column("rule", sa.String(200), nullable=False),
    sa.Column("body", sa.Text, nullable=False),  # JSON: args, reasons, result, approval
    sa.Column("prev", sa.String(64), nullable=False),
    sa.Column("mac", sa.String(64), nullable=False),
)

# Audit records handed in by the replicas, durable, waiting to be linked into the chain by the
# replica that leads it (``clawgate.serve.intake``); ``batch`` names the write they came in.
audit_intake = sa.Table(
    "audit_intake", metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True,
              autoincrement=True),
    sa.Column("batch", sa.String(32), nullable=False),
    sa.Column("time", sa.Float, nullable=False),
    sa.Column("agent", sa.String(200), nullable=False),
    sa.Column("session", sa.String(200), nullable=False),
    sa.Column("tool", sa.String(200), nullable=False),
    sa.Column("outcome", sa.String(16), nullable=False),
    sa.Column("rule", sa.String(200), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    # The record's canonical JSON without seq and prev, in pieces (``chain.canonical_parts``)
    sa.Column("part_a", sa.Text, nullable=False),
    sa.Column("part_r", sa.Text, nullable=False),
    sa.Column("part_s", sa.Text, nullable=False),
)

# The intake's writes already linked (kept for a while): a write whose answer was lost is
# looked up here once its records have left the intake.
audit_linked = sa.Table(
    "audit_linked", metadata,
    sa.Column("batch", sa.String(32), primary_key=True),
    sa.Column("time", sa.Float, nullable=False),
)

rates = sa.Table(
    "rates", metadata,
    sa.Column("agent", sa.String(200), primary_key=True),
    sa.Column("window", sa.BigInteger, primary_key=True),
    sa.Column("count", sa.Integer, nullable=False),
)

schema_version = sa.Table(
    "schema_version", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
)

sessions = sa.Table(
    "sessions", metadata,
    sa.Column("id", sa.String(64), primary_key=True),  # sha256 of the cookie's session id
    sa.Column("token_id", sa.String(16), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("expires", sa.Float, nullable=False),
)

Migration = Callable[[Connection], None]


def _initial(conn: Connection) -> None:
    for table in (tokens, approvals, grants, audit, rates):
        table.create(conn, checkfirst=True)


# Made once: an Index joins its table's metadata, and one made at each migration would be
# created twice by the next database's ``_initial`` in the same process.
INDEXES = (sa.Index("approvals_status", approvals.c.status, approvals.c.created),
           sa.Index("audit_agent", audit.c.agent, audit.c.seq))


def _indexes(conn: Connection) -> None:
    for index in INDEXES:
        index.create(conn, checkfirst=True)


def _token_workspace(conn: Connection) -> None:
    if "workspace" not in {c["name"] for c in sa.inspect(conn).get_columns("tokens")}:
        conn.execute(sa.text("ALTER TABLE tokens ADD COLUMN workspace TEXT"))


def _console_sessions(conn: Connection) -> None:
    sessions.create(conn, checkfirst=True)


def _approval_cwd(conn: Connection) -> None:
    if "cwd" not in {c["name"] for c in sa.inspect(conn).get_columns("approvals")}:
        conn.execute(sa.text("ALTER TABLE approvals ADD COLUMN cwd TEXT"))


def _audit_intake(conn: Connection) -> None:
    audit_intake.create(conn, checkfirst=True)
    audit_linked.create(conn, checkfirst=True)


MIGRATIONS: tuple[Migration, ...] = (_initial, _indexes, _token_workspace, _console_sessions,
                                     _approval_cwd, _audit_intake)


class DatabaseLost(SQLAlchemyError):
    """The SQLite file the service opened is gone or was replaced: nothing can be kept."""


class _SqliteFile:
    """The identity (device, inode) of the file a SQLite engine opened, checked at each
    commit."""

    def __init__(self, path: str) -> None:
        self.path = path
        if not os.path.exists(path):
            sqlite3.connect(path).close()
            LOG.warning("policy serve: created a new, empty database at %s", path)
        self.identity = self._identity()
        self.lost = False

    def _identity(self) -> tuple[int, int] | None:
        try:
            found = os.stat(self.path)
        except OSError:
            return None
        return found.st_dev, found.st_ino

    def check(self) -> None:
        if self._identity() == self.identity:
            return
        if not self.lost:
            self.lost = True
            LOG.error("policy serve: the database %s was deleted or replaced while the service "
                      "ran: every request now fails closed (503); restore the file and "
                      "restart", self.path)
        raise DatabaseLost(f"the database file {self.path} is gone or was replaced")

    def open(self) -> sqlite3.Connection:
        """A connection that never creates the file (``mode=rw``)."""
        return sqlite3.connect(f"file:{urllib.parse.quote(self.path)}?mode=rw", uri=True,
                               timeout=30, check_same_thread=False)


def _file_of(url: str) -> str | None:
    database = sa.engine.make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return os.path.abspath(database)


def alive(engine: Engine) -> None:
    """Raise unless the database answers and (SQLite) is still the file first opened."""
    with engine.begin() as conn:  # the commit runs the file check
        conn.execute(sa.text("SELECT 1"))


class Alarm:
    """Says on the log that the database failed a request: at once, then at most every
    ``every_s`` per kind of error (a database that is down fails every request)."""

    def __init__(self, every_s: float = 10.0) -> None:
        self.every_s = every_s
        self._last: dict[str, float] = {}

    def say(self, exc: SQLAlchemyError) -> None:
        kind = type(exc).__name__
        now = time.monotonic()
        last = self._last.get(kind)
        if last is not None and now - last < self.every_s:
            return
        self._last[kind] = now
        first = str(exc).splitlines()[0][:300] if str(exc) else ""
        LOG.error("policy serve: the database failed (%s: %s); answering 503, nothing decided",
                  kind, first)


def connect(url: str) -> Engine:
    """An engine for ``url``. SQLite gets WAL and a busy timeout, so readers never wait."""
    if url.startswith("sqlite"):
        path = _file_of(url)
        if path is None:
            engine = sa.create_engine(url, connect_args={"timeout": 30,
                                                         "check_same_thread": False})
        else:
            file = _SqliteFile(path)
            engine = sa.create_engine(url, creator=file.open)
            sa.event.listen(engine, "commit", lambda _conn: file.check())

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi: object, _record: object) -> None:
            cursor = dbapi.cursor()  # type: ignore[attr-defined]
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    return sa.create_engine(url, pool_size=20, max_overflow=20, pool_pre_ping=True)


_SQLITE_WRITES = threading.Lock()


@contextlib.contextmanager
def writing(engine: Engine) -> Iterator[Connection]:
    """A write transaction. SQLite lets one writer at a time in, and a writer that finds the
    database locked sleeps in growing steps (1, 2, 5, 10 ms ...) before it looks again: the
    audit writer meeting the rate counters' flush waited 8-18 ms for a transaction of 1 ms.
    On SQLite the service's writers take one process lock first, so they queue on it and are
    let in the moment the one before commits (SQLite serves one process: ``--workers`` needs
    PostgreSQL, whose writers wait on row and advisory locks without sleeping)."""
    if engine.dialect.name == "sqlite":
        with _SQLITE_WRITES, engine.begin() as conn:
            yield conn
    else:
        with engine.begin() as conn:
            yield conn


CHAIN_LOCK = 7324110  # the advisory lock's key
LEAD_LOCK = 7324111  # the session lock of the replica that links the intake into the chain


def write_lock(conn: Connection) -> None:
    """Serialise writers of the chain and the migrations across replicas (PostgreSQL)."""
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text(f"SELECT pg_advisory_xact_lock({CHAIN_LOCK})"))


def migrate(engine: Engine) -> int:
    """Apply the migrations not applied yet; the schema version reached."""
    with engine.begin() as conn:
        write_lock(conn)
        schema_version.create(conn, checkfirst=True)
        row = conn.execute(sa.select(schema_version.c.version)).first()
        done = row[0] if row else 0
        for migration in MIGRATIONS[done:]:
            migration(conn)
        if row is None:
            conn.execute(schema_version.insert().values(id=1, version=len(MIGRATIONS)))
        else:
            conn.execute(schema_version.update().values(version=len(MIGRATIONS)))
    return len(MIGRATIONS)
