"""The right-hand column's parts, which scroll when the window is too short for all of them."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QSplitter, QStyle, QWidget

LEAST_LINES = 7  # lines of text a part keeps at the least; below its own minimum, it scrolls


class ColumnPart(QScrollArea):
    """Holds one panel of the column (the lobby, the offline panel with the log and the chat).

    As tall as the column's split gives it, the panel fills it and its lists take the room;
    shorter than the panel's minimum, the panel keeps that minimum and scrolls, so a short
    window still reaches every control (Tab scrolls to the one it focuses). It is as wide as
    the panel needs, with room for its scroll bar: the panel never scrolls sideways.
    """

    def __init__(
        self, panel: QWidget, wanted: Callable[[], int | None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._wanted = wanted
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # (Tab goes to the panel's controls)
        # Sized here, not by the scroll area: its own sizing would give a panel with wrapped
        # words its preferred height (a long log), and scroll where the minimum fits.
        self.setWidget(panel)
        panel.installEventFilter(self)

    def panel_height(self) -> int:
        """The height its panel needs to show whole (its minimum)."""
        panel = self.widget()
        return panel.minimumSizeHint().height() if panel is not None else 0

    def wanted_height(self) -> int | None:
        """The height it asks for in front of the column (see Column.serve), or None for
        all the room the other parts can spare."""
        return self._wanted() if self._wanted is not None else None

    def _bar(self) -> int:
        return self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self)

    def fit(self) -> None:
        """The panel as wide as the part (less its scroll bar, when it scrolls) and as tall
        as the part, or as its own minimum when that is taller."""
        panel = self.widget()
        if panel is None:
            return
        need = self.panel_height()
        scrolls = need > self.height()
        panel.resize(self.width() - (self._bar() if scrolls else 0), max(self.height(), need))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit()

    def minimumSizeHint(self) -> QSize:
        panel = self.widget()
        least = panel.minimumSizeHint() if panel is not None else QSize(0, 0)
        bar = self._bar()
        lines = LEAST_LINES * self.fontMetrics().lineSpacing()
        return QSize(least.width() + bar, min(least.height(), lines))

    def sizeHint(self) -> QSize:
        panel = self.widget()
        return panel.sizeHint() if panel is not None else super().sizeHint()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        column = self.parentWidget()
        if event.type() == QEvent.Type.LayoutRequest:  # (its panel changed: a chat shows)
            QTimer.singleShot(0, self, self.fit)  # (not once it is deleted)
            if isinstance(column, Column):
                QTimer.singleShot(0, column, column.settle)
        return super().eventFilter(watched, event)


class Column(QSplitter):
    """The column's parts one over the other. A part shorter than its panel takes the room
    another has beyond its own panel's (the player's split stands while every part is whole).

    One part is served first (`serve`): the one for what the player is at, the lobby when no
    game is on the table, the game's panel (its log and chat) when one is. When it comes to
    the front it gets the height it asks for (ColumnPart.wanted_height: the lobby its lines of
    games; the game's panel all but the lobby's lines on a tall column, else all the others
    can spare while whole), and keeps it as the window is resized until the player drags the
    split; on a window too short for every part, it keeps that height at the least and the
    others scroll."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setChildrenCollapsible(False)
        self.front: ColumnPart | None = None
        self._to_front = False  # the front part changed: give it its height once
        self.dragged = False  # the player moved the split since: more than its height stays
        self.splitterMoved.connect(lambda _pos, _index: setattr(self, "dragged", True))

    def serve(self, part: ColumnPart) -> None:
        """Put `part` in front: it gets its height now (after pending layout changes, such as
        a chat showing), and keeps it at the least on a short window."""
        if part is self.front:
            return
        self.front, self._to_front, self.dragged = part, True, False
        QTimer.singleShot(0, self, self.settle)  # (not once it is deleted)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.settle()

    def settle(self) -> None:
        sizes = self.sizes()
        parts = [self.widget(n) for n in range(self.count())]
        whole = [part.panel_height() if isinstance(part, ColumnPart) and part.isVisible()
                 else size for part, size in zip(parts, sizes, strict=True)]
        front = parts.index(self.front) if self.front in parts else -1
        if front >= 0 and sum(sizes) > 0 and self.isVisible():
            to_front, self._to_front = self._to_front, False
            least = [part.minimumSizeHint().height() if part is not None else 0
                     for part in parts]
            room = sum(sizes) - sum(least) + least[front]  # (the others at their least)
            asked = self.front.wanted_height() if self.front is not None else None
            spare = sum(sizes) - sum(whole) + whole[front]  # (the others whole)
            due = min(room, max(whole[front], spare if asked is None else asked))
            held = asked is not None and not self.dragged and sizes[front] != due
            if to_front or held or sum(whole) - whole[front] + due > sum(sizes):
                target = max(sizes[front], due) if self.dragged else due
                self.setSizes(with_part_at(sizes, front, target, least))
                return
            whole[front] = due
        settled = evened(sizes, whole)
        if settled != sizes:
            self.setSizes(settled)


def with_part_at(sizes: list[int], index: int, target: int, least: list[int]) -> list[int]:
    """`sizes` with part `index` at `target`: the others give (down to their `least`) or take
    the difference, nearest first."""
    sizes = list(sizes)
    change = target - sizes[index]
    order = sorted((n for n in range(len(sizes)) if n != index), key=lambda n: abs(n - index))
    for n in order:
        step = min(change, sizes[n] - least[n]) if change > 0 else change
        sizes[n] -= step
        change -= step
    sizes[index] = target - change
    return sizes


def evened(sizes: list[int], wanted: list[int]) -> list[int]:
    """`sizes` with the room parts have beyond what they want given to parts short of it."""
    short = [max(0, want - size) for want, size in zip(wanted, sizes, strict=True)]
    spare = [max(0, size - want) for want, size in zip(wanted, sizes, strict=True)]
    moved = min(sum(short), sum(spare))
    sizes = list(sizes)
    given, taken = moved, moved
    for n in range(len(sizes)):
        grow = min(short[n], given)
        shrink = min(spare[n], taken)
        sizes[n] += grow - shrink
        given, taken = given - grow, taken - shrink
    return sizes
