"""The ``message`` tool: sends through a MessageBus the caller provides."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.tools.base import Result


class MessageBus(Protocol):
    def send(self, channel: str, chat_id: str, content: str) -> None: ...


@dataclass
class Message:
    bus: MessageBus | None
    default_channel: str = ""
    default_chat_id: str = ""
    name = "message"
    description = "Send a message to a chat channel."
    parameters: Any = None

    def __post_init__(self) -> None:
        self.parameters = {
            "type": "object", "additionalProperties": False, "required": ["content"],
            "properties": {"content": {"type": "string", "minLength": 1, "maxLength": 65536},
                           "channel": {"type": "string"}, "chat_id": {"type": "string"}}}

    def execute(self, args: dict[str, Any]) -> Result:
        if self.bus is None:
            raise ToolError(ToolErrorKind.EXECUTION_FAILED, "no message bus is configured")
        channel = args.get("channel") or self.default_channel
        chat_id = args.get("chat_id") or self.default_chat_id
        if not channel:
            raise ToolError(ToolErrorKind.INVALID_ARGS, "channel: no channel given or configured")
        self.bus.send(channel, chat_id, args["content"])
        return {"status": "sent", "channel": channel, "chat_id": chat_id}
