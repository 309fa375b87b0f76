"""The lobby server's own CPU per action, in process: no sockets, no load generator.

Builds the app on a fresh SQLite file, opens GAMES games between pairs of users (two listeners on
each game's stream, buffering), then in each round every game's player to move posts an action
at once (so writes share commits as under load), and prints the CPU per action over the rounds.
Actions are posted through the app's ASGI entry (no HTTP). With `--listeners 0 10000`, one
game followed by that many streams instead: the time from an action's call to its answer, and
from the answer to its delivery to every listener. The machine's other jobs sway CPU time;
for a figure that does not move with them, count instructions (run twice, the difference
divided by 8 x GAMES):

    python -m benchmarks.server_app --rounds 2  --games 100   # under valgrind --tool=callgrind
    python -m benchmarks.server_app --rounds 10 --games 100
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
from fastapi import FastAPI

from somnium_server.api.models import PersonOpponent
from somnium_server.app import create_app
from somnium_server.cli import collect_less
from somnium_server.config import RateLimit, Settings
from somnium_server.context import ServerContext
from somnium_server.live.events import Subscriber
from somnium_server.signin.sessions import issue_session

from .loadgen.players import choose

UNLIMITED = RateLimit(1_000_000, 1)


class Table:
    """One game between two users, played through the app's ASGI entry."""

    def __init__(self, ctx: ServerContext, listeners: int = 2) -> None:
        self.ctx = ctx
        self.listeners = listeners  # streams following the game (buffering only)
        self.answered = 0.0  # time.perf_counter() when the last answer's body was sent
        self.tokens: list[str] = []
        self.game_id = ""
        self.version = 0
        self.view: dict[str, Any] = {}
        self.moves = 0

    async def open(self) -> None:
        storage, games = self.ctx.storage, self.ctx.games
        users = [await storage.create_user(f"bench-{n}") for n in range(2)]
        self.tokens = [await issue_session(storage, user.id, 86400) for user in users]
        room = await games.create(users[0], PersonOpponent(name="bench", opponent="person"))
        room = await games.join(users[1], room.id)
        for _ in range(self.listeners):  # both players (and observers) follow the game
            room.channel.add(Subscriber())
        self.game_id, self.version, self.view = room.id, room.version, room.view()

    async def move(self, app: Any) -> None:
        if self.view["over"]:
            await self.open()
        body = orjson.dumps({"action_id": f"a{self.moves}", "version": self.version,
                             "action": choose(self.view)})
        self.moves += 1
        seat = self.view["turn"]
        status, answer = await self._called(app, seat, body)
        assert status == 200, answer
        self.version, self.view = answer["version"], answer["view"]

    async def _called(self, app: Any, seat: int, body: bytes) -> tuple[int, Any]:
        path = f"/games/{self.game_id}/actions"
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": "", "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
            "headers": [(b"host", b"127.0.0.1"), (b"content-length", b"%d" % len(body)),
                        (b"content-type", b"application/json"),
                        (b"authorization", f"Bearer {self.tokens[seat]}".encode())],
        }
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)
            if message["type"] == "http.response.body":
                self.answered = time.perf_counter()

        await app(scope, receive, send)
        return sent[0]["status"], orjson.loads(sent[-1]["body"])


@contextlib.contextmanager
def bench_app() -> Iterator[FastAPI]:
    """The app on a fresh SQLite file in a temporary folder, without rate limits."""
    workdir = Path(tempfile.mkdtemp(prefix="somnium-app-bench-"))
    try:
        yield create_app(Settings(
            database=workdir / "bench.sqlite3", rate_act=UNLIMITED, rate_create=UNLIMITED,
            rate_join=UNLIMITED, access_log=False, log_level="warning",
        ))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


async def run(games: int, rounds: int) -> list[float]:
    with bench_app() as app:
        ctx: ServerContext = app.state.ctx
        async with app.router.lifespan_context(app):
            tables = [Table(ctx) for _ in range(games)]
            for table in tables:
                await table.open()
            per_action = []
            for _ in range(rounds):
                for room in ctx.games.rooms.values():
                    for subscriber in room.channel.subscribers:
                        subscriber.buffer.clear()
                start = time.thread_time()
                await asyncio.gather(*(table.move(app) for table in tables))
                per_action.append((time.thread_time() - start) / games * 1e6)
            return per_action


async def answer_and_delivery(listeners: int, actions: int) -> tuple[list[float], list[float]]:
    """One game followed by `listeners` streams, `actions` actions one after another: for
    each, seconds from the call to its answer's body being sent, and from the answer to the
    delivery to every listener done (slice by slice, over the loop's next turns)."""
    with bench_app() as app:
        ctx: ServerContext = app.state.ctx
        answers, deliveries = [], []
        async with app.router.lifespan_context(app):
            table = Table(ctx, listeners)
            await table.open()
            [room] = ctx.games.rooms.values()
            for _ in range(actions):
                if table.view["over"]:
                    break
                start = time.perf_counter()
                await table.move(app)
                answers.append(table.answered - start)
                while room.channel.pending or room.channel.rest or room.channel.crowd:  # by slices
                    await asyncio.sleep(0)
                deliveries.append(time.perf_counter() - table.answered)
                assert all(subscriber.buffer for subscriber in room.channel.subscribers)
                for subscriber in room.channel.subscribers:
                    subscriber.buffer.clear()
        return answers, deliveries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--listeners", type=int, nargs="+", metavar="N",
                        help="instead: one game followed by N streams, its actions one by one: "
                             "time to the answer and to the delivery, for each N")
    args = parser.parse_args()
    collect_less()  # the garbage collector set as `somnium-server` sets it
    if args.listeners:
        for count in args.listeners:
            answers, deliveries = asyncio.run(answer_and_delivery(count, 40))
            print(f"{count:6d} listeners: answer p50 {statistics.median(answers) * 1e6:.0f} us"
                  f" (min {min(answers) * 1e6:.0f}); then delivery to all p50 "
                  f"{statistics.median(deliveries) * 1e6:.0f} us")
        return
    try:
        import uvloop

        per_action = uvloop.run(run(args.games, args.rounds))
    except ImportError:
        per_action = asyncio.run(run(args.games, args.rounds))
    ordered = sorted(per_action)
    print(f"{args.games} games x {args.rounds} rounds: CPU per action "
          f"min {ordered[0]:.0f} us, median {statistics.median(ordered):.0f} us "
          f"(the least disturbed rounds say most)")


if __name__ == "__main__":
    main()
