"""The card deck: one SVG renderer and a pixmap cache per element, size and device pixel ratio."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtSvg import QSvgRenderer

from ..assets import deck_svg
from ..card_ids import CARD_HEIGHT, CARD_WIDTH
from ..game.cards import Card, Suit

BACK = "back"
ASPECT = CARD_WIDTH / CARD_HEIGHT  # every card element of the art has these bounds

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

    With a `disk_cache` folder, what a new window shows first (the back and the suit emblems)
    is also kept there as PNG files, so the next start-up paints the table without parsing the
    art at all; the renderer is made when the first face is needed (or by warm_up()).
    """

    def __init__(self, path: Path | None = None, disk_cache: Path | None = None) -> None:
        self._path = deck_svg() if path is None else path
        self._renderer: QSvgRenderer | None = None
        self._cache: dict[tuple[str, int, int, float], QPixmap] = {}
        self._disk = _disk_folder(self._path, disk_cache) if disk_cache is not None else None
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

    def warm_up(self) -> None:
        """Parse the art now (e.g. once the window is up), before the first face is needed."""
        self.renderer()

    @property
    def parsed(self) -> bool:
        return self._renderer is not None

    def aspect(self) -> float:
        """Card width over height (the art's card size, known without parsing it)."""
        return ASPECT

    def pixmap(self, element: str, size: QSize, ratio: float = 1.0) -> QPixmap:
        """The element rendered to fill `size` (device-independent pixels) at `ratio`."""
        key = (element, size.width(), size.height(), ratio)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        on_disk = self._disk_path(key)
        if on_disk is not None and on_disk.is_file():
            pixmap = QPixmap(str(on_disk))
            if not pixmap.isNull():
                pixmap.setDevicePixelRatio(ratio)
                self._cache[key] = pixmap
                return pixmap
        pixmap = self._render(element, size, ratio)
        self._cache[key] = pixmap
        return pixmap

    def save_start_up_pixmaps(self) -> None:
        """Keep the back and the emblems now in memory on disk for the next start-up (at close).

        Only the latest sizes are kept: the next window opens at the size this one had."""
        if self._disk is None:
            return
        keys = [key for key in self._cache if self._disk_path(key) is not None]
        try:
            if self._disk.parent.is_dir():
                for old in self._disk.parent.glob("*/*.png"):
                    old.unlink()
            self._disk.mkdir(parents=True, exist_ok=True)
            for key in keys:
                path = self._disk_path(key)
                assert path is not None
                self._cache[key].save(str(path), "PNG")
        except OSError:
            pass  # a cache, nothing more: the art will be parsed next time

    def _disk_path(self, key: tuple[str, int, int, float]) -> Path | None:
        element, width, height, ratio = key
        if self._disk is None or not (element == BACK or element.startswith("emblem_")):
            return None
        return self._disk / f"{element}-{width}x{height}@{ratio:g}.png"

    def _render(self, element: str, size: QSize, ratio: float) -> QPixmap:
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
        self.renders += 1
        return pixmap

    def card_pixmap(self, card: Card | None, size: QSize, ratio: float = 1.0) -> QPixmap:
        return self.pixmap(element_id(card), size, ratio)

    def keep_only(self, sizes: list[QSize], ratio: float) -> None:
        """Forget pixmaps of other sizes or ratios (after a resize)."""
        wanted = {(size.width(), size.height(), ratio) for size in sizes}
        self._cache = {
            key: pixmap for key, pixmap in self._cache.items() if key[1:] in wanted
        }

    def cached(self) -> int:
        return len(self._cache)


def _disk_folder(art: Path, cache: Path) -> Path:
    """The art's own folder in the disk cache: a changed file gets a new one."""
    try:
        stat = art.stat()
        stamp = f"{stat.st_size}-{stat.st_mtime_ns}"
    except OSError:
        stamp = "missing"
    return cache / f"{art.stem}-{stamp}"


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
