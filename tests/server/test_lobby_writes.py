"""The lobby's events on PostgreSQL: a write cut off by the database is made again, in order."""

from __future__ import annotations

import time

import psycopg

from somnium_server.storage.postgres_lobby import LOBBY_LOCK

from ..postgres import Cluster
from .helpers import EventReader, LiveServer, server_settings

WAITING = "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"


def cut_the_waiting_writer(admin: psycopg.Connection[tuple[int]]) -> None:
    """Terminate the connection that waits for the lobby's lock (the instance's writer)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        rows = admin.execute(WAITING).fetchall()
        if rows:
            for (pid,) in rows:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            return
        time.sleep(0.02)
    raise AssertionError("no lobby write waited for the lock")


def test_lobby_events_survive_a_cut_connection_in_order(pg_cluster: Cluster) -> None:
    url = pg_cluster.new_database()
    server = LiveServer(server_settings(url))
    lobby = EventReader(server.base + "/lobby/events")
    try:
        assert lobby.next().event == "snapshot"
        ann = server.player("Ann")
        with psycopg.connect(url, autocommit=True) as admin:
            # hold the lock lobby writes take: the instance's writer waits on it, and its
            # connection is cut twice while it waits (each try fails, none is stored)
            admin.execute("SELECT pg_advisory_lock(%s)", (LOBBY_LOCK,))
            made = [ann.create(name="first")["id"]]
            cut_the_waiting_writer(admin)
            made += [ann.create(name=f"then {n}")["id"] for n in range(2)]
            cut_the_waiting_writer(admin)
            made += [ann.create(name="last")["id"]]
            assert admin.execute("SELECT count(*) FROM lobby_events").fetchone() == (0,)
            admin.execute("SELECT pg_advisory_unlock(%s)", (LOBBY_LOCK,))
        told = [lobby.until(lambda e: e.event == "game_created") for _ in made]
        assert [e.json()["game"]["id"] for e in told] == made
        numbers = [int((e.id or "").rpartition("-")[2]) for e in told]
        assert numbers == list(range(numbers[0], numbers[0] + len(made)))
        assert not [e for e in lobby.drain(0.5) if e.event == "game_created"]  # none twice
    finally:
        lobby.close()
        server.stop()
