"""The table view: a QGraphicsView that refits the scene to its size, over a dreamy felt."""

from __future__ import annotations

import random

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QImage,
    QPainter,
    QPixmap,
    QRadialGradient,
    QResizeEvent,
)
from PySide6.QtWidgets import QFrame, QGraphicsView, QWidget

from .scene import TableScene


class TableView(QGraphicsView):
    """Shows a TableScene at 1:1 pixels: on resize the scene lays itself out for the new size
    (in card widths, keeping its proportions), so card pixmaps are never scaled and stay crisp."""

    def __init__(self, scene: TableScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.table = scene
        self.setFrameShape(QFrame.Shape.NoFrame)
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
        self._background_size = QSize()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.refit()

    def refit(self) -> None:
        size = self.viewport().size()
        if size.isEmpty():
            return
        self.table.relayout(size, self.devicePixelRatioF())
        self.setSceneRect(QRectF(0, 0, size.width(), size.height()))
        if size != self._background_size:
            self._background_size = size
            self.setBackgroundBrush(QBrush(felt(size, self.devicePixelRatioF())))
        self.resetTransform()


def felt(size: QSize, ratio: float) -> QPixmap:
    """The table's cloth: a deep violet glow fading to night blue, a fine grain, faint stars."""
    pixmap = QPixmap(round(size.width() * ratio), round(size.height() * ratio))
    pixmap.setDevicePixelRatio(ratio)
    w, h = size.width(), size.height()
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    glow = QRadialGradient(QPointF(w * 0.5, h * 0.48), max(w, h) * 0.75)
    glow.setColorAt(0.0, QColor("#3d3478"))
    glow.setColorAt(0.45, QColor("#251f52"))
    glow.setColorAt(1.0, QColor("#0c0b22"))
    painter.fillRect(QRectF(0, 0, w, h), glow)
    painter.drawTiledPixmap(QRectF(0, 0, w, h), QPixmap.fromImage(_grain()))
    rng = random.Random(7)  # the same sky every time
    painter.setPen(Qt.PenStyle.NoPen)
    for _ in range(max(40, w * h // 9000)):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        radius = rng.choice((0.6, 0.8, 1.0, 1.3))
        painter.setBrush(QColor(230, 225, 255, rng.randint(25, 90)))
        painter.drawEllipse(QPointF(x, y), radius, radius)
    painter.end()
    return pixmap


def _grain() -> QImage:
    """A small tile of soft noise that gives the cloth a woven feel."""
    size = 96
    rng = random.Random(3)
    data = bytearray()
    for _ in range(size * size):
        value = rng.randint(0, 255)
        data += bytes((value, value, value, 9))  # nearly transparent
    image = QImage(bytes(data), size, size, size * 4, QImage.Format.Format_RGBA8888)
    return image.copy()
