"""Built-in web tools: fetch a URL through the SSRF checks; search through a configured endpoint."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.tools.base import Result
from clawgate.tools.urls import UrlPolicy, fetch


@dataclass
class WebFetch:
    policy: UrlPolicy = field(default_factory=UrlPolicy)
    name = "web_fetch"
    description = "Fetch an http(s) URL on the public internet and return its text."
    parameters: dict[str, Any] = field(default_factory=lambda: {
        "type": "object", "additionalProperties": False, "required": ["url"],
        "properties": {"url": {"type": "string", "minLength": 1, "maxLength": 8192}}})

    def execute(self, args: dict[str, Any]) -> Result:
        got = fetch(args["url"], self.policy)
        headers = {k.lower(): v for k, v in got.headers}
        return {"url": args["url"], "final_url": got.final_url, "status": got.status,
                "content_type": headers.get("content-type", ""),
                "body": got.body.decode("utf-8", "replace"), "truncated": got.truncated}


@dataclass
class WebSearch:
    """POSTs ``{"query", "max_results"}`` as JSON to the configured endpoint (through the same
    URL checks as web_fetch); without an endpoint it answers with a note, not an error."""

    endpoint: str | None = None
    policy: UrlPolicy = field(default_factory=UrlPolicy)
    name = "web_search"
    description = "Search the web through the configured search endpoint."
    parameters: dict[str, Any] = field(default_factory=lambda: {
        "type": "object", "additionalProperties": False, "required": ["query"],
        "properties": {"query": {"type": "string", "minLength": 1, "maxLength": 2048},
                       "max_results": {"type": "integer", "minimum": 1, "maximum": 50,
                                       "default": 5}}})

    def execute(self, args: dict[str, Any]) -> Result:
        if not self.endpoint:
            return {"results": [], "note": "web search is not configured for this agent "
                    "(set web.search_endpoint in the policy)"}
        body = json.dumps({"query": args["query"], "max_results": args.get("max_results", 5)})
        got = fetch(self.endpoint, self.policy, method="POST", body=body.encode(),
                    headers={"Content-Type": "application/json"})
        if got.status >= 400:
            raise ToolError(ToolErrorKind.EXECUTION_FAILED,
                            f"the search endpoint answered HTTP {got.status}")
        try:
            answer = json.loads(got.body)
        except ValueError as exc:
            raise ToolError(ToolErrorKind.EXECUTION_FAILED,
                            "the search endpoint did not answer JSON") from exc
        results = answer.get("results", answer) if isinstance(answer, dict) else answer
        return {"results": results if isinstance(results, list) else [results]}
