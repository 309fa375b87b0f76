"""The table scene's measures: the layout in card widths, timings, colours and texts."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from PySide6.QtCore import (
    QAbstractAnimation,
    QPointF,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import (
    QColor,
    QPainter,
    QPainterPath,
    QPixmap,
)

from ..game.cards import Card, Kind, Suit

# The layout, in card widths (a card is 1 wide and 1/aspect high).
SLOTS = len(Suit)
STEP = 1.06  # from one slot to the next
SIDE_GAP = 0.42  # between the deck (or discard) and the table row
MARGIN = 0.22
ROW_GAP = 0.34  # between a bank and the table row
PEEK = 0.2  # of a card height: how much of each lower card shows above the counting one
MAX_PEEKS = 4  # a bank holds at most five cards of a suit
LABEL_LINES = 0.48  # under the deck and the discard pile
LABEL_LEAST_PX = 8  # the labels' least font size, in pixels
LONGEST_LABELS = ("Deck 54", "3 Fools", "no Death", "Discard 50")
ODDS_LINES = 4  # over the deck when the odds are shown: "Odds", bust, Death, Fools left

# Motion, in milliseconds at speed 1.
MOVE_MS = 380
STAGGER_MS = 45
BUST_PAUSE_MS = 380
FOOL_PAUSE_MS = 320

STEAL_KEYS = "1234567890"  # the keys that steal Angels .. Demons
ACCENT = QColor("#f4c95d")
ACCENT_INK = QColor("#231a05")  # text on the accent colour
INK = QColor("#ece7ff")
FAINT = QColor(236, 231, 255, 60)
EMBLEM = QColor(170, 164, 214, 205)  # laid over an empty slot's emblem: 3:1 on its slot


@dataclass(frozen=True)
class Geometry:
    """Where everything goes for one view size: card size, piles and slots in pixels."""

    card_w: float
    card_h: float
    left: float
    top: float
    aspect: float

    @staticmethod
    def units(aspect: float) -> tuple[float, float]:
        """The content's width and height in card widths."""
        card_h = 1 / aspect
        bank_h = card_h * (1 + PEEK * MAX_PEEKS)
        width = 2 + 2 * SIDE_GAP + (SLOTS * STEP - (STEP - 1))
        height = 2 * MARGIN + 2 * bank_h + 2 * ROW_GAP + card_h + LABEL_LINES
        return width + 2 * MARGIN, height

    @classmethod
    def fit(cls, width: float, height: float, aspect: float) -> Geometry:
        units_w, units_h = cls.units(aspect)
        card_w = max(8.0, min(width / units_w, height / units_h))
        card_w = float(int(card_w))  # whole pixels keep cards crisp
        left = (width - units_w * card_w) / 2 + MARGIN * card_w
        top = (height - units_h * card_w) / 2 + MARGIN * card_w
        return cls(card_w, round(card_w / aspect), round(left), round(top), aspect)

    @property
    def card_size(self) -> QSize:
        return QSize(int(self.card_w), int(self.card_h))

    @property
    def step(self) -> float:
        return round(self.card_w * STEP)

    @property
    def peek(self) -> float:
        return round(self.card_h * PEEK)

    @property
    def bank_h(self) -> float:
        return self.card_h + self.peek * MAX_PEEKS

    @property
    def row_y(self) -> float:
        return self.top + self.bank_h + round(ROW_GAP * self.card_w)

    @property
    def bank_x(self) -> float:
        return self.left + self.card_w + round(SIDE_GAP * self.card_w)

    def bank_y(self, top_row: bool) -> float:
        if top_row:
            return self.top
        return self.row_y + self.card_h + round((LABEL_LINES + ROW_GAP) * self.card_w)

    def slot_rect(self, index: int, top_row: bool) -> QRectF:
        """A bank's suit slot: the counting card at the bottom, lower cards peeking above."""
        x = self.bank_x + index * self.step
        return QRectF(x, self.bank_y(top_row), self.card_w, self.bank_h)

    def table_pos(self, index: int) -> QPointF:
        return QPointF(self.bank_x + index * self.step, self.row_y)

    @property
    def deck_pos(self) -> QPointF:
        return QPointF(self.left, self.row_y)

    @property
    def discard_pos(self) -> QPointF:
        return QPointF(self.bank_x + SLOTS * self.step - (self.step - self.card_w)
                       + round(SIDE_GAP * self.card_w), self.row_y)

    @property
    def content(self) -> QRectF:
        right = self.discard_pos.x() + self.card_w
        bottom = self.bank_y(False) + self.bank_h
        return QRectF(self.left, self.top, right - self.left, bottom - self.top)


def rounded(rect: QRectF, radius: float) -> QPainterPath:
    path = QPainterPath()
    path.addRoundedRect(rect, radius, radius)
    return path


Step = Callable[[], QAbstractAnimation | None]


def card_count(count: int) -> str:
    return "1 card" if count == 1 else f"{count} cards"


def pile_text(cards: Iterable[Card]) -> str:
    """Cards by suit, one line each ("Angels: 3 5 7"), then the Fools and Death; "none" if
    there are none."""
    values: dict[Suit, list[int]] = {}
    fools = death = 0
    for card in cards:
        if card.suit is not None:
            values.setdefault(card.suit, []).append(card.value)
        elif card.kind is Kind.FOOL:
            fools += 1
        else:
            death += 1
    lines = [f"{suit.label}: {' '.join(map(str, sorted(values[suit])))}"
             for suit in Suit if suit in values]
    if fools:
        lines.append("1 Fool" if fools == 1 else f"{fools} Fools")
    if death:
        lines.append("Death")
    return "\n".join(lines) or "none"


def silhouette(pixmap: QPixmap, colour: QColor) -> QPixmap:
    """`pixmap` washed over with `colour` (translucent: its inner lines still show). (The
    emblems' own colours, dimmed on an empty slot, were near invisible on the night-blue
    felt: 1.1:1 for Moons and Demons.)"""
    shape = QPixmap(pixmap.size())
    shape.setDevicePixelRatio(pixmap.devicePixelRatio())
    shape.fill(Qt.GlobalColor.transparent)
    painter = QPainter(shape)
    painter.drawPixmap(0, 0, pixmap)
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceAtop)
    painter.fillRect(shape.rect(), colour)  # (over the emblem: its lines still show through)
    painter.end()
    return shape


def near(a: QPointF, b: QPointF) -> bool:
    return abs(a.x() - b.x()) < 0.5 and abs(a.y() - b.y()) < 0.5
