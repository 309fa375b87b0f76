"""Load figures for the lobby server: observer fan-out, paced and saturated action round trips.

Starts `somnium-server` as its own process on 127.0.0.1 with a fresh SQLite file (every action
durable, as shipped), makes users and sessions through the storage layer, and drives it from an
asyncio load generator in this process (raw sockets, so the generator stays cheap):

1. fan-out: N observers stream one game while two players make MOVES moves INTERVAL apart;
   latency = from just before a move is sent to the moment each observer receives its event.
2. paced: M games played at once, paced to RATE actions/s in all; action round-trip latency.
3. saturation: the same games, every player acting again as soon as answered, for a while.

Prints percentiles and the server process's CPU and memory. Loopback only; every loop bounded.

    python benchmarks/server_load.py                      # the targets of docs/targets.md
    python benchmarks/server_load.py --observers 1000 --games 50 --paced-seconds 5   # quicker
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from somnium_server.sessions import issue_session
from somnium_server.sqlite_storage import SQLiteStorage

ID_LINE = re.compile(rb"(?m)^id: (\d+)$")
CLK_TCK = os.sysconf("SC_CLK_TCK")


# -- the server process ------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServerProcess:
    def __init__(self, database: Path, port: int) -> None:
        self.port = port
        self.process = subprocess.Popen(
            [sys.executable, "-m", "somnium_server", "--port", str(port), "--database",
             str(database), "--access-log", "false", "--log-level", "warning",
             "--max-streams", "100000", "--rate-act", "1000000/1", "--rate-create", "1000000/1",
             "--rate-join", "1000000/1", "--keepalive", "15"],
        )

    def cpu_seconds(self) -> float:
        return sum(self.cpu_split())

    def cpu_split(self) -> tuple[float, float]:
        """(user, system) CPU seconds so far."""
        fields_ = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields_[11]) / CLK_TCK, int(fields_[12]) / CLK_TCK  # utime, stime

    def memory_mb(self) -> tuple[float, float]:
        """(resident now, peak resident) in MB."""
        values = {}
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            name, _, rest = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                values[name] = int(rest.split()[0]) / 1024
        return values["VmRSS"], values["VmHWM"]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Meter:
    """CPU use of the server over a phase."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.split0 = server.cpu_split()
        self.cpu0 = sum(self.split0)
        self.own0 = _own_cpu()
        self.wall0 = time.perf_counter()

    def report(self, actions: int = 0, per: str = "action") -> str:
        (user_now, system_now), (user0, system0) = self.server.cpu_split(), self.split0
        user, system = user_now - user0, system_now - system0
        cpu = user + system
        own = _own_cpu() - self.own0
        wall = time.perf_counter() - self.wall0
        rss, peak = self.server.memory_mb()
        per_action = (
            f", {1e6 * cpu / actions:.1f} us of server CPU per {per} (user "
            f"{1e6 * user / actions:.0f} + system {1e6 * system / actions:.0f})"
            if actions else ""
        )
        return (f"server CPU {100 * cpu / wall:.0f}% of one core{per_action}, RSS {rss:.0f} MB "
                f"(peak {peak:.0f} MB); load generator CPU {100 * own / wall:.0f}%")


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- a small HTTP/1.1 keep-alive client --------------------------------------------------------
class Http:
    """One keep-alive connection; requests on it go one at a time."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        self.token = token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        try:
            return await self._request(method, path, body)
        except (asyncio.IncompleteReadError, ConnectionError):
            # the server closed an idle keep-alive connection; a retried action is safe
            # (the action id makes it exactly-once)
            self.close()
            self.writer = None
            return await self._request(method, path, body)

    async def _request(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        payload = b"" if body is None else orjson.dumps(body)
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(payload)}\r\n"
        if payload:
            head += "Content-Type: application/json\r\n"
        if self.token:
            head += f"Authorization: Bearer {self.token}\r\n"
        self.writer.write(head.encode() + b"\r\n" + payload)
        status_line = await self.reader.readuntil(b"\r\n")
        headers = await self.reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in headers.split(b"\r\n"):
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        data = await self.reader.readexactly(length)
        return int(status_line.split()[1]), orjson.loads(data) if data else None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class StreamReader(asyncio.Protocol):
    """A cheap SSE client: notes when each event id first arrives."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.arrived: dict[int, float] = {}
        self.snapshot = asyncio.get_running_loop().create_future()
        self.transport: Any = None
        self.tail = b""

    def connection_made(self, transport: Any) -> None:  # uvloop's are not asyncio.Transport
        self.transport = transport
        transport.write(f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if not self.snapshot.done() and b"event: snapshot" in data:
            self.snapshot.set_result(None)
        chunk = self.tail + data
        self.tail = chunk[-24:]
        for match in ID_LINE.finditer(chunk):
            self.arrived.setdefault(int(match.group(1)), now)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.snapshot.done():
            self.snapshot.set_exception(ConnectionError("stream closed"))


async def open_stream(loop: asyncio.AbstractEventLoop, port: int, path: str) -> StreamReader:
    _, reader = await loop.create_connection(lambda: StreamReader(path), "127.0.0.1", port)
    return reader


# -- the game --------------------------------------------------------------------------------
def choose(view: dict[str, Any]) -> dict[str, Any]:
    """A plausible move from the view's legal list (no rules here: the list is the engine's)."""
    legal: list[dict[str, Any]] = view["legal"]
    steals = [a for a in legal if a["type"] == "steal"]
    if steals:
        return steals[0]
    if len(view["table"]) >= 2 and {"type": "end_turn"} in legal:
        return {"type": "end_turn"}
    return legal[0]


@dataclass
class Table:
    """One game between two benchmark players."""

    port: int
    tokens: tuple[str, str]
    game_id: str = ""
    version: int = 0
    view: dict[str, Any] = field(default_factory=dict)
    clients: tuple[Http, Http] = field(init=False)
    ids: itertools.count[int] = field(default_factory=itertools.count)

    def __post_init__(self) -> None:
        self.clients = (Http(self.port, self.tokens[0]), Http(self.port, self.tokens[1]))

    async def open(self) -> None:
        status, game = await self.clients[0].request(
            "POST", "/games", {"name": "bench", "opponent": "person"}
        )
        assert status == 201, game
        status, game = await self.clients[1].request("POST", f"/games/{game['id']}/join")
        assert status == 200, game
        self.game_id, self.version, self.view = game["id"], game["version"], game["view"]

    async def move(self) -> tuple[float, dict[str, Any]]:
        """One action by the player to move; returns (round trip seconds, answer)."""
        if self.view["over"]:
            await self.open()
        client = self.clients[self.view["turn"]]
        body = {"action_id": f"b{next(self.ids)}", "version": self.version,
                "action": choose(self.view)}
        start = time.perf_counter()
        status, answer = await client.request("POST", f"/games/{self.game_id}/actions", body)
        elapsed = time.perf_counter() - start
        assert status == 200, answer
        self.version, self.view = answer["version"], answer["view"]
        return elapsed, answer

    def close(self) -> None:
        for client in self.clients:
            client.close()


# -- figures -----------------------------------------------------------------------------------
def p99(samples: list[float]) -> float:
    """The 99th percentile, in milliseconds."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000 if ordered else 0.0


def percentiles(samples: list[float]) -> str:
    if not samples:
        return "no samples"
    ordered = sorted(samples)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return (f"p50 {at(0.50):.1f} ms, p90 {at(0.90):.1f} ms, p99 {at(0.99):.1f} ms, "
            f"max {ordered[-1] * 1000:.1f} ms (n={len(ordered)})")


def verdict(what: str, value: float, target: float, unit: str, higher_is_better: bool) -> None:
    """Say whether a figure meets its target (docs/targets.md), and by how much it misses."""
    met = value >= target if higher_is_better else value <= target
    sign = ">=" if higher_is_better else "<="
    if met:
        print(f"TARGET met: {what} {value:.1f} {unit} ({sign} {target:g} {unit})")
    else:
        factor = target / value if higher_is_better and value else value / target
        print(f"TARGET missed: {what} {value:.1f} {unit} (target {sign} {target:g} {unit}; "
              f"{factor:.1f}x off)")


async def make_tokens(database: Path, count: int) -> list[str]:
    storage = SQLiteStorage(database)
    try:
        tokens = []
        for n in range(count):
            user = await storage.create_user(f"bench-{n}")
            tokens.append(await issue_session(storage, user.id, 86400))
        return tokens
    finally:
        await storage.close()


async def wait_up(port: int) -> None:
    for _ in range(300):
        try:
            client = Http(port)
            status, _ = await client.request("GET", "/health")
            client.close()
            if status == 200:
                return
        except OSError:
            pass
        await asyncio.sleep(0.05)
    raise RuntimeError("the server did not start")


async def fan_out(server: ServerProcess, tokens: list[str], args: argparse.Namespace) -> None:
    loop = asyncio.get_running_loop()
    table = Table(server.port, (tokens[0], tokens[1]))
    await table.open()
    print(f"\n== fan-out: {args.observers} observers on one game, {args.moves} moves "
          f"{args.interval * 1000:.0f} ms apart")
    readers: list[StreamReader] = []
    started = time.perf_counter()
    for batch in range(0, args.observers, 500):
        fresh = [
            await open_stream(loop, server.port, f"/games/{table.game_id}/events")
            for _ in range(min(500, args.observers - batch))
        ]
        await asyncio.wait_for(asyncio.gather(*(r.snapshot for r in fresh)), 60)
        readers.extend(fresh)
    print(f"connected {len(readers)} streams in {time.perf_counter() - started:.1f} s")
    await asyncio.sleep(1.0)  # let the observer-count announcements settle
    meter = Meter(server)
    sent: list[tuple[int, float]] = []
    round_trips = []
    for _ in range(args.moves):
        tick = time.perf_counter()
        elapsed, answer = await table.move()
        round_trips.append(elapsed)
        sent.append((answer["events"][0]["seq"], tick))
        await asyncio.sleep(max(0.0, args.interval - (time.perf_counter() - tick)))
    await asyncio.sleep(2.0)
    latencies, missing = [], 0
    for seq, tick in sent:
        for reader in readers:
            arrived = reader.arrived.get(seq)
            if arrived is None:
                missing += 1
            else:
                latencies.append(arrived - tick)
    print(f"move -> observer: {percentiles(latencies)}; not delivered: {missing}")
    if args.observers >= 10_000:
        verdict(f"p99 move -> observer at {args.observers} observers", p99(latencies), 500,
                "ms", higher_is_better=False)
    print(f"mover's round trip: {percentiles(round_trips)}")
    print(meter.report(len(latencies), per="move delivered to an observer"))
    for reader in readers:
        if reader.transport is not None:
            reader.transport.close()
    table.close()
    await asyncio.sleep(1.0)


async def paced(server: ServerProcess, tokens: list[str], args: argparse.Namespace) -> None:
    tables = [Table(server.port, (tokens[2 * n], tokens[2 * n + 1])) for n in range(args.games)]
    await asyncio.gather(*(t.open() for t in tables))
    listeners = []
    loop = asyncio.get_running_loop()
    if args.listen:
        for t in tables:
            for _ in range(2):  # each player also follows the game's stream
                listeners.append(
                    await open_stream(loop, server.port, f"/games/{t.game_id}/events")
                )
        await asyncio.gather(*(r.snapshot for r in listeners))
    period = args.games / args.rate  # each table moves once per period
    print(f"\n== paced: {args.games} games, {args.rate} actions/s in all "
          f"({1 / period:.1f}/s per game) for {args.paced_seconds} s"
          f"{', players following the streams' if args.listen else ''}")
    round_trips: list[float] = []
    meter = Meter(server)
    start = time.perf_counter()
    deadline = start + args.paced_seconds

    async def drive(n: int, table: Table) -> None:
        next_at = start + period * n / len(tables)
        while True:
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            if time.perf_counter() >= deadline:
                return
            elapsed, _ = await table.move()
            round_trips.append(elapsed)
            next_at += period

    await asyncio.gather(*(drive(n, t) for n, t in enumerate(tables)))
    wall = time.perf_counter() - start
    print(f"achieved {len(round_trips) / wall:.0f} actions/s")
    print(f"action round trip: {percentiles(round_trips)}")
    if args.games >= 200 and args.rate >= 1000:
        verdict("paced round trip p99", p99(round_trips), 10, "ms", higher_is_better=False)
    print(meter.report(len(round_trips)))

    print(f"\n== saturation: the same {args.games} games, each player acting again as soon "
          f"as answered, for {args.saturation_seconds} s")
    round_trips = []
    meter = Meter(server)
    start = time.perf_counter()
    deadline = start + args.saturation_seconds

    async def hammer(table: Table) -> None:
        while time.perf_counter() < deadline:
            elapsed, _ = await table.move()
            round_trips.append(elapsed)

    await asyncio.gather(*(hammer(t) for t in tables))
    wall = time.perf_counter() - start
    print(f"saturation: {len(round_trips) / wall:.0f} actions/s")
    print(f"action round trip: {percentiles(round_trips)}")
    verdict("saturation", len(round_trips) / wall, 3000, "actions/s", higher_is_better=True)
    print(meter.report(len(round_trips)))
    for reader in listeners:
        if reader.transport is not None:
            reader.transport.close()
    for t in tables:
        t.close()


async def main(args: argparse.Namespace) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="somnium-bench-"))
    database = workdir / "bench.sqlite3"
    try:
        tokens = await make_tokens(database, max(2, 2 * args.games))
        server = ServerProcess(database, free_port())
        try:
            await wait_up(server.port)
            print(f"server pid {server.process.pid}, SQLite (WAL) at {database}; "
                  f"{os.cpu_count()} cores shared with this load generator; load average "
                  f"before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
            if args.observers:
                await fan_out(server, tokens, args)
            if args.games:
                await paced(server, tokens, args)
        finally:
            server.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--observers", type=int, default=10_000)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between moves")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rate", type=float, default=1000, help="paced actions/s in all")
    parser.add_argument("--paced-seconds", type=float, default=10)
    parser.add_argument("--saturation-seconds", type=float, default=10)
    parser.add_argument("--no-listen", dest="listen", action="store_false",
                        help="players do not follow their games' streams")
    return parser.parse_args()


if __name__ == "__main__":
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    arguments = parse()
    try:
        import uvloop

        uvloop.run(main(arguments))
    except ImportError:
        asyncio.run(main(arguments))
