"""Sharing a list's width among its columns: all in full when they fit, else the widest give."""

from __future__ import annotations

from collections.abc import Sequence


def share_out(wanted: Sequence[int], room: int, least: Sequence[int]) -> list[int]:
    """Widths for columns that want `wanted` pixels within `room`: as wanted when they fit;
    else the widest are cut down to one common width (none below its `least`), so that a
    short column ("Bea") keeps its words while long ones give (and elide, with tooltips)."""
    if sum(wanted) <= room:
        return list(wanted)
    low, high = 0, max(wanted)
    while low < high:  # the highest common width whose widths fit the room
        level = (low + high + 1) // 2
        if sum(max(lo, min(w, level)) for w, lo in zip(wanted, least, strict=True)) <= room:
            low = level
        else:
            high = level - 1
    return [max(lo, min(w, low)) for w, lo in zip(wanted, least, strict=True)]
