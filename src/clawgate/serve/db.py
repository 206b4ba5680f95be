"""The service's tables, on SQLite (the embedded default) or PostgreSQL, and their migrations.

Tables are SQLAlchemy Core (no ORM): tokens (hashed), approval requests, allow-always grants,
audit records and rate-limit counters. Migrations are versioned: ``schema_version`` holds the
number of the last one applied, each migration is a list of statements, and ``migrate`` applies
the missing ones at start, in one transaction, under a lock (an advisory lock on PostgreSQL;
SQLite serves one process), so replicas starting together apply each one once.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

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


MIGRATIONS: tuple[Migration, ...] = (_initial, _indexes, _token_workspace)


def connect(url: str) -> Engine:
    """An engine for ``url``. SQLite gets WAL and a busy timeout, so readers never wait."""
    if url.startswith("sqlite"):
        engine = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

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


def write_lock(conn: Connection) -> None:
    """Serialise writers of the chain and the migrations across replicas (PostgreSQL)."""
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(7324110)"))


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
