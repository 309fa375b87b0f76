"""The event stream reader: framing, and resuming with Last-Event-ID after the server went away."""

from __future__ import annotations

import queue
import random
import time
from pathlib import Path

from somnium_desktop.client.sse import EventStream, ServerEvent, SSEParser
from tests.server.helpers import EventReader, LiveServer, server_settings

from .helpers import play, seated_game

WIRE = (
    b": keep-alive\n\n"
    b"id: 7\nevent: card_drawn\ndata: {\"seq\": 7}\n\n"
    b"event: observers\ndata: {\"count\": 2}\n\n"
    b"id: 8\r\nevent: banked\r\ndata: line one\r\ndata: line two\r\n\r\n"
    b"event: nothing\n\n"
)


def test_the_parser_reads_events_however_the_bytes_are_cut() -> None:
    for cut in range(1, 12):
        parser = SSEParser()
        events: list[ServerEvent] = []
        for start in range(0, len(WIRE), cut):
            events.extend(parser.feed(WIRE[start:start + cut]))
        assert events == [
            ServerEvent("card_drawn", '{"seq": 7}', "7"),
            ServerEvent("observers", '{"count": 2}', None),
            ServerEvent("banked", "line one\nline two", "8"),
        ], cut
        assert parser.last_id == "8"  # an event without an id keeps the last one


def numbers(got: queue.Queue[ServerEvent], until: int, timeout: float = 10.0) -> list[int]:
    """The sequence numbers of the numbered events read, until `until` has come."""
    seen: list[int] = []
    deadline = time.monotonic() + timeout
    while not seen or seen[-1] < until:
        event = got.get(timeout=max(0.01, deadline - time.monotonic()))
        if event.event == "snapshot":
            seen.append(-int(event.json()["game"]["seq"]))  # a snapshot, marked negative
        elif event.id is not None:
            seen.append(int(event.id))
    return seen


def test_the_reader_resumes_after_a_server_restart_and_misses_nothing(tmp_path: Path) -> None:
    rng = random.Random(5)
    settings = server_settings(tmp_path / "lobby.sqlite3")
    first = LiveServer(settings)
    game_id, players = seated_game(first)
    where = [first.base]
    got: queue.Queue[ServerEvent] = queue.Queue()
    statuses: list[str] = []
    stream = EventStream(
        lambda: f"{where[0]}/games/{game_id}/events", got.put,
        lambda status, detail: statuses.append(status),
        read_timeout=3.0, backoff=(0.05, 0.1, 0.2),
    )
    stream.start()
    second: LiveServer | None = None
    try:
        before = play(players, game_id, 6, rng)
        seen = numbers(got, before)
        assert seen[0] < 0 and seen[1:] == list(range(-seen[0] + 1, before + 1))
        first.stop()  # the server goes away mid-game, and the stream with it
        second = LiveServer(settings)  # back on another port, from the same database
        for player in players.values():
            player.base = second.base
        after = play(players, game_id, 8, rng)  # played while the reader is still away
        assert after > before
        where[0] = second.base
        resumed = numbers(got, after)
        assert resumed == list(range(before + 1, after + 1))  # the gap, in order, no snapshot
        assert stream.connections == 2 and "reconnecting" in statuses
        assert stream.last_event_id == str(after)
    finally:
        stream.close()
        assert stream.join(5)
        (second or first).stop()


def test_a_stream_refused_for_too_many_streams_waits_its_retry_after(tmp_path: Path) -> None:
    """The server's per-address stream limit answers 429 with Retry-After: 5. The reader says
    so in plain words (no "is the address right?") and waits that long before trying again."""
    server = LiveServer(server_settings(tmp_path / "lobby.sqlite3", max_streams=1))
    game_id, _players = seated_game(server)
    hog = EventReader(f"{server.base}/lobby/events")  # the address's one stream
    said: queue.Queue[tuple[float, str, str]] = queue.Queue()
    stream = EventStream(
        lambda: f"{server.base}/games/{game_id}/events", lambda event: None,
        lambda status, detail: said.put((time.monotonic(), status, detail)),
        read_timeout=3.0, backoff=(0.05,),
    )
    stream.start()
    try:
        at, status, detail = said.get(timeout=5)
        assert status == "misanswered"
        assert detail == ("it refuses more just now (HTTP 429 Too Many Requests: at most 1 "
                          "event streams per client)")
        hog.response.close()  # the slot is free again, but the reader was told to wait 5 s
        # (the 429's kept-alive connection may be closed by the server just as the wait ends:
        # a "reconnecting" then is fine, an earlier try is not)
        seen: list[tuple[float, str, str]] = []
        while not seen or seen[-1][1] != "connected":
            seen.append(said.get(timeout=10))
        assert all(when - at >= 4.5 for when, _status, _detail in seen), seen
        assert all(status != "misanswered" for _when, status, _detail in seen), seen
        assert stream.connections == 1
    finally:
        stream.close()
        assert stream.join(5)
        server.stop()


def test_a_game_the_server_does_not_know_is_given_up(tmp_path: Path) -> None:
    """A lobby server's own 404 (its JSON refusal) ends the reader: no use trying again."""
    server = LiveServer(server_settings(tmp_path / "lobby.sqlite3"))
    said: queue.Queue[tuple[str, str]] = queue.Queue()
    stream = EventStream(lambda: f"{server.base}/games/ZZZZZZZ/events", lambda event: None,
                         lambda status, detail: said.put((status, detail)), backoff=(0.05,))
    stream.start()
    try:
        status, detail = said.get(timeout=5)
        assert status == "failed" and "ZZZZZZZ" in detail
        assert stream.join(5) and stream.connections == 0
    finally:
        stream.close()
        server.stop()
