"""What a rate-limit check costs: in memory (one instance) and in PostgreSQL (shared).

Run from a checkout:  .venv/bin/python -m benchmarks.rate_limits

`--users` tasks each spend `--checks` / `--users` requests of a generous "act" limit, in turn,
through the server's own buckets: MemoryBuckets, and PostgresStorage's upsert on a throw-away
cluster (tests/postgres.py, PostgreSQL's durable defaults; the table is unlogged, so no commit
waits for the disk) or `--database-url`. Prints the latency of one check (p50/p99) and checks
per second for each.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from somnium_server.api.ratelimit import Buckets, MemoryBuckets
from somnium_server.config import RateLimit

LIMIT = RateLimit(1_000_000, 1)  # never refuses: every check does the full work


async def measure(buckets: Buckets, users: int, checks: int) -> tuple[list[float], float]:
    """Latencies of every check (seconds) and the wall time of all."""
    latencies: list[float] = []

    async def user(n: int) -> None:
        for _ in range(checks // users):
            began = time.perf_counter()
            await buckets.spend("act", f"user-{n}", LIMIT)
            latencies.append(time.perf_counter() - began)

    began = time.perf_counter()
    await asyncio.gather(*(user(n) for n in range(users)))
    return latencies, time.perf_counter() - began


def report(name: str, latencies: list[float], wall: float) -> None:
    cuts = statistics.quantiles(latencies, n=100)
    print(f"{name:<12} p50 {cuts[49] * 1e3:7.3f} ms  p99 {cuts[98] * 1e3:7.3f} ms  "
          f"{len(latencies) / wall:9,.0f} checks/s")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--checks", type=int, default=20_000)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    report("memory", *await measure(MemoryBuckets(), args.users, args.checks))

    from somnium_server.storage.postgres import PostgresStorage
    from tests.postgres import Cluster

    cluster, url = None, args.database_url
    if not url:
        cluster = Cluster(settings=())
        url = cluster.new_database()
    storage = PostgresStorage(url)
    try:
        await measure(storage, args.users, args.users * 10)  # the pool's connections opened
        report("postgresql", *await measure(storage, args.users, args.checks))
    finally:
        await storage.close()
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    asyncio.run(main())
