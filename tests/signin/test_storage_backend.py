"""Sign-in keeps its records in the storage the server is given, not in a file of its own."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import requests

from somnium_desktop.client.signin import SigninFlow
from somnium_server.storage.sqlite import SQLiteStorage

from .helpers import LiveLobby, Person, lobby_settings


def test_a_server_given_a_storage_signs_in_through_it_alone(tmp_path: Path) -> None:
    configured = tmp_path / "configured.sqlite3"  # the settings' file: must stay untouched
    given = tmp_path / "given.sqlite3"
    lobby = LiveLobby(lobby_settings(configured, local_accounts=True),
                      storage=SQLiteStorage(given))
    try:
        person = Person(local_name="Vera")
        tokens = SigninFlow(lobby.base, open_browser=person, timeout=20).run()
        person.join()
        me = requests.get(f"{lobby.base}/me", timeout=10,
                          headers={"Authorization": f"Bearer {tokens.access_token}"})
        assert me.status_code == 200 and me.json()["display_name"] == "Vera"
        refreshed = requests.post(f"{lobby.base}/auth/token", timeout=10, data={
            "grant_type": "refresh_token", "refresh_token": tokens.refresh_token,
            "client_id": "somnium-desktop",
        })
        assert refreshed.status_code == 200, refreshed.text
    finally:
        lobby.stop()
    assert not configured.exists()
    conn = sqlite3.connect(given)
    families = conn.execute("SELECT count(*) FROM signin_families").fetchone()[0]
    tokens_kept = conn.execute("SELECT count(*) FROM signin_refresh_tokens").fetchone()[0]
    conn.close()
    assert (families, tokens_kept) == (1, 2)
