"""A flood of one unknown bearer token costs one storage lookup, not one a request; a good
token still signs in, and a signed-out one is refused at once."""

from __future__ import annotations

import secrets
from pathlib import Path

import requests

from somnium_server.signin.refused import RefusedTokens
from somnium_server.storage import User
from somnium_server.storage.sqlite import SQLiteStorage

from .helpers import TIMEOUT, LiveServer, server_settings

FLOOD = 100


class CountingSQLite(SQLiteStorage):
    """The real SQLite storage, counting who-is-this lookups. An unknown token's costs one
    SELECT each (the storage keeps only what it found)."""

    lookups = 0

    async def session_user(self, token_hash: str, now: float) -> User | None:
        self.lookups += 1
        return await super().session_user(token_hash, now)


def me(server: LiveServer, token: str) -> int:
    return requests.get(f"{server.base}/me", headers={"Authorization": f"Bearer {token}"},
                        timeout=TIMEOUT).status_code


def test_a_flood_of_one_bad_token_costs_one_lookup(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    storage = CountingSQLite(database)
    server = LiveServer(server_settings(database), storage=storage)
    try:
        ann = server.player("Ann")
        bad = secrets.token_urlsafe(32)
        assert [me(server, bad) for _ in range(FLOOD)] == [401] * FLOOD
        assert storage.lookups == 1
        assert me(server, ann.token) == 200  # a good token still signs in
        assert me(server, secrets.token_urlsafe(32)) == 401  # another bad one: looked up
        assert storage.lookups == 3
    finally:
        server.stop()


def test_a_signed_out_token_is_refused_at_once(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    server = LiveServer(server_settings(database))
    try:
        ann, bob = server.player("Ann"), server.player("Bob")
        assert me(server, ann.token) == 200 and me(server, bob.token) == 200
        revoked = requests.post(f"{server.base}/auth/revoke", timeout=TIMEOUT,
                                data={"token": ann.token, "client_id": "somnium-desktop"})
        assert revoked.status_code == 200, revoked.text
        assert me(server, ann.token) == 401  # the very next request
        assert me(server, bob.token) == 200
        assert server.player("Ann again").get("/me").status_code == 200  # minted after
    finally:
        server.stop()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_refused_token_is_kept_a_while_and_only_so_many() -> None:
    clock = Clock()
    refused = RefusedTokens(keep=60.0, limit=3, clock=clock)
    refused.add("a")
    clock.now = 59.9
    assert refused.refused("a")
    clock.now = 60.0
    assert not refused.refused("a") and len(refused) == 0  # asked again after a minute
    for token_hash in "bcde":
        refused.add(token_hash)
    assert len(refused) == 3 and not refused.refused("b")  # the oldest went first
    assert all(refused.refused(token_hash) for token_hash in "cde")
