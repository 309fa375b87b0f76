"""Rate limits: one token bucket per user (or client address) and kind of request."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from .apierror import ApiError
from .config import RateLimit


class RateLimiter:
    """Token buckets for one kind of request (create, join, act, sign-in), keyed by user id
    or, before anyone is signed in, by client address."""

    def __init__(
        self, kind: str, limit: RateLimit, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.kind = kind
        self.capacity = float(limit.count)
        self.rate = limit.count / limit.seconds  # tokens per second
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # user -> (tokens, at)

    def check(self, user_id: str) -> None:
        """Spend one token of `user_id`'s bucket, or raise 429 with Retry-After."""
        wait = self.wait(user_id)
        if wait:
            raise ApiError(
                429,
                "rate_limited",
                f"too many {self.kind} requests: retry in {wait} s",
                headers={"Retry-After": str(wait)},
            )

    def wait(self, key: str) -> int:
        """Spend one token of `key`'s bucket: 0, or the seconds to wait when it is empty."""
        now = self.clock()
        tokens, at = self._buckets.get(key, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - at) * self.rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return max(1, math.ceil((1.0 - tokens) / self.rate))
        self._buckets[key] = (tokens - 1.0, now)
        if len(self._buckets) > 10_000:
            self._forget_full(now)
        return 0

    def _forget_full(self, now: float) -> None:
        """Drop buckets that have refilled: they hold no information."""
        full = [
            user for user, (tokens, at) in self._buckets.items()
            if tokens + (now - at) * self.rate >= self.capacity
        ]
        for user in full:
            del self._buckets[user]
