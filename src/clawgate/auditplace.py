"""Where an audit log may be written: never inside the workspace it records.

The commands and file tools the guard runs there could rewrite, truncate or delete it. One
rule for every front of the call path (the Guard, the hooks, the MCP proxy), applied where the
call path is built (``callpath.CallPath``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from clawgate.audit import AuditLog
from clawgate.errors import ClawgateError
from clawgate.statedir import state_root


def audit_log_for(audit_log: AuditLog | str | os.PathLike[str] | bool | None, root: str
                  ) -> AuditLog | str | os.PathLike[str] | None:
    """The audit log to write: ``True`` is this workspace's log under the state root
    (``default_audit_path``), ``False``/None none. A log inside the workspace is refused: the
    commands and file tools the guard runs there could change it."""
    if audit_log is True:
        audit_log = default_audit_path(root)
    if audit_log is None or audit_log is False:
        return None
    where = audit_log.path if isinstance(audit_log, AuditLog) else Path(audit_log)
    if _inside(where, root):
        raise ClawgateError(
            f"the audit log {where} is inside the workspace {root}, where what the guard runs "
            "could change it; keep it outside (audit_log=True puts it under the state "
            f"directory {state_root()})")
    return audit_log


def default_audit_path(root: str) -> Path:
    """``<state root>/audit/<workspace name>-<hash of its real path>.jsonl``."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    folder = state_root() / "audit"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder / f"{os.path.basename(real) or 'root'}-{digest}.jsonl"


def _inside(path: Path, root: str) -> bool:
    """Whether ``path`` (which may not exist yet) resolves inside ``root``."""
    real = Path(os.path.realpath(path))
    return real.is_relative_to(os.path.realpath(root))
