"""A twenty-line agent loop: an OpenAI-compatible model whose every tool call goes through
clawgate's ``Guard`` (tool policy, argument checks, approval, sandboxed execution, scrubbing,
audit). The model only ever sees the tools the policy lets it see.

    pip install openai
    OPENAI_BASE_URL=http://127.0.0.1:8000/v1 OPENAI_API_KEY=sk-... \\
        python examples/agent_loop.py "how many Python files are in src/?"

Any OpenAI-compatible server works (OpenAI, vLLM, llama.cpp, Ollama's /v1).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from clawgate.errors import ToolError
from clawgate.guard import CallContext, Guard

try:
    from openai import OpenAI
except ImportError:  # openai is not a clawgate dependency; importing this file never needs it
    OpenAI = None

NEEDS_OPENAI = "this example needs the openai package: pip install openai"


def run(task: str, model: str = "gpt-4o-mini", policies: tuple[str, ...] = (),
        client: Any = None) -> str:
    if client is None and OpenAI is None:
        raise SystemExit(NEEDS_OPENAI)
    client, ctx = client or OpenAI(), CallContext(session="agent-loop", provider="openai")
    guard = Guard.from_files(*policies, workspace=".")
    messages: list[Any] = [{"role": "user", "content": task}]
    for _ in range(20):
        reply = client.chat.completions.create(
            model=model, messages=messages, tools=guard.specs("openai", ctx)).choices[0].message
        messages.append(reply.model_dump(exclude_none=True))
        if not reply.tool_calls:
            return reply.content or ""
        for call in reply.tool_calls:
            try:
                args = json.loads(call.function.arguments or "{}")
                result: Any = guard.call(call.function.name, args, ctx)
            except (ToolError, ValueError) as exc:  # refused or failed: the model reads why
                result = {"error": str(exc)}
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result, default=str)})
    return "stopped: 20 model turns without a final answer"


if __name__ == "__main__":
    print(run(" ".join(sys.argv[1:]) or "list the files in the workspace"))
