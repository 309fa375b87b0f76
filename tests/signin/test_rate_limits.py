"""Sign-in endpoints are rate-limited per client address (and renaming per user): 429 with
Retry-After, on the JSON endpoints as an OAuth error, on the browser pages as a page."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from urllib.parse import urlsplit

import requests

from somnium_desktop.client.signin import CLIENT_ID
from somnium_server.config import RateLimit

from .helpers import LiveLobby, lobby_settings


def _post_token_from(lobby: LiveLobby, source: str) -> tuple[int, dict[str, str], bytes]:
    """POST a refresh grant to /auth/token from the loopback address `source`."""
    url = urlsplit(lobby.base)
    conn = http.client.HTTPConnection(url.hostname or "", url.port, timeout=10,
                                      source_address=(source, 0))
    try:
        conn.request("POST", "/auth/token",
                     body=f"grant_type=refresh_token&refresh_token=nope&client_id={CLIENT_ID}",
                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        answer = conn.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        conn.close()


def test_sign_in_requests_are_limited_per_client_address(tmp_path: Path) -> None:
    lobby = LiveLobby(lobby_settings(tmp_path / "db.sqlite3", local_accounts=True,
                                     rate_signin=RateLimit(3, 60)))
    try:
        for _ in range(3):
            status, _, body = _post_token_from(lobby, "127.0.0.1")
            assert status == 400 and json.loads(body)["error"] == "invalid_grant"
        status, headers, body = _post_token_from(lobby, "127.0.0.1")
        assert status == 429, body
        assert 1 <= int(headers["retry-after"]) <= 20  # one request's worth of 60 s / 3
        answer = json.loads(body)
        assert answer["error"] == "rate_limited" and "retry in" in answer["message"]
        # the same address's other sign-in endpoints share the bucket
        revoke = requests.post(f"{lobby.base}/auth/revoke", data={"token": "x"}, timeout=10)
        assert revoke.status_code == 429 and int(revoke.headers["Retry-After"]) >= 1
        local = requests.post(f"{lobby.base}/auth/local", data={"request": "r", "name": "Ann"},
                              timeout=10)
        assert local.status_code == 429 and "Retry-After" in local.headers
        assert "Too many sign-in requests" in local.text
        authorize = requests.get(f"{lobby.base}/auth/authorize", timeout=10)
        assert authorize.status_code == 429 and "Retry-After" in authorize.headers
        # another client (another loopback address) is not held back
        status, _, body = _post_token_from(lobby, "127.0.0.2")
        assert status == 400 and json.loads(body)["error"] == "invalid_grant"
        # the lobby itself is not limited by sign-in's bucket
        assert requests.get(f"{lobby.base}/games", timeout=10).status_code == 200
    finally:
        lobby.stop()


def test_renaming_is_limited_per_user(tmp_path: Path) -> None:
    lobby = LiveLobby(lobby_settings(tmp_path / "db.sqlite3", rate_signin=RateLimit(2, 60)))
    try:
        ann, bob = lobby.player("Ann"), lobby.player("Bob")
        for name in ("Ann B", "Ann C"):
            answer = requests.patch(f"{lobby.base}/me", json={"display_name": name},
                                    headers=ann.headers, timeout=10)
            assert answer.status_code == 200, answer.text
        refused = requests.patch(f"{lobby.base}/me", json={"display_name": "Ann D"},
                                 headers=ann.headers, timeout=10)
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        assert refused.json()["error"] == "rate_limited"
        assert ann.get("/me").json()["display_name"] == "Ann C"
        other = requests.patch(f"{lobby.base}/me", json={"display_name": "Bobby"},
                               headers=bob.headers, timeout=10)
        assert other.status_code == 200
    finally:
        lobby.stop()
