"""Cutting a lobby cell's text to its column: a name before its rating, a status to its words."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

from ..client.ratings import with_rating

ELLIPSIS = "…"
NAME_KEPT = 2  # letters of a cut name shown beside its rating, at the least


def cut_seat(metrics: QFontMetrics, room: int, name: str, rating: str) -> str:
    """A seat's name and rating within `room` pixels: whole when it fits, else the name is
    cut and the rating kept ("Robi… (1487?)") while NAME_KEPT letters of the name fit beside
    it; narrower still, the name alone ("Robin", which the list elides: "Ro…"), since a
    rating without a name tells the player nothing. The tooltip has the whole text."""
    whole = with_rating(name, rating)
    if not rating or metrics.horizontalAdvance(whole) <= room:
        return whole
    tail = with_rating("", rating)
    left = room - metrics.horizontalAdvance(tail)
    cut = metrics.elidedText(name, Qt.TextElideMode.ElideRight, left) if left > 0 else ""
    kept = cut.removesuffix(ELLIPSIS)
    if cut == name or len(kept) >= min(NAME_KEPT, len(name)) > 0:
        return f"{cut}{tail}"
    return name


def cut_status(metrics: QFontMetrics, room: int, line: str, words: str) -> str:
    """A game's status within `room` pixels: its whole line ("Waiting · rated") when it
    fits, else its words alone ("Waiting"; the list elides those if it must)."""
    return line if metrics.horizontalAdvance(line) <= room else words
