"""Measures what a player sees: contrast ratios (WCAG 2) of colours and of widgets' pixels."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage


def luminance(colour: QColor) -> float:
    """WCAG 2's relative luminance of an opaque colour."""
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return (0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF())
            + 0.0722 * channel(colour.blueF()))


def contrast(a: QColor, b: QColor) -> float:
    """WCAG 2's contrast ratio of two colours, 1 to 21."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def over(colour: QColor, background: QColor) -> QColor:
    """`colour` (maybe translucent) as seen over an opaque background."""
    alpha = colour.alphaF()
    return QColor.fromRgbF(*(alpha * getattr(colour, f)() + (1 - alpha) * getattr(background, f)()
                             for f in ("redF", "greenF", "blueF")))


def strongest(image: QImage, rect: QRect, background: QColor) -> float:
    """The highest contrast against `background` of any pixel of `image` inside `rect`."""
    best = 1.0
    rect = rect.intersected(image.rect())
    for y in range(rect.top(), rect.bottom() + 1):
        for x in range(rect.left(), rect.right() + 1):
            best = max(best, contrast(image.pixelColor(x, y), background))
    return best
