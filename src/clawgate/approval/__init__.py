"""Approval of ASK decisions: who says yes, and which yeses are remembered.

An ``Approver`` answers an ``ApprovalRequest`` with allow-once, allow-always or deny; every
failure to get an answer (no terminal, a timeout, a broken callback) is a deny.
``ApprovalStore`` keeps one workspace's allow-always answers; ``seek_approval`` puts the two
together. ``ServerApprover`` asks the person at a ``policy serve`` console.
"""

from clawgate.approval.model import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    CallbackApprover,
    DenyAllApprover,
    request_digest,
)
from clawgate.approval.server import ServerApprover
from clawgate.approval.store import ApprovalEntry, ApprovalStore, default_state_dir, seek_approval
from clawgate.approval.terminal import TerminalApprover, printable

__all__ = [
    "ApprovalAnswer",
    "ApprovalEntry",
    "ApprovalRequest",
    "ApprovalStore",
    "Approver",
    "CallbackApprover",
    "DenyAllApprover",
    "ServerApprover",
    "TerminalApprover",
    "default_state_dir",
    "printable",
    "request_digest",
    "seek_approval",
]
