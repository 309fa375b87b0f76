"""How long PostgreSQL takes to deliver a NOTIFY to a listening connection, as the server uses it.

One connection LISTENs; another commits NOTIFYs one at a time (each carrying its send time, as
the server's carry ids only); the listener notes each one's arrival. Prints p50 / p99 / max.

    python -m benchmarks.notify_latency postgresql://user@127.0.0.1:5432/db [--count 500]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import psycopg

from benchmarks.ranks import percentile

CHANNEL = "somnium_latency"


async def measure(url: str, count: int) -> list[float]:
    """Milliseconds from each NOTIFY's commit to its delivery to the listener."""
    delays: list[float] = []
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as listener, \
            await psycopg.AsyncConnection.connect(url, autocommit=True) as sender:
        await listener.execute(f"LISTEN {CHANNEL}")

        async def listen() -> None:
            async for notify in listener.notifies():  # one loop, as the server listens
                delays.append((time.perf_counter() - float(notify.payload)) * 1000)
                if len(delays) == count:
                    return

        listening = asyncio.get_running_loop().create_task(listen())
        await asyncio.sleep(0.1)
        for _ in range(count):
            await sender.execute("SELECT pg_notify(%s, %s)", (CHANNEL, repr(time.perf_counter())))
            await asyncio.sleep(0.005)
        await asyncio.wait_for(listening, 10)
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.notify_latency")
    parser.add_argument("url", help="a postgresql:// URL")
    parser.add_argument("--count", type=int, default=500)
    args = parser.parse_args()
    delays = sorted(asyncio.run(measure(args.url, args.count)))
    p99 = percentile(delays, 0.99)
    print(f"NOTIFY -> delivery, {len(delays)} notices: p50 {statistics.median(delays):.2f} ms, "
          f"p99 {p99:.2f} ms, max {delays[-1]:.2f} ms")


if __name__ == "__main__":
    main()
