"""The table view: a QGraphicsView that refits the scene to its size, over a dreamy felt."""

from __future__ import annotations

import random

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import (
    QBrush,
    QColor,
    QPainter,
    QPalette,
    QPixmap,
    QRadialGradient,
    QResizeEvent,
    QShowEvent,
    QWindow,
)
from PySide6.QtWidgets import QFrame, QGraphicsView, QWidget

from .scene import TableScene


class TableView(QGraphicsView):
    """Shows a TableScene at 1:1 pixels: on resize the scene lays itself out for the new size
    (in card widths, keeping its proportions), so card pixmaps are never scaled and stay crisp."""

    def __init__(self, scene: TableScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        # The view's own viewport, made here: a viewport Qt made is a QWidget of unknown kind to
        # Python, and finding its class made PySide load ~40 widget classes (dialogs, wizards...)
        # and their enums at start-up (about 10% of the CPU to the first paint).
        viewport = QWidget()  # set up as Qt's own viewport is
        viewport.setBackgroundRole(QPalette.ColorRole.Base)
        viewport.setAutoFillBackground(True)
        self.setViewport(viewport)
        self.table = scene
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setObjectName("cardTable")  # (the style sheet rings it while it has the focus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(QSize(360, 240))
        self.setAccessibleName("Card table")
        self._fitted: tuple[QSize, float] | None = None
        self._window: QWindow | None = None

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.refit()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        handle = self.window().windowHandle()
        if handle is not None and handle is not self._window:
            self._window = handle  # a move to a screen of another pixel ratio: refit
            handle.screenChanged.connect(lambda _screen: QTimer.singleShot(0, self.refit))

    def refit(self) -> None:
        """Lay the table out for the viewport's size and pixel ratio, if either changed."""
        size, ratio = self.viewport().size(), self.devicePixelRatioF()
        if size.isEmpty() or (size, ratio) == self._fitted:
            return
        self._fitted = (size, ratio)
        self.table.relayout(size, ratio)
        self.setSceneRect(QRectF(0, 0, size.width(), size.height()))
        self.setBackgroundBrush(QBrush(felt(size, ratio)))
        self.resetTransform()


def felt(size: QSize, ratio: float) -> QPixmap:
    """The table's cloth: a deep violet glow fading to night blue, under faint stars."""
    pixmap = QPixmap(round(size.width() * ratio), round(size.height() * ratio))
    pixmap.setDevicePixelRatio(ratio)
    w, h = size.width(), size.height()
    painter = QPainter(pixmap)
    glow = QRadialGradient(QPointF(w * 0.5, h * 0.48), max(w, h) * 0.75)
    glow.setColorAt(0.0, QColor("#3d3478"))
    glow.setColorAt(0.45, QColor("#251f52"))
    glow.setColorAt(1.0, QColor("#0c0b22"))
    painter.fillRect(QRectF(0, 0, w, h), glow)
    painter.drawTiledPixmap(QRectF(0, 0, w, h), _stars())
    painter.end()
    return pixmap


_TILES: dict[str, QPixmap] = {}
TILE = 384


def _stars() -> QPixmap:
    """A seamless tile of faint stars, made once."""
    tile = _TILES.get("stars")
    if tile is not None:
        return tile
    rng = random.Random(7)  # the same sky every time
    tile = QPixmap(TILE, TILE)
    tile.fill(Qt.GlobalColor.transparent)
    painter = QPainter(tile)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    for _ in range(22):
        x, y = rng.uniform(2, TILE - 2), rng.uniform(2, TILE - 2)
        radius = rng.choice((0.6, 0.8, 1.0, 1.3))
        painter.setBrush(QColor(230, 225, 255, rng.randint(25, 90)))
        painter.drawEllipse(QPointF(x, y), radius, radius)
    painter.end()
    _TILES["stars"] = tile
    return tile
