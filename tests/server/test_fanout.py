"""The mover first: an action is answered before its events go out, and a crowd of observers
still gets every event, in order."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from benchmarks.mover_observers import play
from somnium_server.live.events import (
    MAX_BEHIND,
    SLICE,
    Channel,
    EventStreamResponse,
    StreamHub,
    Subscriber,
)

from .helpers import TIMEOUT, LiveServer, server_settings


def test_publishing_touches_no_listener_until_the_publisher_gives_the_loop_back() -> None:
    async def scenario() -> tuple[list[list[bytes]], list[list[bytes]], list[bytes]]:
        channel = Channel()
        listeners = [Subscriber() for _ in range(1000)]
        for listener in listeners:
            channel.add(listener)
        channel.publish(b"one")
        channel.publish(b"two")
        during = [list(listener.buffer) for listener in listeners]  # the mover's turn
        for _ in range(len(listeners) // SLICE + 1):  # the loop runs the delivery, by slices
            await asyncio.sleep(0)
        after = [list(listener.buffer) for listener in listeners]
        late = Subscriber()
        channel.publish(b"three")
        channel.add(late)  # hears of what comes after it, not of what was pending
        await asyncio.sleep(0)
        return during, after, late.buffer

    during, after, late = asyncio.run(scenario())
    assert during == [[]] * 1000
    assert after == [[b"onetwo"]] * 1000
    assert late == []


def test_a_crowd_is_handed_a_message_by_slices_and_each_listener_hears_all_in_order() -> None:
    async def scenario() -> tuple[int, list[list[bytes]], list[bytes]]:
        channel = Channel()
        listeners = [Subscriber() for _ in range(10 * SLICE)]
        for listener in listeners:
            channel.add(listener)
        player = Subscriber()
        channel.add(player, player=True)
        channel.publish(b"one")
        await asyncio.sleep(0)  # the delivery's first turn: the player, and one slice
        first_turn = sum(1 for listener in listeners if listener.buffer)
        assert player.buffer == [b"one"]
        channel.publish(b"two")  # while "one" is still being handed out
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        late = Subscriber()
        channel.add(late)  # the rest get "one" at once; "two" goes out without the late one
        channel.publish(b"three")
        for _ in range(30):
            await asyncio.sleep(0)
        return first_turn, [list(listener.buffer) for listener in listeners], late.buffer

    first_turn, heard, late = asyncio.run(scenario())
    assert first_turn == SLICE
    assert all(b"".join(buffer) == b"onetwothree" for buffer in heard)
    assert late == [b"three"]


def test_a_paced_channel_gathers_what_is_published_between_deliveries() -> None:
    async def scenario() -> tuple[list[bytes], list[bytes], list[bytes], float]:
        channel = Channel(pace=0.3)
        listener = Subscriber()
        channel.add(listener)
        channel.publish(b"one")  # nothing went out lately: delivered at the loop's next turn
        await asyncio.sleep(0)
        first = list(listener.buffer)
        started = time.monotonic()
        channel.publish(b"two")
        channel.publish(b"three")
        await asyncio.sleep(0.1)
        meanwhile = list(listener.buffer)
        while len(listener.buffer) < 2 and time.monotonic() - started < TIMEOUT:
            await asyncio.sleep(0.01)
        return first, meanwhile, list(listener.buffer), time.monotonic() - started

    first, meanwhile, last, waited = asyncio.run(scenario())
    assert first == [b"one"]
    assert meanwhile == [b"one"]  # within the pace: held back
    assert last == [b"one", b"twothree"]  # then together, in order, in one write
    assert 0.2 <= waited < 1.5


def test_streams_opening_while_a_crowd_is_handed_messages_lose_none() -> None:
    # Publishes, streams opening (players too), listeners sitting down or leaving, deliveries
    # made at once (as chat's) and turns of the loop, in seeded random order, around a crowd
    # bigger than a slice: every listener hears exactly what was published from its opening
    # on, in order. (Two hand-outs running at once, one started as a stream opened, lost
    # whole messages for part of the crowd.)
    async def scenario(seed: int) -> list[bool]:
        rng = random.Random(seed)
        channel = Channel()
        listeners = [(Subscriber(), 0) for _ in range(SLICE + 15)]
        for number, (listener, _) in enumerate(listeners):
            channel.add(listener, player=number < 2)
        published: list[bytes] = []
        for _ in range(200):
            step = rng.random()
            if step < 0.5:
                published.append(b"%d;" % len(published))
                channel.publish(published[-1])
                if rng.random() < 0.2:
                    channel.deliver()
            elif step < 0.6:
                listener = Subscriber()
                channel.add(listener, player=rng.random() < 0.1)
                listeners.append((listener, len(published)))
            elif step < 0.65:  # one sits down at the table it watches, or leaves it
                listener = rng.choice(listeners)[0]
                channel.seat(listener, listener not in channel.players)
            else:
                await asyncio.sleep(0)
        for _ in range(100):
            await asyncio.sleep(0)
        return [b"".join(listener.buffer) == b"".join(published[first:])
                for listener, first in listeners]

    for seed in range(100):
        assert all(asyncio.run(scenario(seed))), f"seed {seed}"


def test_a_stream_whose_client_stopped_reading_is_closed_not_kept_growing() -> None:
    # The real response class, given an ASGI send whose first body write never completes
    # (a client that reads nothing and keeps the connection: the socket never drains).
    async def scenario() -> tuple[bool, int, dict[str, Any], list[bool]]:
        hub = StreamHub(keepalive=60, max_per_client=4)
        channel = Channel()
        subscriber = Subscriber([b"event: snapshot\ndata: {}\n\n"])
        channel.add(subscriber)
        ended: list[bool] = []
        response = EventStreamResponse(hub, subscriber, lambda: ended.append(True))
        reading = asyncio.Event()
        written: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            written.append(message)
            if message.get("more_body"):
                await reading.wait()

        async def receive() -> dict[str, Any]:
            await asyncio.Event().wait()  # (the client never hangs up)
            raise AssertionError("unreachable")

        task = asyncio.create_task(response({"type": "http"}, receive, send))  # type: ignore[arg-type]
        for _ in range(3 * MAX_BEHIND // 1000):  # three times the limit, 1 kB a message
            channel.publish(b"x" * 1000)
            await asyncio.sleep(0)
        closed, kept = subscriber.closed, sum(len(data) for data in subscriber.buffer)
        reading.set()  # it reads again: the stream ends, and the client resumes from its id
        await asyncio.wait_for(task, TIMEOUT)
        return closed, kept, written[-1], ended

    closed, kept, last, ended = asyncio.run(scenario())
    assert closed and kept <= MAX_BEHIND
    assert last == {"type": "http.response.body", "body": b"", "more_body": False}
    assert ended == [True]


def test_hundreds_of_observers_get_every_event_in_order(tmp_path: Path) -> None:
    observers = 300
    server = LiveServer(server_settings(tmp_path / "db.sqlite3", max_streams=observers + 8))
    try:
        tokens = [server.player(name).token for name in ("Ann", "Bob")]
        port = int(server.base.rsplit(":", 1)[1])
        figures = asyncio.run(play(port, tokens, observers, actions=15))
    finally:
        server.stop()
    # every answer came (200, checked in play), and each of the crowd saw each event once, in
    # order (checked in play): here, that there were actions and events to see
    assert len(figures.round_trips) == 15 and figures.events >= 15
    assert len(figures.fan_out) == 15


SO_TIMESTAMPNS = 35  # Linux, socket(7): the kernel's receive time of each packet, in ns


def _timed_socket(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    return sock


def _until(sock: socket.socket, marker: bytes) -> tuple[bytes, float | None]:
    """Read until `marker` has come; the data and the kernel's receive time of its packet.

    The time is None when the kernel stamped no packet: the first socket that asks for stamps
    turns them on a moment later (Linux defers it to a work queue), so the first replies on a
    quiet machine may come unstamped.
    """
    data = b""
    received = None
    while marker not in data:
        chunk, ancillary, _, _ = sock.recvmsg(65536, 64)
        assert chunk, "the connection closed"
        data += chunk
        stamped = [d for level, kind, d in ancillary
                   if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS]
        received = None
        if stamped:
            seconds, nanoseconds = struct.unpack("qq", stamped[0][:16])
            received = seconds + nanoseconds / 1e9
    return data, received


@pytest.mark.skipif(sys.platform != "linux", reason="kernel receive times are Linux's")
def test_the_answer_leaves_before_any_observer_hears_of_the_action(tmp_path: Path) -> None:
    # Kernel receive times on loopback are when the server wrote: they tell the order of the
    # server's writes whatever the load on this machine.
    server = LiveServer(server_settings(tmp_path / "db.sqlite3", max_streams=80))
    sockets: list[socket.socket] = []
    try:
        ann, bob = server.player("Ann"), server.player("Bob")
        game = bob.post(f"/games/{ann.create()['id']}/join").json()
        port = int(server.base.rsplit(":", 1)[1])
        crowd = [_timed_socket(port) for _ in range(60)]
        sockets += crowd
        for sock in crowd:
            sock.sendall(f"GET /games/{game['id']}/events HTTP/1.1\r\nHost: x\r\n\r\n"
                         .encode())
            _until(sock, b"event: snapshot")
        time.sleep(0.3)  # the observer counts are announced meanwhile: read them all
        for sock in crowd:
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                while sock.recv(65536):
                    pass
            sock.setblocking(True)
        mover = (ann, bob)[game["view"]["turn"]]
        body = json.dumps({"action_id": "first", "version": game["version"],
                           "action": {"type": "draw"}}).encode()
        acting = _timed_socket(port)
        sockets.append(acting)
        acting.sendall(
            f"POST /games/{game['id']}/actions HTTP/1.1\r\nHost: x\r\n"
            f"Authorization: Bearer {mover.token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode() + body
        )
        answer, answered = _until(acting, b"\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 200"), answer
        heard = [_until(sock, b"id: %d\n" % (game["seq"] + 1))[1] for sock in crowd]
    finally:
        for sock in sockets:
            sock.close()
        server.stop()
    # stamps were on for a third of a second before the action: every packet since is stamped
    assert answered is not None and None not in heard
    times = [t for t in heard if t is not None]
    assert min(times) > answered, [round((t - answered) * 1e6) for t in times]
