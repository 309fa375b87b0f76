"""Pauses before trying again after a failure: doubling from a first pause up to a longest."""

from __future__ import annotations

from collections.abc import Iterator

LONGEST = 5.0  # seconds: the pauses double up to this, then stay


def pauses(first: float, longest: float = LONGEST) -> Iterator[float]:
    """`first`, twice that, four times, ... up to `longest`, then `longest` for ever."""
    pause = first
    while True:
        yield pause
        pause = min(pause * 2, longest)
