"""PostgreSQL drivers on the action path: psycopg 3 (with psycopg-pool) against asyncpg.

Run from a checkout:  .venv/bin/python -m benchmarks.pg_drivers

Each commit is what the server writes for one action: an UPDATE of the game's row that applies
only at the expected version (one row changed, or a conflict), the action's events (three rows)
and the action's row, either as a transaction of those statements (five round trips with BEGIN
and COMMIT) or as one statement whose inserts hang on the UPDATE (one round trip). `--games`
games are played at once, each by one task that commits `--commits` / `--games` times in turn,
so that several commits are in flight. The database is a throw-away cluster (tests/postgres.py)
with PostgreSQL's durable defaults (`synchronous_commit` on, fsync on), or `--database-url`.
Prints, per driver and shape, the latency of one commit (p50/p99) and commits per second; they
take turns over `--rounds` rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import uvloop

from benchmarks.ranks import percentile

SCHEMA = """
    DROP TABLE IF EXISTS bench_events, bench_actions, bench_games;
    CREATE TABLE bench_games (id TEXT PRIMARY KEY, version INTEGER NOT NULL, seq INTEGER NOT NULL,
                              status TEXT NOT NULL);
    CREATE TABLE bench_events (game_id TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL,
                               PRIMARY KEY (game_id, seq));
    CREATE TABLE bench_actions (game_id TEXT NOT NULL, action_id TEXT NOT NULL,
                                version INTEGER NOT NULL, action TEXT NOT NULL,
                                result BYTEA NOT NULL, PRIMARY KEY (game_id, action_id));
"""
UPDATE = "UPDATE bench_games SET version = {0}, seq = {1}, status = 'playing' " \
         "WHERE id = {2} AND version = {3}"
EVENT = "INSERT INTO bench_events (game_id, seq, data) VALUES ({0}, {1}, {2})"
ACTION = "INSERT INTO bench_actions (game_id, action_id, version, action, result) " \
         "VALUES ({0}, {1}, {2}, {3}, {4})"
EVENT_DATA = orjson.dumps(
    {"type": "drew", "seat": 0, "card": {"suit": "Dragons", "value": 6}, "table": 3,
     "deck": {"left": 31, "fools": 2, "death": True}, "scores": [23, 31]}
).decode()
RESULT = b'{"version": 0, "view": {}}' * 20
# The same writes as one statement (one round trip, atomic on its own): the inserts take their
# game id from the UPDATE's RETURNING, so at a stale version nothing is written.
ONE = ("WITH moved AS (UPDATE bench_games SET version = {0}, seq = {1}, status = 'playing'"
       " WHERE id = {2} AND version = {3} RETURNING id),"
       " added AS (INSERT INTO bench_events (game_id, seq, data) SELECT moved.id, e.seq, e.data"
       " FROM moved, unnest({4}::integer[], {5}::text[]) AS e(seq, data)),"
       " acted AS (INSERT INTO bench_actions (game_id, action_id, version, action, result)"
       " SELECT moved.id, {6}, {7}, {8}, {9} FROM moved)"
       " SELECT count(*) FROM moved")

Commit = Callable[[str, int], Awaitable[None]]


def _marks(sql: str, style: str) -> str:
    count = sql.count("{")
    marks = ["%s"] * count if style == "psycopg" else [f"${n + 1}" for n in range(count)]
    return sql.format(*marks)


Played = tuple[list[float], float]  # each commit's latency, and the time all of them took


async def _play(commit: Commit, games: int, commits: int) -> Played:
    """Every game's commits in turn, the games at once: each commit's latency, and the wall
    time of the commits alone (the pool's connections are open before, and not counted), in
    seconds."""
    latencies: list[float] = []

    async def one_game(game: int) -> None:
        for version in range(commits // games):
            started = time.perf_counter()
            await commit(f"g{game}", version)
            latencies.append(time.perf_counter() - started)

    began = time.perf_counter()
    await asyncio.gather(*(one_game(g) for g in range(games)))
    return latencies, time.perf_counter() - began


async def _psycopg(url: str, games: int, commits: int, single: bool) -> Played:
    from psycopg_pool import AsyncConnectionPool

    update, event, action, one = (_marks(s, "psycopg") for s in (UPDATE, EVENT, ACTION, ONE))
    async with AsyncConnectionPool(url, min_size=games, max_size=games, open=False,
                                   kwargs={"autocommit": True}) as pool:
        await pool.open(wait=True)
        async with pool.connection() as conn:
            await conn.execute("TRUNCATE bench_games, bench_events, bench_actions")
            async with conn.cursor() as cur:
                await cur.executemany("INSERT INTO bench_games VALUES (%s, 0, 0, 'playing')",
                                      [(f"g{g}",) for g in range(games)])

        async def commit(game_id: str, version: int) -> None:
            if single:
                async with pool.connection() as conn:
                    cur = await conn.execute(one, (
                        version + 1, 3 * version + 3, game_id, version,
                        [3 * version + n for n in (1, 2, 3)], [EVENT_DATA] * 3,
                        f"a{version}", version + 1, "{}", RESULT,
                    ))
                    row = await cur.fetchone()
                    if row is None or row[0] != 1:
                        raise RuntimeError("version conflict")
                return
            async with pool.connection() as conn, conn.transaction():
                cur = await conn.execute(update, (version + 1, 3 * version + 3, game_id, version))
                if cur.rowcount != 1:
                    raise RuntimeError("version conflict")
                async with conn.cursor() as many:
                    await many.executemany(
                        event, [(game_id, 3 * version + n, EVENT_DATA) for n in (1, 2, 3)]
                    )
                await conn.execute(action, (game_id, f"a{version}", version + 1, "{}", RESULT))

        return await _play(commit, games, commits)


async def _asyncpg(url: str, games: int, commits: int, single: bool) -> Played:
    import asyncpg

    update, event, action, one = (_marks(s, "asyncpg") for s in (UPDATE, EVENT, ACTION, ONE))
    pool = await asyncpg.create_pool(url, min_size=games, max_size=games)
    try:
        async with pool.acquire() as conn:
            await conn.execute("TRUNCATE bench_games, bench_events, bench_actions")
            await conn.executemany("INSERT INTO bench_games VALUES ($1, 0, 0, 'playing')",
                                   [(f"g{g}",) for g in range(games)])

        async def commit(game_id: str, version: int) -> None:
            if single:
                async with pool.acquire() as conn:
                    moved = await conn.fetchval(
                        one, version + 1, 3 * version + 3, game_id, version,
                        [3 * version + n for n in (1, 2, 3)], [EVENT_DATA] * 3,
                        f"a{version}", version + 1, "{}", RESULT,
                    )
                    if moved != 1:
                        raise RuntimeError("version conflict")
                return
            async with pool.acquire() as conn, conn.transaction():
                status = await conn.execute(update, version + 1, 3 * version + 3, game_id,
                                            version)
                if status != "UPDATE 1":
                    raise RuntimeError("version conflict")
                await conn.executemany(
                    event, [(game_id, 3 * version + n, EVENT_DATA) for n in (1, 2, 3)]
                )
                await conn.execute(action, game_id, f"a{version}", version + 1, "{}", RESULT)

        return await _play(commit, games, commits)
    finally:
        await pool.close()


DRIVERS: dict[str, Callable[[str, int, int, bool], Awaitable[Played]]] = {
    "psycopg": _psycopg, "asyncpg": _asyncpg,
}
SHAPES = {"transaction": False, "one statement": True}


def _report(name: str, shape: str, games: int, runs: list[tuple[list[float], float]]) -> None:
    latencies = sorted(x for lat, _ in runs for x in lat)
    rates = [len(lat) / elapsed for lat, elapsed in runs]
    p50 = statistics.median(latencies) * 1000
    p99 = percentile(latencies, 0.99) * 1000
    print(f"{name:8} {shape:13} games={games:3}  p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  "
          f"{statistics.median(rates):7.0f} commits/s (rounds: "
          f"{', '.join(f'{r:.0f}' for r in rates)})")


async def _measure(
    url: str, games_list: list[int], commits: int, rounds: int, shapes: list[str]
) -> None:
    import psycopg

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(SCHEMA)
        setting = await (await conn.execute("SHOW synchronous_commit")).fetchone()
        fsync = await (await conn.execute("SHOW fsync")).fetchone()
    print(f"synchronous_commit={setting[0] if setting else '?'} fsync={fsync[0] if fsync else '?'}"
          f", {commits} commits per round")
    for games in games_list:
        results: dict[tuple[str, str], list[tuple[list[float], float]]] = {
            (name, shape): [] for shape in shapes for name in DRIVERS
        }
        for _ in range(rounds):
            for name, shape in results:
                results[name, shape].append(await DRIVERS[name](url, games, commits,
                                                                SHAPES[shape]))
        for (name, shape), runs in results.items():
            _report(name, shape, games, runs)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--database-url", default="",
                        help="a postgresql:// URL (default: a throw-away cluster)")
    parser.add_argument("--commits", type=int, default=2000, help="commits per round")
    parser.add_argument("--games", type=int, nargs="+", default=[1, 16],
                        help="games played at once (several values: one run each)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per driver")
    parser.add_argument("--shapes", nargs="+", choices=list(SHAPES), default=list(SHAPES),
                        help="the writes as a transaction of statements, or as one statement")
    args = parser.parse_args(argv)
    cluster: Any = None
    url = args.database_url
    if not url:
        from tests.postgres import Cluster

        cluster = Cluster(settings=())
        url = cluster.url()
    try:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:  # as the server
            runner.run(_measure(url, args.games, args.commits, args.rounds, args.shapes))
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
