"""A table label too wide for its room, as two lines: its words, then its last word."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetricsF


def label_lines(text: str, metrics: QFontMetricsF, room: float) -> list[str]:
    """`text` as one line if it fits in `room` pixels; else its last word ("3", "100%")
    goes on a second line under the others ("Fools left"), each elided only if even that is
    too wide (so nothing is cut without its "…")."""
    if metrics.horizontalAdvance(text) <= room or " " not in text:
        parts = [text]
    else:
        head, _, tail = text.rpartition(" ")
        parts = [head, tail]
    return [metrics.elidedText(part, Qt.TextElideMode.ElideRight, room) for part in parts]
