"""The card deck: one SVG renderer and a pixmap cache per element, size and device pixel ratio."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtSvg import QSvgRenderer

from ..assets import deck_svg
from ..game.cards import Card, Suit

BACK = "back"
DEFAULT_ASPECT = 5 / 7  # width / height when the art has no back to measure

# Fallback colours when the art lacks an element: one per suit, in suit order.
SUIT_COLOURS = (
    "#d9a520", "#e8662e", "#7a4fc4", "#2f8fd8", "#6b6f7a",
    "#b8323b", "#2f9b5a", "#c88a3a", "#5b6cc9", "#8e2f6f",
)


def element_id(card: Card | None) -> str:
    """The SVG element of a card's face ("angels_3", "fool", "death"), or the back for None."""
    return BACK if card is None else card.code.replace("-", "_")


def emblem_id(suit: Suit) -> str:
    return f"emblem_{suit.code}"


class CardDeck:
    """Renders card faces from the deck art, caching one pixmap per (element, size, ratio).

    Like KDE's libkcardgame: the renderer is made once, pixmaps are rendered at the device's
    pixel size and tagged with its ratio, so cards stay crisp on high-DPI screens. An element
    missing from the art (or missing art) is drawn as a plain fallback card instead.
    """

    def __init__(self, path: Path | None = None) -> None:
        self._path = deck_svg() if path is None else path
        self._renderer: QSvgRenderer | None = None
        self._cache: dict[tuple[str, int, int, float], QPixmap] = {}
        self.renders = 0  # how many pixmaps were rendered (the cache's misses)

    @property
    def path(self) -> Path:
        return self._path

    def renderer(self) -> QSvgRenderer:
        if self._renderer is None:
            renderer = QSvgRenderer()
            if self._path.is_file():
                renderer.load(str(self._path))
            self._renderer = renderer
        return self._renderer

    def has(self, element: str) -> bool:
        renderer = self.renderer()
        return renderer.isValid() and renderer.elementExists(element)

    def aspect(self) -> float:
        """Card width over height, from the back's bounds in the art."""
        if self.has(BACK):
            bounds = self.renderer().boundsOnElement(BACK)
            if bounds.width() > 0 and bounds.height() > 0:
                return bounds.width() / bounds.height()
        return DEFAULT_ASPECT

    def pixmap(self, element: str, size: QSize, ratio: float = 1.0) -> QPixmap:
        """The element rendered to fill `size` (device-independent pixels) at `ratio`."""
        key = (element, size.width(), size.height(), ratio)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        pixmap = QPixmap(max(1, round(size.width() * ratio)), max(1, round(size.height() * ratio)))
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        target = QRectF(0, 0, pixmap.width(), pixmap.height())
        if self.has(element):
            self.renderer().render(painter, element, target)
        else:
            _draw_fallback(painter, element, target)
        painter.end()
        pixmap.setDevicePixelRatio(ratio)
        self._cache[key] = pixmap
        self.renders += 1
        return pixmap

    def card_pixmap(self, card: Card | None, size: QSize, ratio: float = 1.0) -> QPixmap:
        return self.pixmap(element_id(card), size, ratio)

    def keep_only(self, size: QSize, ratio: float) -> None:
        """Forget pixmaps of other sizes (after a resize); emblems and the like are kept."""
        self._cache = {
            key: pixmap
            for key, pixmap in self._cache.items()
            if (key[1], key[2], key[3]) == (size.width(), size.height(), ratio)
            or key[0].startswith("emblem_")
        }

    def cached(self) -> int:
        return len(self._cache)


def _draw_fallback(painter: QPainter, element: str, rect: QRectF) -> None:
    """A plain card for an element the art does not have: a coloured frame and its name."""
    suit_code, _, value = element.partition("_")
    colour = QColor("#2d2a55")
    if element == "fool":
        colour = QColor("#3c8d7a")
    elif element == "death":
        colour = QColor("#1d1d1d")
    elif suit_code in {s.code for s in Suit}:
        colour = QColor(SUIT_COLOURS[Suit.from_code(suit_code)])
    if suit_code == "emblem":
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(SUIT_COLOURS[Suit.from_code(value)]))
        painter.drawEllipse(rect.adjusted(rect.width() * 0.1, rect.height() * 0.1,
                                          -rect.width() * 0.1, -rect.height() * 0.1))
        return
    radius = rect.width() * 0.08
    inner = rect.adjusted(1, 1, -1, -1)
    path = QPainterPath()
    path.addRoundedRect(inner, radius, radius)
    if element == BACK:
        painter.fillPath(path, QColor("#2d2a55"))
        painter.setPen(QPen(QColor("#c9b8ff"), max(1.0, rect.width() * 0.02)))
        painter.drawPath(path)
        return
    painter.fillPath(path, QColor("#f7f3ea"))
    painter.setPen(QPen(colour, max(1.0, rect.width() * 0.04)))
    painter.drawPath(path)
    font = QFont()
    font.setPixelSize(max(6, round(rect.height() * 0.14)))
    font.setBold(True)
    painter.setFont(font)
    label = element.replace("_", "\n").capitalize()
    painter.drawText(inner, Qt.AlignmentFlag.AlignCenter, label)


def shadow_pixmap(size: QSize, ratio: float) -> QPixmap:
    """A soft shadow a little larger than a card of `size`, to sit under each card."""
    spread = max(2, round(size.width() * 0.06))
    width, height = size.width() + 2 * spread, size.height() + 2 * spread
    pixmap = QPixmap(round(width * ratio), round(height * ratio))
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.scale(ratio, ratio)
    painter.setPen(Qt.PenStyle.NoPen)
    radius = size.width() * 0.08
    steps = spread
    for i in range(steps):  # concentric rounded rects, denser towards the card: a cheap blur
        inset = i
        painter.setBrush(QColor(0, 0, 0, 10 + 3 * i))
        painter.drawRoundedRect(
            QRectF(inset, inset, width - 2 * inset, height - 2 * inset),
            radius + spread - i, radius + spread - i,
        )
    painter.end()
    pixmap.setDevicePixelRatio(ratio)
    return pixmap
