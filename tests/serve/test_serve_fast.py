"""``POST /v1/check``'s hot path (``clawgate.serve.fast``) answers exactly as the route does,
and hands every request it does not own to the route (whose answers the API tests check)."""

from __future__ import annotations

import json

from servekit import Server

from clawgate.serve.fast import MAX_BODY


def test_the_hot_path_answers_as_the_route(server: Server) -> None:
    with server.client("agent", "fast-agent") as client:
        # The token's first use is looked up by the route; later ones take the hot path.
        first = client.post("/v1/check", json={"command": "rm -rf /", "session": "s1"})
        again = client.post("/v1/check", json={"command": "rm -rf /", "session": "s1"})
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json()
    assert again.json()["outcome"] == "deny"
    for header in ("content-security-policy", "x-content-type-options", "x-frame-options"):
        assert first.headers[header] == again.headers[header]
    assert again.headers["content-type"] == "application/json"


def test_an_ask_on_the_hot_path_opens_a_request(server: Server) -> None:
    with server.client("agent", "fast-asker") as client:
        client.post("/v1/check", json={"command": "git status"})
        asked = client.post("/v1/check", json={"command": "deploy-prod --fast"}).json()
        assert asked["outcome"] == "ask" and asked["approval_id"]
        shown = client.get(f"/v1/approvals/{asked['approval_id']}").json()
    assert shown["status"] == "pending" and shown["agent"] == "fast-asker"


def test_what_the_hot_path_does_not_own_goes_to_the_route(server: Server) -> None:
    with server.client("agent", "fast-fallback") as client:
        assert client.post("/v1/check", json={"command": "ls"}).status_code == 200
        assert client.post("/v1/check", json={"command": "ls", "extra": 1}).status_code == 422
        typed = {"Content-Type": "application/json"}
        assert client.post("/v1/check", content=b"{not json", headers=typed).status_code == 422
        untyped = client.post("/v1/check", content=b'{"command": "ls"}',
                              headers={"Content-Type": "text/plain"})
        assert untyped.status_code == 422
        other = client.post("/v1/check", json={"command": "ls", "agent": "someone-else"})
        assert other.status_code == 403
        big = "echo " + "a" * (MAX_BODY + 10)
        large = client.post("/v1/check", content=json.dumps({"command": big}), headers=typed)
        assert large.status_code == 200 and large.json()["outcome"] == "allow"
    cleared = server.client("agent", "fast-fallback")
    cleared.headers["Authorization"] = "Bearer cg_not_a_token"
    with cleared:
        refused = cleared.post("/v1/check", json={"command": "ls"})
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
