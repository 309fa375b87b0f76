"""What finished games cost a server that holds them: memory per game and start time.

Plays GAMES games to the end through the server's own game service (in process, on a fresh
SQLite file: two people at each table, the moves chosen from the public view as the load
benchmark's players choose them), then starts a real `somnium-server` on that file and on an
empty one, reads each process's resident memory (VmRSS in /proc/PID/status) once it answers
the lobby, and prints the difference per finished game and the start time (spawn to the
lobby's first answer). `--keep DIR` keeps the databases there and plays only those missing,
so that another checkout's server can be measured on the same games (`--source CHECKOUT`):

    python -m benchmarks.rooms_memory --games 1000 10000 --keep /tmp/rooms
    python -m benchmarks.rooms_memory --games 1000 10000 --keep /tmp/rooms --source ../main
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from somnium_server.api.models import ActRequest, PersonOpponent
from somnium_server.app import create_app
from somnium_server.cli import collect_less
from somnium_server.config import Settings
from somnium_server.context import ServerContext
from somnium_server.storage import User

from .loadgen.players import choose
from .loadgen.servers import free_port
from .server_app import UNLIMITED

ROOT = Path(__file__).resolve().parent.parent
AT_ONCE = 50  # tables played at the same time (their commits shared, as under load)
PLAYERS = 40  # people taking turns at the tables


async def play_one(ctx: ServerContext, host: User, guest: User, number: int) -> None:
    """One game between two people, from the creation to its end."""
    games = ctx.games
    room = await games.create(host, PersonOpponent(name=f"bench {number}", opponent="person"))
    room = await games.join(guest, room.id)
    people = {0: host, 1: guest}
    moves = 0
    while room.status != "finished":
        view = room.view()
        request = ActRequest.model_validate({
            "action_id": f"a{moves}", "version": room.version, "action": choose(view)})
        await games.act(people[view["turn"]], room.id, request)
        moves += 1


def opponent(n: int) -> int:
    """How far along the players game `n`'s guest sits from its host (never 0: not alone)."""
    return 1 + (n // PLAYERS) % (PLAYERS - 1)


async def play(database: Path, count: int) -> None:
    """`count` finished games stored in `database` (made anew) by the server's own code."""
    app = create_app(Settings(
        database=database, rate_act=UNLIMITED, rate_create=UNLIMITED, rate_join=UNLIMITED,
        access_log=False, log_level="warning",
    ))
    ctx: ServerContext = app.state.ctx
    ctx.games.history_grace = 0.0  # (as the tests do: each game's history let go at its end)
    async with app.router.lifespan_context(app):
        people = [await ctx.storage.create_user(f"bench-{n}") for n in range(PLAYERS)]
        for start in range(0, count, AT_ONCE):
            await asyncio.gather(*(
                play_one(ctx, people[n % PLAYERS], people[(n + opponent(n)) % PLAYERS], n)
                for n in range(start, min(count, start + AT_ONCE))
            ))


def database_of(folder: Path, count: int) -> Path:
    """The database of `count` finished games in `folder`, played first if it is missing."""
    path = folder / f"games-{count}.sqlite3"
    if not path.exists():
        started = time.perf_counter()
        partial = folder / f"games-{count}.partial.sqlite3"
        for leftover in folder.glob(f"games-{count}.partial.sqlite3*"):
            leftover.unlink()
        asyncio.run(play(partial, count))
        partial.rename(path)
        print(f"played {count} games in {time.perf_counter() - started:.0f} s: {path}",
              flush=True)
    return path


def resident_kib(pid: int) -> int:
    """The process's resident memory (VmRSS), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def start_server(database: Path, source: Path) -> tuple[float, int]:
    """Start `source`'s somnium-server on `database`: seconds from spawn to the lobby's
    first answer, and its resident memory then (KiB)."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(source / "server"), str(source)])}
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "somnium_server", "--host", "127.0.0.1", "--port", str(port),
         "--database", str(database), "--access-log", "false", "--log-level", "warning"],
        env=env, cwd=source,
    )
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited with status {process.returncode}")
            try:
                if requests.get(f"http://127.0.0.1:{port}/games?limit=1", timeout=60).ok:
                    break
            except requests.ConnectionError:
                time.sleep(0.01)
        seconds = time.perf_counter() - started
        time.sleep(0.5)  # (what start-up set going settles: gc.freeze, the first ticks)
        return seconds, resident_kib(process.pid)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def measured(database: Path, source: Path, runs: int) -> tuple[float, float]:
    """Median start seconds and median resident KiB over `runs` starts."""
    figures = [start_server(database, source) for _ in range(runs)]
    return (statistics.median(s for s, _ in figures),
            statistics.median(float(k) for _, k in figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1000, 10000], metavar="N")
    parser.add_argument("--runs", type=int, default=3, help="starts of each server (median)")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep the databases here (and reuse those already played)")
    parser.add_argument("--source", type=Path, default=ROOT, metavar="CHECKOUT",
                        help="the checkout whose server is started (default: this one)")
    args = parser.parse_args()
    collect_less()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="somnium-rooms-"))
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # (the server checks)
    source = args.source.resolve()
    try:
        databases = {count: database_of(folder, count) for count in [0, *args.games]}
        empty_start, empty_kib = measured(databases[0], source, args.runs)
        print(f"server of {source}, medians of {args.runs} starts")
        print(f"empty database: start {empty_start * 1000:.0f} ms, "
              f"resident {empty_kib / 1024:.1f} MiB")
        for count in args.games:
            start, kib = measured(databases[count], source, args.runs)
            per_game = (kib - empty_kib) * 1024 / count
            print(f"{count} finished games: start {start * 1000:.0f} ms "
                  f"({(start - empty_start) * 1000:+.0f} ms), resident {kib / 1024:.1f} MiB "
                  f"({(kib - empty_kib) / 1024:+.1f} MiB): {per_game:,.0f} bytes a game")
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
