"""The mover's round trip with and without a crowd watching: does the answer wait for fan-out?

Run from a checkout:  .venv/bin/python -m benchmarks.mover_observers [--observers 0 1000 3000]

For each crowd size a fresh `somnium-server` process (SQLite in a temp dir, access log off) gets
one game between two people; OBSERVERS event streams watch it from a process of their own (the
crowd), and each player follows their own stream. Then the players act as people do: the one
whose turn it is posts an action on a kept-alive connection, and acts again once their own
stream has shown the answer's last event and the whole crowd has it too (so that each action
is measured alone). For each action it records the mover's round trip, from the request
written to the answer's arrival at the mover's socket by the kernel's receive time (so the
mover process's own wait for a core is left out), and when the first and the last observer
read the action's events, counted from that arrival.
Every observer must see every event once, in order. Server, mover and crowd share this
machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.ranks import percentile
from somnium_server.signin.sessions import issue_session
from somnium_server.storage.sqlite import SQLiteStorage

EVENT_ID = re.compile(rb"^id: (\d+)$", re.M)


async def make_tokens(database: Path, count: int) -> list[str]:
    """Sessions for `count` new users, made through the storage layer before the server starts."""
    storage = SQLiteStorage(database)
    try:
        tokens = []
        for n in range(count):
            user = await storage.create_user(f"bench-{n}")
            tokens.append(await issue_session(storage, user.id, 86400))
        return tokens
    finally:
        await storage.close()


@dataclass
class Watcher:
    """One event stream of a game, read in the background; keeps every event id in order."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    ids: list[int] = field(default_factory=list)
    arrived: float = 0.0  # time.time() when the newest id came
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    async def _read(self) -> None:
        pending = b""
        try:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    return
                pending += data
                # chunked framing: the size lines never look like "id: N"
                *whole, pending = pending.split(b"\n\n")
                now = time.time()
                for message in whole:
                    for match in EVENT_ID.finditer(message):
                        self.ids.append(int(match.group(1)))
                        self.arrived = now
                self.changed.set()
        except (ConnectionError, asyncio.CancelledError):
            return

    async def until(self, seq: int) -> None:
        while not self.ids or self.ids[-1] < seq:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 30)

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.writer.close()


async def watch(port: int, game_id: str, token: str | None = None) -> Watcher:
    """A stream of the game, open once its snapshot has come."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    writer.write(f"GET /games/{game_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}\r\n"
                 .encode())
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"the stream was refused: {head!r}")
    await reader.readuntil(b"event: snapshot\n")
    watcher = Watcher(reader, writer)
    watcher.task = asyncio.get_running_loop().create_task(watcher._read())
    return watcher


SO_TIMESTAMPNS = 35  # Linux, socket(7): the kernel's receive time of each packet


class Http:
    """One kept-alive HTTP/1.1 connection: a request and its JSON answer at a time, timed by
    the kernel: `ask` says when the answer's first packet reached this machine's socket
    (time.time() scale), whenever this process got to read it."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    @classmethod
    async def open(cls, port: int) -> Http:
        sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        return cls(sock)

    async def ask(
        self, method: str, path: str, token: str, body: Any = None
    ) -> tuple[int, Any, float, float]:
        """(status, JSON answer, when the request was sent, when the answer came)."""
        data = b"" if body is None else json.dumps(body).encode()
        request = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        return await asyncio.get_running_loop().run_in_executor(None, self._exchange, request)

    def _exchange(self, request: bytes) -> tuple[int, Any, float, float]:
        sent = time.time()
        self.sock.sendall(request)
        data, came = b"", 0.0
        length: int | None = None
        while length is None or len(data.partition(b"\r\n\r\n")[2]) < length:
            chunk, ancillary, _, _ = self.sock.recvmsg(65536, 64)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            for level, kind, stamp in ancillary:
                if not came and level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    seconds, nanoseconds = struct.unpack("qq", stamp[:16])
                    came = seconds + nanoseconds / 1e9
            data += chunk
            head = data.partition(b"\r\n\r\n")[0]
            found = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
            if found is not None and b"\r\n\r\n" in data:
                length = int(found.group(1))
        assert length is not None
        body = data.partition(b"\r\n\r\n")[2][:length]
        return int(data[9:12]), json.loads(body), sent, came or time.time()

    def close(self) -> None:
        self.sock.close()


def choose(view: dict[str, Any]) -> dict[str, Any]:
    """Draw while the table holds fewer than two cards, else bank (the game lasts)."""
    legal: list[dict[str, Any]] = view["legal"]
    kinds = {action["type"]: action for action in legal}
    if "steal" in kinds:
        return kinds["steal"]
    if "draw" in kinds and (len(view["table"]) < 2 or "end_turn" not in kinds):
        return kinds["draw"]
    return kinds.get("end_turn", legal[0])


@dataclass
class Figures:
    observers: int
    round_trips: list[float]  # seconds, one per action
    ahead: list[float]  # seconds from the mover having the answer to the first observer
    fan_out: list[float]  # seconds from the answer to the last observer having the event
    events: int  # events each observer saw

    def line(self) -> str:
        def ms(values: list[float], q: float) -> float:
            return 1000 * percentile(values, q)

        spread = (f"; answer -> first observer min {ms(self.ahead, 0.0):.2f} ms, p50 "
                  f"{ms(self.ahead, 0.5):.2f} ms; answer -> last observer p50 "
                  f"{ms(self.fan_out, 0.5):.1f} ms, max {ms(self.fan_out, 1.0):.1f} ms"
                  if self.fan_out else "")
        return (f"{self.observers:5d} observers, {len(self.round_trips)} actions: mover round "
                f"trip p50 {ms(self.round_trips, 0.5):.2f} ms, p90 {ms(self.round_trips, 0.9):.2f}"
                f" ms, max {ms(self.round_trips, 1.0):.2f} ms{spread}")


async def open_crowd(port: int, game_id: str, count: int, batch: int = 200) -> list[Watcher]:
    crowd: list[Watcher] = []
    for start in range(0, count, batch):  # a few hundred connections at a time
        crowd += await asyncio.gather(
            *(watch(port, game_id) for _ in range(min(batch, count - start)))
        )
    return crowd


async def crowd_main(port: int, game_id: str, count: int) -> None:
    """The crowd process: `count` streams of the game. It prints `ready`, then `<seq> <first>
    <last>` each time every stream has the events up to seq (time.time() of the first and
    the last stream's newest arrival),
    and once its standard input closes, `ok <events>` if each stream saw each event once in
    order (else `bad ...`)."""
    crowd = await open_crowd(port, game_id, count)
    first = min((w.ids[0] for w in crowd if w.ids), default=None)
    changed = asyncio.Event()  # one for the whole crowd: set by any stream's new events
    for watcher in crowd:
        watcher.changed = changed
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    done = loop.run_in_executor(None, sys.stdin.read)
    done.add_done_callback(lambda _: changed.set())
    told = 0
    while not done.done():
        await changed.wait()
        changed.clear()
        reached = min((w.ids[-1] if w.ids else 0) for w in crowd)
        if reached > told:
            arrivals = [w.arrived for w in crowd]
            print(f"{reached} {min(arrivals)} {max(arrivals)}", flush=True)
            told = reached
    await done
    ids = [w.ids for w in crowd]
    start = min((i[0] for i in ids if i), default=first or 0)
    if all(i == list(range(start, told + 1)) for i in ids):
        print(f"ok {told - start + 1 if told else 0}", flush=True)
    else:
        print(f"bad {[i[:10] for i in ids if i != list(range(start, told + 1))][:3]}",
              flush=True)
    for watcher in crowd:
        watcher.close()


class Crowd:
    """The crowd process seen from the mover's side."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.reached = 0
        self.at = (0.0, 0.0)

    @classmethod
    async def start(cls, port: int, game_id: str, count: int) -> Crowd:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.mover_observers", "--crowd", str(port), game_id,
            str(count), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )
        crowd = cls(process)
        assert await crowd._line() == "ready"
        return crowd

    async def _line(self) -> str:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), 60)
        assert line, "the crowd process ended"
        return line.decode().strip()

    async def until(self, seq: int) -> tuple[float, float]:
        """When (time.time()) the first and the last of the crowd had the events up to
        `seq`."""
        while self.reached < seq:
            reached, first, last = (await self._line()).split()
            self.reached, self.at = int(reached), (float(first), float(last))
        return self.at

    async def verdict(self) -> str:
        assert self.process.stdin is not None
        self.process.stdin.close()
        line = await self._line()
        while not line.startswith(("ok", "bad")):
            line = await self._line()
        await self.process.wait()
        return line


async def play(port: int, tokens: list[str], observers: int, actions: int) -> Figures:
    """One game watched by `observers` streams, played for up to `actions` actions."""
    players = [await Http.open(port) for _ in tokens]
    status, game, _, _ = await players[0].ask("POST", "/games", tokens[0],
                                              {"name": "Watched", "opponent": "person"})
    assert status == 201, game
    status, game, _, _ = await players[1].ask("POST", f"/games/{game['id']}/join", tokens[1])
    assert status == 200, game
    game_id, version, view, first = game["id"], game["version"], game["view"], game["seq"]
    own = [await watch(port, game_id, token) for token in tokens]
    crowd = await Crowd.start(port, game_id, observers) if observers else None
    for player in players:  # fresh connections: the crowd may take longer than a keep-alive
        player.close()
    players = [await Http.open(port) for _ in tokens]
    round_trips: list[float] = []
    ahead: list[float] = []
    fan_out: list[float] = []
    last = first
    try:
        for n in range(actions):
            if view["over"]:
                break
            seat = view["turn"]
            body = {"action_id": f"m{n}", "version": version, "action": choose(view)}
            status, answer, sent, answered = await players[seat].ask(
                "POST", f"/games/{game_id}/actions", tokens[seat], body
            )
            assert status == 200, answer
            round_trips.append(answered - sent)
            version, view, last = answer["version"], answer["view"], answer["seq"]
            await own[seat].until(last)  # the mover acts on what its stream shows
            if crowd is not None:
                first_seen, last_seen = await crowd.until(last)
                ahead.append(first_seen - answered)
                fan_out.append(last_seen - answered)
        for watcher in own:  # each event once, in order, none missing
            await watcher.until(last)  # (the other player's may still be on its way)
            assert watcher.ids == list(range(first + 1, last + 1)), (first, last, watcher.ids)
        if crowd is not None:
            verdict = await crowd.verdict()
            assert verdict == f"ok {last - first}", verdict
            crowd = None
    finally:
        if crowd is not None:
            crowd.process.kill()
            await crowd.process.wait()
        for watcher in own:
            watcher.close()
        for player in players:
            player.close()
    return Figures(observers, round_trips, ahead, fan_out, last - first)


def serve(database: Path, port: int, max_streams: int) -> subprocess.Popen[bytes]:
    """A somnium-server process, as a host runs it (save for the generous limits)."""
    return subprocess.Popen(
        [sys.executable, "-m", "somnium_server", "--host", "127.0.0.1", "--port", str(port),
         "--database", str(database), "--access-log", "false", "--log-level", "warning",
         "--max-streams", str(max_streams), "--rate-act", "100000/1",
         "--rate-join", "100000/1", "--rate-create", "100000/1"],
    )


async def wait_listening(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def measure(observers: int, actions: int, port: int) -> Figures:
    workdir = Path(tempfile.mkdtemp(prefix="somnium-mover-"))
    server = None
    try:
        database = workdir / "bench.sqlite3"
        tokens = await make_tokens(database, 2)
        server = serve(database, port, observers + 16)
        await wait_listening(port)
        return await play(port, tokens, observers, actions)
    finally:
        if server is not None:
            server.terminate()
            server.wait(30)
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--observers", type=int, nargs="+", default=[0, 1000])
    parser.add_argument("--actions", type=int, default=60, help="at most, in one game")
    parser.add_argument("--port", type=int, default=18765)
    parser.add_argument("--crowd", nargs=3, metavar=("PORT", "GAME", "COUNT"),
                        help="(run by the benchmark itself: the crowd's process)")
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.crowd:
        port, game_id, count = args.crowd
        asyncio.run(crowd_main(int(port), game_id, int(count)))
        return
    print(f"{os.cpu_count()} cores; client and server on this machine")
    for count in args.observers:
        figures = asyncio.run(measure(count, args.actions, args.port))
        print(figures.line(), flush=True)


if __name__ == "__main__":
    main()
