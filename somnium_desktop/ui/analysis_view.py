"""The Analysis of a finished game: the win-chance graph, each decision with its mark, accuracy.

The graph is drawn with QPainterPath (no image, no chart module). A click on one of its points
or on a decision's row emits `moment_chosen(step)`: the number of actions applied at that
moment (0 is the deal), which a replay goes to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QMouseEvent, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..client.analysis import accuracy_line, decision_words
from .dialog_scale import in_window_text_size
from .style import ACCENT, BASE, FOCUS, MUTED, TEXT

MARK_COLOURS = {"inaccuracy": "#ffe066", "mistake": "#ffa94d", "blunder": "#ff6b6b"}
MARGINS = (46, 14, 14, 26)  # left (the percentages), top, right, bottom
PICK_RADIUS = 10.0  # pixels: how far from a point a click still picks it


def mark_counts(decisions: Sequence[dict[str, Any]], seat: int) -> str:
    """"1 blunder, 2 mistakes, 0 inaccuracies" for one seat."""
    plurals = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
    counts = {mark: sum(1 for d in decisions if d["seat"] == seat and d["mark"] == mark)
              for mark in plurals}
    return ", ".join(f"{n} {mark if n == 1 else plurals[mark]}"
                     for mark, n in reversed(list(counts.items())))


class WinChanceGraph(QWidget):
    """One seat's chance of winning before each decision, then the result, as a line."""

    moment_chosen = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Chance of winning over the game")
        self.setMinimumHeight(150)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.values: list[float] = []
        self.steps: list[int] = []
        self.marks: list[str | None] = []
        self.chosen: int | None = None  # the step shown (a vertical line)

    def set_curve(
        self, values: Sequence[float], steps: Sequence[int], marks: Sequence[str | None]
    ) -> None:
        """The chances (of the seat shown) at each point, its step and the mark earned there."""
        self.values, self.steps, self.marks = list(values), list(steps), list(marks)
        self.chosen = None
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(640, 220)

    def plot(self) -> QRectF:
        left, top, right, bottom = MARGINS
        left = max(left, self.fontMetrics().horizontalAdvance("100%") + 12)  # (its font's)
        return QRectF(left, top, max(1, self.width() - left - right),
                      max(1, self.height() - top - bottom))

    def point(self, index: int) -> QPointF:
        """Where point `index` is drawn."""
        area = self.plot()
        count = len(self.values)
        x = area.left() + (area.width() * index / (count - 1) if count > 1 else area.width() / 2)
        return QPointF(x, area.top() + area.height() * (1.0 - self.values[index]))

    def point_of_step(self, step: int) -> QPointF:
        """Where the point of a step is drawn (ValueError if the graph has none)."""
        return self.point(self.steps.index(step))

    def choose(self, step: int) -> None:
        """Mark the step shown (without emitting)."""
        self.chosen = step
        self.update()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self.values:
            super().mousePressEvent(event)
            return
        where = event.position()
        spacing = self.plot().width() / max(1, len(self.values) - 1)
        index = min(range(len(self.values)), key=lambda i: abs(self.point(i).x() - where.x()))
        if abs(self.point(index).x() - where.x()) <= max(PICK_RADIUS, spacing / 2):
            self.choose(self.steps[index])
            self.moment_chosen.emit(self.steps[index])
        event.accept()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor(BASE))
        area = self.plot()
        painter.setPen(QPen(QColor("#2e2a57"), 1))
        painter.drawRect(area)
        for share in (0.0, 0.5, 1.0):
            y = area.top() + area.height() * (1 - share)
            style = Qt.PenStyle.DashLine if share == 0.5 else Qt.PenStyle.SolidLine
            painter.setPen(QPen(QColor(MUTED), 1, style))
            painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
            half = self.fontMetrics().height() / 2
            painter.drawText(QRectF(0, y - half, area.left() - 6, 2 * half),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             f"{share:.0%}")
        if self.values:
            self._draw_curve(painter, area)
        painter.end()

    def _draw_curve(self, painter: QPainter, area: QRectF) -> None:
        if self.chosen is not None and self.chosen in self.steps:
            x = self.point_of_step(self.chosen).x()
            painter.setPen(QPen(QColor(FOCUS), 2))
            painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()))
        line = QPainterPath(self.point(0))
        for index in range(1, len(self.values)):
            line.lineTo(self.point(index))
        under = QPainterPath(line)
        under.lineTo(QPointF(self.point(len(self.values) - 1).x(), area.bottom()))
        under.lineTo(QPointF(self.point(0).x(), area.bottom()))
        under.closeSubpath()
        shade = QColor(ACCENT)
        shade.setAlpha(40)
        painter.fillPath(under, shade)
        painter.strokePath(line, QPen(QColor(ACCENT), 2))
        painter.setPen(Qt.PenStyle.NoPen)
        for index in range(len(self.values)):
            mark = self.marks[index] if index < len(self.marks) else None
            radius = 5.0 if mark else 2.5
            painter.setBrush(QBrush(QColor(MARK_COLOURS[mark] if mark else TEXT)))
            painter.drawEllipse(self.point(index), radius, radius)


class AnalysisView(QWidget):
    """A game's analysis: accuracy and marks, the graph, and every decision in a list."""

    moment_chosen = Signal(int)
    COLUMNS = ("#", "Player", "Played", "Expert's choice", "Their chance: best → played",
               "Mark")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note = QLabel("Analysing the game…")
        self.note.setWordWrap(True)
        self.accuracy = QLabel("")
        self.accuracy.setObjectName("analysisAccuracy")
        self.accuracy.setAccessibleName("Accuracy")
        self.accuracy.setWordWrap(True)
        self.graph = WinChanceGraph(self)
        self.decisions = QTreeWidget()
        self.decisions.setAccessibleName("Decisions")
        self.decisions.setRootIsDecorated(False)
        self.decisions.setColumnCount(len(self.COLUMNS))
        self.decisions.setHeaderLabels(list(self.COLUMNS))
        self.decisions.setAlternatingRowColors(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.note, self.accuracy, self.graph, self.decisions):
            layout.addWidget(widget)
        layout.setStretch(2, 2)
        layout.setStretch(3, 3)
        self.graph.moment_chosen.connect(self._graph_chose)
        self.decisions.itemClicked.connect(self._row_chose)
        self.decisions.itemActivated.connect(self._row_chose)

    def show_failure(self, message: str) -> None:
        self.note.setText(f"No analysis: {message}")

    def show_analysis(self, data: dict[str, Any], names: Sequence[str],
                      my_seat: int | None) -> None:
        """Show `data` (GET /games/{id}/analysis's JSON) from `my_seat`'s side (seat 0's when
        watching)."""
        seat = 0 if my_seat is None else my_seat
        decisions = list(data["decisions"])
        whose = "Your" if my_seat is not None else f"{names[seat]}'s"
        thresholds = data.get("thresholds", {})
        self.note.setText(
            f"{whose} chance of winning before each decision, as the expert judges it. "
            "Marks: " + ", ".join(f"{mark} from {share:.0%} given away"
                                  for mark, share in thresholds.items()) +
            ". Click a point or a row to go to that moment."
        )
        self.accuracy.setText(
            accuracy_line(data, names, my_seat) + "\n" + "; ".join(
                f"{names[s]}: {mark_counts(decisions, s)}" for s in (0, 1))
        )
        curve = [value if seat == 0 else 1.0 - value for value in data["curve"]]
        steps = [d["step"] for d in decisions] + [int(data["end_step"])]
        self.graph.set_curve(curve, steps, [d["mark"] for d in decisions] + [None])
        self.decisions.clear()
        for decision in decisions:
            item = QTreeWidgetItem(list(decision_words(decision, names)))
            item.setData(0, Qt.ItemDataRole.UserRole, decision["step"])
            if decision["mark"]:
                for column in range(len(self.COLUMNS)):
                    item.setForeground(column, QColor(MARK_COLOURS[decision["mark"]]))
            self.decisions.addTopLevelItem(item)
        for column in range(len(self.COLUMNS)):
            self.decisions.resizeColumnToContents(column)

    def row_of_step(self, step: int) -> QTreeWidgetItem | None:
        for index in range(self.decisions.topLevelItemCount()):
            item = self.decisions.topLevelItem(index)
            if item is not None and item.data(0, Qt.ItemDataRole.UserRole) == step:
                return item
        return None

    def _graph_chose(self, step: int) -> None:
        item = self.row_of_step(step)
        if item is not None:
            self.decisions.setCurrentItem(item)
            self.decisions.scrollToItem(item)
        self.moment_chosen.emit(step)

    def _row_chose(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        step = int(item.data(0, Qt.ItemDataRole.UserRole))
        self.graph.choose(step)
        self.moment_chosen.emit(step)


class AnalysisDialog(QDialog):
    """The Analysis window of a finished game (not modal: the table stays usable)."""

    moment_chosen = Signal(int)

    def __init__(self, parent: QWidget | None, title: str) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Analysis: {title}")
        self.view = AnalysisView(self)
        self.view.moment_chosen.connect(self.moment_chosen)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)
        layout.addWidget(buttons)
        self.resize(760, 560)
        in_window_text_size(self)
