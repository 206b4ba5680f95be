"""Sandboxed connections in the audit log: one line per connection the egress proxy judged
(``tool: "network"``, the host, port, protocol, run and command in ``args``, the decision and
the policy key that made it in ``decision``, the address reached and the bytes each way in
``result``). The Guard hands its audit log's sink to a bubblewrap executor; ``policy run``
writes to the workspace's audit log under the state directory."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from clawgate.audit import AuditLog, AuditRecord
from clawgate.decision import Reason
from clawgate.executors.egress.proxy import Connection

TOOL = "network"


def connection_record(connection: Connection, session: str = "") -> AuditRecord:
    """The audit record of one connection."""
    return AuditRecord(
        session=session, agent="", tool=TOOL,
        args={"host": connection.host, "port": connection.port, "via": connection.via,
              "run": connection.run, "command": connection.command},
        outcome="allow" if connection.allowed else "deny",
        reasons=(Reason(connection.key, connection.why),),
        result={"address": connection.address, "bytes_up": connection.bytes_up,
                "bytes_down": connection.bytes_down,
                **({"error": connection.error} if connection.error else {})},
        duration_ms=connection.duration_ms)


def sink_for(log: AuditLog) -> Callable[[Connection], None]:
    """Append each connection to ``log``."""
    def append(connection: Connection) -> None:
        log.append(connection_record(connection))
    return append


class LazySink:
    """A sink that opens the audit log at ``where()`` on the first connection (a run that
    connects nowhere creates no log, no directory and no key). Close it when the runs are
    done."""

    def __init__(self, where: Callable[[], str | os.PathLike[str]]) -> None:
        self.where = where
        self._log: AuditLog | None = None
        self._lock = threading.Lock()

    def __call__(self, connection: Connection) -> None:
        with self._lock:
            if self._log is None:
                self._log = AuditLog(self.where())
            log = self._log
        log.append(connection_record(connection))

    def close(self) -> None:
        with self._lock:
            if self._log is not None:
                self._log.close()
                self._log = None
