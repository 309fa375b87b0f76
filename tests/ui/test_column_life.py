"""The column's delayed layout work never runs on a column already deleted."""

from __future__ import annotations

import shiboken6
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from somnium_desktop.ui.column_part import Column, ColumnPart


def test_a_column_deleted_before_its_front_part_settles(qtbot: QtBot) -> None:
    """A window closed in the same turn as the game on its table changed: the column's
    settling, due at the next turn, is dropped (it raised "already deleted" before)."""
    column = Column()
    part = ColumnPart(QLabel("the game's log"))
    column.addWidget(part)
    column.serve(part)  # (its height is given at the next turn of the event loop)
    shiboken6.delete(column)
    qtbot.wait(50)  # the turn: nothing raised (pytest-qt fails the test if it did)
