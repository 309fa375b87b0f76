"""Percentiles of a benchmark's samples by nearest rank: one definition for every script."""

from __future__ import annotations

import math
from collections.abc import Iterable


def percentile(samples: Iterable[float], q: float) -> float:
    """The q-quantile (0 <= q <= 1) by nearest rank: the least sample with at least a share q
    of the samples at or below it (q = 0 gives the least, q = 1 the greatest). Of 100 samples
    the p99 is the 99th smallest, not the greatest; of none, 0.0."""
    ordered = sorted(samples)
    if not ordered:
        return 0.0
    rank = math.ceil(round(q * len(ordered), 9))  # (0.07 * 100 is 7.000000000000001)
    return ordered[min(len(ordered), max(1, rank)) - 1]
