"""Remembered allow-always answers, one JSON file per workspace, kept outside the workspace.

The file lives under ``$CLAWGATE_STATE_DIR``, else the state root's ``approvals`` directory
(``clawgate.statedir``), named by the hash of the workspace's canonical path: a file inside the
workspace could be written by the very agent whose calls it approves. Each entry carries an
HMAC, under a key kept beside the store (``keys/approvals.key``, mode 0600), of the workspace,
the request's digest and the entry's fields: an entry written without the key (a command that
appends JSON to the file) is ignored and reported, never honoured.

``seek_approval`` consults the store only when the approver could say yes itself: with a
``DenyAllApprover``, or a terminal approver without a terminal, a remembered grant is not a way
around the person who is not there. Nor does it for an approver that keeps its grants itself
(``ServerApprover``: the service is the authority, and a grant revoked there must not live on in
a local file): such an approver is always asked, and its allow-always is not written here.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import fcntl
import hashlib
import hmac
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from clawgate.approval.model import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    can_approve,
    keeps_grants,
    request_digest,
)
from clawgate.errors import ClawgateError
from clawgate.tools.scrub import Scrubber


@dataclass(frozen=True, slots=True)
class ApprovalEntry:
    """A remembered allow-always. Only a digest of the request is kept, and a scrubbed summary:
    the store must not become a second copy of the secrets in the commands it approved."""

    id: str
    tool: str
    summary: str
    created: str
    digest: str = field(repr=False)
    mac: str = field(default="", repr=False)


def default_state_dir() -> Path:
    env = os.environ.get("CLAWGATE_STATE_DIR")
    if env:
        return Path(env)
    from clawgate.statedir import state_root

    return state_root() / "approvals"


class ApprovalStore:
    """Allow-always answers for one workspace, in a JSON file written atomically under a lock."""

    def __init__(self, workspace: str | os.PathLike[str], state_dir: Path | None = None,
                 *, key: bytes | None = None) -> None:
        self.workspace = os.path.realpath(workspace)
        name = hashlib.sha256(self.workspace.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        self.path = (state_dir or default_state_dir()) / f"{name}.json"
        self._key = key

    def allows(self, request: ApprovalRequest) -> bool:
        """True if ``request`` was allowed always; an unreadable store allows nothing."""
        try:
            return any(e.digest == request_digest(request) for e in self.list())
        except ClawgateError:
            return False

    def list(self) -> builtins.list[ApprovalEntry]:
        """Every remembered approval whose mac holds. Raises ClawgateError if the file is
        corrupt. Reading takes no lock (and so creates no lock file): writes replace the file
        whole, atomically."""
        return [e for e in self._load() if self._holds(e)]

    def forged(self) -> int:
        """How many entries fail their mac (written without the key): ignored by ``allows``."""
        return sum(not self._holds(e) for e in self._load())

    def remember(self, request: ApprovalRequest) -> ApprovalEntry:
        summary = Scrubber().scrub(request.summary or request.key)
        entry = ApprovalEntry(request.id, request.tool, summary,
                              time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                              request_digest(request))
        entry = dataclasses.replace(entry, mac=self._mac(entry))
        with self._locked(exclusive=True):
            entries = [e for e in self._load() if e.digest != entry.digest]
            self._save([*entries, entry])
        return entry

    def revoke(self, entry_id: str) -> bool:
        """Forget the approval with this id; False if there was none."""
        if not self.path.exists():
            return False  # nothing remembered: no directory or lock file made to say so
        with self._locked(exclusive=True):
            entries = self._load()
            kept = [e for e in entries if e.id != entry_id]
            if len(kept) == len(entries):
                return False
            self._save(kept)
            return True

    def _mac(self, entry: ApprovalEntry) -> str:
        if self._key is None:
            from clawgate.statedir import state_key

            self._key = state_key("approvals", root=self.path.parent)
        fields = (self.workspace, entry.digest, entry.id, entry.tool, entry.summary, entry.created)
        message = "\0".join(fields).encode("utf-8", "surrogateescape")
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def _holds(self, entry: ApprovalEntry) -> bool:
        return bool(entry.mac) and hmac.compare_digest(entry.mac, self._mac(entry))

    @contextlib.contextmanager
    def _locked(self, exclusive: bool) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            yield
        finally:
            os.close(fd)

    def _load(self) -> builtins.list[ApprovalEntry]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return [ApprovalEntry(e["id"], e["tool"], e["summary"], e["created"], e["digest"],
                                  str(e.get("mac", ""))) for e in data["approvals"]]
        except FileNotFoundError:
            return []
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ClawgateError(f"{self.path}: unreadable approval store ({exc})") from exc

    def _save(self, entries: builtins.list[ApprovalEntry]) -> None:
        data = {"workspace": self.workspace, "approvals": [
            {"id": e.id, "tool": e.tool, "summary": e.summary, "created": e.created,
             "digest": e.digest, "mac": e.mac} for e in entries]}
        tmp = self.path.with_name(f".{self.path.name}.{os.urandom(6).hex()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, ensure_ascii=False, indent=1)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def seek_approval(request: ApprovalRequest, approver: Approver,
                  store: ApprovalStore | None = None) -> ApprovalAnswer:
    """A remembered allow-always, else the approver's answer (remembered if allow-always). The
    store is consulted only when the approver could say yes itself, and never for an approver
    that keeps its own grants."""
    if keeps_grants(approver):
        store = None
    if store is not None and can_approve(approver) and store.allows(request):
        return ApprovalAnswer.ALLOW_ALWAYS
    answer = approver.approve(request)
    if answer is ApprovalAnswer.ALLOW_ALWAYS and store is not None:
        store.remember(request)
    return answer
