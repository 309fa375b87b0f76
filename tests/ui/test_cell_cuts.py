"""A lobby seat cut to its column keeps a name before its rating, or shows the name alone."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QApplication

from somnium_desktop.ui.cell_cuts import cut_seat


def test_a_seat_keeps_its_rating_while_a_part_of_its_name_fits(qapp: QApplication) -> None:
    metrics = QFontMetrics(QFont())
    assert cut_seat(metrics, 1000, "Robin", "1487?") == "Robin (1487?)"
    room = metrics.horizontalAdvance("Ro… (1487?)") + 1
    shown = cut_seat(metrics, room, "Robin", "1487?")
    assert shown.startswith("Ro") and shown.endswith("… (1487?)"), shown


def test_a_seat_too_narrow_for_its_name_and_rating_shows_the_name(qapp: QApplication) -> None:
    """A rating with no letter of its name ("…(1487?)") told the player nothing."""
    metrics = QFontMetrics(QFont())
    room = metrics.horizontalAdvance("… (1487?)") + 2
    assert cut_seat(metrics, room, "Robin", "1487?") == "Robin"  # (the list elides it)
    assert cut_seat(metrics, room, "", "1487?").endswith("(1487?)")  # (no name to show)
