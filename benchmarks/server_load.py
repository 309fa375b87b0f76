"""Load figures for the lobby server, measured the way players play.

Every game's two players keep their event streams open for the game's whole life, rematches
included; the one to move acts only once its own stream shows the previous action, against the
version it shows. Scenarios, each a window of time that includes game ends and rematches:

1. paced: GAMES games (at every stage, after a random warm-up) paced to RATE actions/s in all;
   with --analyses-per-second N, paced again while N finished games' analyses are asked for
   each second (the round trip with and without them, in the same run);
2. saturation: the same games, each move made as soon as the mover's stream allows;
3. observers: OBSERVERS streams watching OBSERVED_GAMES games (following their rematches)
   while their players move every OBSERVER_INTERVAL seconds.

For each: the achieved actions/s, the mover's round trip (request to answer), the delay from
the request to the action's event on the mover's own stream and on the other streams (the
opponent's, or the observers'), events never delivered, games ended and rematches, and the CPU
time of the server processes (and of PostgreSQL's, given its pid or cluster) per action, from
/proc. One table at the end. The load generator's own pauses are part of every delay it times:
it collects no cyclic garbage while a phase is measured (a collection of its heap took up to
120 ms), and the table shows how late its event loop ran (p99).

By default it starts this checkout's `somnium-server` as a process of its own on 127.0.0.1
(uvicorn, a fresh SQLite file in a temp directory, local accounts for the players' sign-in, the
limits raised); `--server URL` (repeatable) loads running servers instead: they must listen on a
loopback address and offer local accounts with generous limits. With several servers or
`--instances N`, a table's player A uses one instance and player B the next. Every phase is
bounded in time; requests go to loopback addresses only.

    python -m benchmarks.server_load          # 200 games at 1,000/s, saturation, 1,000 observers
    python -m benchmarks.server_load --observers 10000 --games 0
    python -m benchmarks.server_load --games 20 --rate 100 --paced-seconds 5 --observers 100
    python -m benchmarks.server_load --analyses-per-second 2 --observers 0
    python -m benchmarks.server_load --database-url postgresql://bench@127.0.0.1:5432/bench \\
        --instances 2 --database-cluster /tmp/pg     # with PostgreSQL's CPU counted
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

import aiohttp

from benchmarks.loadgen.client import raise_file_limit, session
from benchmarks.loadgen.figures import table
from benchmarks.loadgen.scenarios import Bench
from benchmarks.loadgen.servers import (
    BenchError,
    CpuSource,
    ServerProcesses,
    listening_pid,
    loopback_base,
    peak_memory_mb,
    postgres_pid,
)


async def wait_up(http: aiohttp.ClientSession, bases: list[str],
                  servers: ServerProcesses | None) -> None:
    for base in bases:
        for _ in range(600):
            if servers is not None:
                servers.check_alive()
            try:
                async with http.get(f"{base}/health") as answer:
                    if answer.status == 200:
                        break
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.05)
        else:
            raise BenchError(f"{base} did not answer /health within 30 s")


def cpu_sources(args: argparse.Namespace, bases: list[str],
                servers: ServerProcesses | None) -> list[CpuSource]:
    if servers is not None:
        sources = [servers.cpu()]
    else:
        pids = args.server_pid or [
            pid for base in bases
            if (pid := listening_pid(int(base.rsplit(":", 1)[1]))) is not None
        ]
        sources = [CpuSource("server", pids)] if pids else []
    database = postgres_pid(args.database_pid, args.database_cluster)
    if database is not None:
        sources.append(CpuSource("database", [database], with_children=True))
    return sources


async def main(args: argparse.Namespace) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="somnium-bench-"))
    servers = None
    try:
        if args.server:
            bases = [loopback_base(url) for url in args.server]
        else:
            database = None if args.database_url else workdir / "bench.sqlite3"
            servers = ServerProcesses(args.instances, database, args.database_url)
            bases = servers.bases
        sources = cpu_sources(args, bases, servers)
        async with session() as http:
            await wait_up(http, bases, servers)
            storage = ("PostgreSQL" if args.database_url else
                       "SQLite (WAL) in a temp dir" if servers is not None else "theirs")
            pids = ", ".join(f"{s.name} {' '.join(map(str, s.pids))}" for s in sources)
            print(f"servers: {' '.join(bases)} (pids: {pids or 'unknown: no CPU figures'}); "
                  f"storage: {storage}; {os.cpu_count()} cores shared with this load "
                  f"generator; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
                  flush=True)
            bench = Bench(bases, sources, args)
            rows = []
            try:
                if args.games:
                    rows += await bench.games()
                if args.observers:
                    rows.append(await bench.observers())
            finally:
                await bench.close()
            servers_cpu = [s for s in sources if s.name == "server"]
            memory = peak_memory_mb(servers_cpu[0].pids) if servers_cpu else 0.0
        print()
        print(table(rows))
        if memory:
            print(f"\nthe server processes' peak resident memory: {memory:.0f} MB")
        if bench.asked is not None:
            print(bench.asked.line(args.analyses_per_second))
        print("\nround trip: request to answer; own stream: request to the action's event on "
              "the mover's stream;\nother streams: to the opponent's (players' rows) or every "
              "observer's; lost: events a stream never showed;\ngenerator late: how late the load "
              "generator's own event loop ran (p99), a part of any delay it measures;\n"
              "CPU: user + system time of the server processes (and the database's) from "
              "/proc, per action; the load generator's\nshare of a core counts this process and "
              "the observers' process.\n"
              f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if servers is not None:
            servers.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _bounded(low: float, high: float, kind: Callable[[str], float] = float
             ) -> Callable[[str], float]:
    def convert(text: str) -> float:
        value = kind(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is not within {low:g}..{high:g}")
        return value

    return convert


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.server_load", description=(__doc__ or "").split("\n\n")[0]
    )
    add = parser.add_argument
    add("--games", type=_bounded(0, 5000, int), default=200, help="tables in play (default 200)")
    add("--rate", type=_bounded(0.1, 100_000), default=1000,
        help="paced actions/s over all games (default 1000)")
    add("--paced-seconds", type=_bounded(0.5, 600), default=20)
    add("--saturation-seconds", type=_bounded(0, 600), default=10,
        help="0: no saturation scenario")
    add("--spread", type=_bounded(0, 80, int), default=48,
        help="each table first makes a random number of actions below this, unmeasured, so "
             "that games are at every stage (default 48)")
    add("--analyses-per-second", type=_bounded(0, 100), default=0,
        help="after the paced scenario, run it again while asking for this many analyses of "
             "finished games a second (GET /games/{id}/analysis, each game once), for the "
             "action round trip with and without them (default 0: not run)")
    add("--observers", type=_bounded(0, 50_000, int), default=1000,
        help="observer streams (default 1000; 0: no observer scenario)")
    add("--observed-games", type=_bounded(1, 1000, int), default=1,
        help="games the observers are split over (default 1)")
    add("--observer-interval", type=_bounded(0.01, 10), default=0.2,
        help="seconds between moves of a watched game (default 0.2)")
    add("--observer-seconds", type=_bounded(0.5, 600), default=10)
    add("--lobby-streams", action="store_true",
        help="each player also keeps a signed lobby stream open, as the app does (every turn "
             "passed is then an event to every player)")
    add("--server", action="append", default=[], metavar="URL",
        help="load this running server (http://127.0.0.1:PORT) instead of starting one; "
             "repeat for several instances")
    add("--server-pid", action="append", type=int, default=[], metavar="PID",
        help="with --server: its process, for CPU figures (found by its port when possible)")
    add("--instances", type=_bounded(1, 16, int), default=1,
        help="server instances to start on one database (needs --database-url)")
    add("--placement", choices=("across", "together"), default="across",
        help="with several servers: a table's two players on different ones (across, "
             "the default: every action is heard by the other) or both on the same one "
             "(together: each table lives on one server)")
    add("--database-url", default=None,
        help="passed to the servers started: a postgresql:// URL instead of a SQLite file")
    add("--database-pid", type=int, default=None,
        help="the PostgreSQL postmaster's pid: its CPU (and its backends') counts as the "
             "database's")
    add("--database-cluster", type=Path, default=None,
        help="the PostgreSQL data directory: its postmaster.pid gives --database-pid")
    add("--max-actions", type=_bounded(1, 10_000_000, int), default=1_000_000,
        help="no scenario's players make more actions than this (default 1,000,000)")
    add("--seed", type=int, default=21, help="seeds the warm-up lengths")
    args = parser.parse_args(argv)
    if args.server and (args.instances > 1 or args.database_url):
        parser.error("--instances and --database-url are for the servers the benchmark "
                     "starts, not with --server")
    if args.games == 0 and args.observers == 0:
        parser.error("nothing to do: --games and --observers are both 0")
    return args


def entry() -> None:
    arguments = parse()
    raise_file_limit()
    runner: Callable[[Coroutine[Any, Any, None]], None] = asyncio.run
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:
        pass
    try:
        runner(main(arguments))
    except BenchError as error:
        sys.exit(f"server_load: {error}")


if __name__ == "__main__":
    entry()
