"""Per-user rate limits: one token bucket per user and kind of request."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from .config import RateLimit
from .errors import ApiError


class RateLimiter:
    """Token buckets for one kind of request (create, join or act), keyed by user id."""

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
        now = self.clock()
        tokens, at = self._buckets.get(user_id, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - at) * self.rate)
        if tokens < 1.0:
            wait = math.ceil((1.0 - tokens) / self.rate)
            self._buckets[user_id] = (tokens, now)
            raise ApiError(
                429,
                "rate_limited",
                f"too many {self.kind} requests: retry in {wait} s",
                headers={"Retry-After": str(wait)},
            )
        self._buckets[user_id] = (tokens - 1.0, now)
        if len(self._buckets) > 10_000:
            self._forget_full(now)

    def _forget_full(self, now: float) -> None:
        """Drop buckets that have refilled: they hold no information."""
        full = [
            user for user, (tokens, at) in self._buckets.items()
            if tokens + (now - at) * self.rate >= self.capacity
        ]
        for user in full:
            del self._buckets[user]
