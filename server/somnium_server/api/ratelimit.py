"""Rate limits: how many requests of one kind a user (or client address) may make in a window.

Each limit is a token bucket of `count` requests refilled over `seconds`, kept as GCRA does:
one number per key, the time at which the bucket will be full again (its "theoretical arrival
time"). On one instance the numbers live in memory (MemoryBuckets); on PostgreSQL the storage
keeps them in the database (storage/postgres_limits.py), so a limit holds whichever instance a
request reaches.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from starlette.requests import HTTPConnection

from somnium_server.api.apierror import ApiError
from somnium_server.config import RateLimit

FORGET_AFTER = 10_000  # keys kept in memory before the full buckets are first swept
IPV6_PREFIX = 64  # an IPv6 client is its /64: one household or host holds a whole one


def client_key(connection: HTTPConnection) -> str:
    """Who a request without a user comes from, for limits per client: its IPv4 address, or
    the /64 network of its IPv6 address (one host may use any address of its /64)."""
    host = connection.client.host if connection.client else "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return host


@runtime_checkable
class Buckets(Protocol):
    """Where the buckets of every limit are kept."""

    async def spend(self, kind: str, key: str, limit: RateLimit) -> float:
        """Spend one request of `key`'s `kind` bucket: 0.0, or the seconds until one is free."""
        ...


def gcra(full_at: float, now: float, limit: RateLimit) -> tuple[float, float]:
    """One request at `now` against a bucket full again at `full_at`: (the bucket's new
    full-again time, 0.0) when allowed, (unchanged, seconds to wait) when empty."""
    interval = limit.seconds / limit.count  # what one request costs
    after = max(full_at, now) + interval
    if after - now > limit.seconds * (1 + 1e-9):  # a sum of intervals may round up
        return full_at, after - limit.seconds - now
    return after, 0.0


class MemoryBuckets:
    """Buckets in this process's memory: right for one instance (SQLite)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._full_at: dict[tuple[str, str], float] = {}
        self._sweep_at = FORGET_AFTER  # the number of keys at which full buckets are dropped

    async def spend(self, kind: str, key: str, limit: RateLimit) -> float:
        now = self.clock()
        full_at, wait = gcra(self._full_at.get((kind, key), now), now, limit)
        self._full_at[(kind, key)] = full_at
        if len(self._full_at) > self._sweep_at:
            # full buckets hold no information; the next sweep waits until the keys left
            # have doubled, so that a sweep costs O(1) a spend however many stay
            self._full_at = {k: at for k, at in self._full_at.items() if at > now}
            self._sweep_at = max(FORGET_AFTER, 2 * len(self._full_at))
        return wait


class RateLimiter:
    """One kind of request (create, join, act, sign-in), limited per user id or, before
    anyone is signed in, per client address."""

    def __init__(self, kind: str, limit: RateLimit, buckets: Buckets) -> None:
        self.kind = kind
        self.limit = limit
        self.buckets = buckets

    async def check(self, key: str) -> None:
        """Spend one request of `key`'s bucket, or raise 429 with Retry-After."""
        wait = await self.wait(key)
        if wait:
            raise ApiError(
                429,
                "rate_limited",
                f"too many {self.kind} requests: retry in {wait} s",
                headers={"Retry-After": str(wait)},
            )

    async def wait(self, key: str) -> int:
        """Spend one request of `key`'s bucket: 0, or the whole seconds to wait when empty."""
        wait = await self.buckets.spend(self.kind, key, self.limit)
        return max(1, math.ceil(wait)) if wait > 0 else 0


def buckets_for(storage: object) -> Buckets:
    """The storage itself when it keeps buckets for every instance, else memory."""
    return storage if isinstance(storage, Buckets) else MemoryBuckets()
