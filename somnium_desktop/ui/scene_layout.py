"""The table scene's piles and furniture, laid out in card widths, and its marks for stealing."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Sequence

from PySide6.QtCore import (
    QAbstractAnimation,
    QObject,
    QPointF,
    QRectF,
    QSize,
    QSizeF,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsPathItem,
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsSceneMouseEvent,
    QGraphicsSimpleTextItem,
)

from ..game.cards import DECK_SIZE, Suit
from .card_item import CardItem
from .cards import CardDeck, emblem_id, shadow_pixmap
from .label_lines import label_lines
from .scene_geometry import (
    ACCENT,
    ACCENT_INK,
    EMBLEM,
    FAINT,
    INK,
    LABEL_LEAST_PX,
    LONGEST_LABELS,
    ODDS_LINES,
    SLOTS,
    STEAL_KEYS,
    Geometry,
    Step,
    rounded,
    silhouette,
)


class SceneLayout(QGraphicsScene):
    """The piles of one game and where everything goes: outlines, emblems, labels, slots."""

    steal_clicked = Signal(object)  # Suit
    event_played = Signal(object)  # Event, as its move starts
    settled = Signal(object)  # View
    busy_changed = Signal(bool)

    def __init__(self, deck: CardDeck, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.card_deck = deck
        self._aspect = deck.aspect()
        self.geometry = Geometry.fit(800, 500, self._aspect)
        self._ratio = 1.0
        self.bottom_seat = 0
        self.card_items: list[CardItem] = [CardItem(deck) for _ in range(DECK_SIZE)]
        for item in self.card_items:
            self.addItem(item)
        self.deck_pile: list[CardItem] = list(self.card_items)
        self.table_pile: list[CardItem] = []
        self.discard_pile: list[CardItem] = []
        self.bank_piles: tuple[list[CardItem], list[CardItem]] = ([], [])
        self._fool: CardItem | None = None
        self._queue: deque[Step] = deque()
        self._current: QAbstractAnimation | None = None
        self._finalizers: list[Callable[[], None]] = []
        self._busy = False
        self._stepping = False
        self.reduced_motion = False
        self.speed = 1.0
        self.resyncs = 0  # how often a view disagreed with the piles and they were rebuilt
        self.stealable: tuple[Suit, ...] = ()
        self.focus_suit: Suit | None = None
        self._build_furniture()  # pixmaps come with the first relayout, at the view's size

    # ----- furniture: pile outlines, suit emblems, labels, steal highlights -----
    def _build_furniture(self) -> None:
        pen = QPen(FAINT, 1.2)
        fill = QBrush(QColor(255, 255, 255, 14))
        self._deck_outline = self._outline(pen, fill)
        self._discard_outline = self._outline(pen, fill)
        self._table_band = self._outline(QPen(QColor(236, 231, 255, 35), 1.0),
                                         QBrush(QColor(255, 255, 255, 10)))
        self._slot_outlines = [[self._outline(pen, fill) for _ in Suit] for _ in range(2)]
        self._emblems = [[QGraphicsPixmapItem() for _ in Suit] for _ in range(2)]
        for row in self._emblems:
            for emblem in row:
                emblem.setZValue(1)
                self.addItem(emblem)
        # A steal lights up a suit slot: a soft glow behind its cards, a gold rim above them.
        self._glows = [self._outline(QPen(Qt.PenStyle.NoPen), QBrush(QColor(244, 201, 93, 70)))
                       for _ in Suit]
        self._rims = [self._outline(QPen(ACCENT, 2.5), QBrush(Qt.BrushStyle.NoBrush))
                      for _ in Suit]
        for glow, rim in zip(self._glows, self._rims, strict=True):
            glow.setZValue(5)
            rim.setZValue(900)
            rim.setCursor(Qt.CursorShape.PointingHandCursor)
            glow.setVisible(False)
            rim.setVisible(False)
        self._focus_ring = self._outline(QPen(QColor("#ffffff"), 3.0, Qt.PenStyle.DashLine),
                                         QBrush(Qt.BrushStyle.NoBrush))
        self._focus_ring.setZValue(901)
        self._focus_ring.setVisible(False)
        # Each stealable suit shows the number key that steals it, on a gold disc.
        self._key_discs = [self._outline(QPen(ACCENT_INK, 1.0), QBrush(ACCENT)) for _ in Suit]
        self.key_labels = [self._text() for _ in Suit]
        for suit, disc, label in zip(Suit, self._key_discs, self.key_labels, strict=True):
            disc.setZValue(902)
            label.setZValue(903)
            label.setBrush(ACCENT_INK)
            label.setText(STEAL_KEYS[suit])
            disc.setVisible(False)
            label.setVisible(False)
        self._label_texts: dict[int, str] = {}  # each label's whole text, by id
        self._label_room = 60.0  # pixels a label may take (set by the layout)
        self._discard_room = 60.0  # and one under the discard pile
        self._label_line = 12.0  # from one label's top to the next one's
        self.deck_label = self._text()
        self.fools_label = self._text()
        self.death_label = self._text()
        self.discard_label = self._text()
        # A count too wide for the room right of the table ("Discard 10" on a small table)
        # puts its number on a line of its own, under its word (see label_lines).
        self.discard_count = self._text()
        # The odds of the next card, over the deck (shown only when the game has them on): a
        # label a line, two for a line too wide for the room beside the table (see set_odds).
        self._odds: list[str] = []
        self.odds_labels = [self._text() for _ in range(2 * ODDS_LINES - 1)]
        for label in self.odds_labels:
            label.setVisible(False)

    def _outline(self, pen: QPen, brush: QBrush) -> QGraphicsPathItem:
        item = QGraphicsPathItem()
        item.setPen(pen)
        item.setBrush(brush)
        item.setZValue(0)
        self.addItem(item)
        return item

    def _text(self) -> QGraphicsSimpleTextItem:
        item = QGraphicsSimpleTextItem()
        item.setBrush(INK)
        item.setZValue(2)
        self.addItem(item)
        return item

    # ----- layout -----
    def _lay_out(self, size: QSize, ratio: float) -> None:
        """Fit the table to a view of `size` (keeping its proportions) and snap every card."""
        self.setSceneRect(QRectF(0, 0, size.width(), size.height()))
        self._ratio = ratio
        geo = self.geometry = Geometry.fit(size.width(), size.height(), self._aspect)
        card = geo.card_size
        emblem_size = QSize(round(geo.card_w * 0.62), round(geo.card_w * 0.62))
        self.card_deck.keep_only([card, emblem_size], ratio)
        shadow = shadow_pixmap(card, ratio)
        for item in self.card_items:
            item.set_size(card, ratio, shadow)
        radius = geo.card_w * 0.08
        card_rect = QRectF(0, 0, geo.card_w, geo.card_h)
        self._deck_outline.setPath(rounded(card_rect.translated(geo.deck_pos), radius))
        self._discard_outline.setPath(rounded(card_rect.translated(geo.discard_pos), radius))
        pad = geo.card_w * 0.1
        band = QRectF(geo.table_pos(0), geo.table_pos(SLOTS - 1) + QPointF(geo.card_w, geo.card_h))
        self._table_band.setPath(rounded(band.adjusted(-pad, -pad, pad, pad), radius * 1.5))
        for row, top in enumerate((True, False)):
            for suit in Suit:
                slot = self._counting_rect(suit, top)
                self._slot_outlines[row][suit].setPath(rounded(slot, radius))
                emblem = self._emblems[row][suit]
                emblem.setPixmap(silhouette(
                    self.card_deck.pixmap(emblem_id(suit), emblem_size, ratio), EMBLEM))
                emblem.setPos(slot.center() - QPointF(emblem_size.width() / 2,
                                                      emblem_size.height() / 2))
        self._fit_labels()
        self._show_highlights()
        self._snap()

    def _counting_rect(self, suit: Suit, top_row: bool) -> QRectF:
        slot = self.geometry.slot_rect(suit, top_row)
        return QRectF(slot.left(), slot.bottom() - self.geometry.card_h,
                      self.geometry.card_w, self.geometry.card_h)

    def _band_right(self) -> float:
        """Where the band around the table row ends, on the discard pile's side."""
        geo = self.geometry
        return geo.table_pos(SLOTS - 1).x() + geo.card_w * 1.1

    def _fit_labels(self) -> None:
        """The labels' font: a sixth of a card, smaller if their longest words would not fit
        between the window's edge and the table row (they would overlap it, or be cut)."""
        geo = self.geometry
        self._label_room = max(1.0, geo.bank_x - geo.card_w * 0.1 - 4)
        self._discard_room = max(1.0, self.width() - self._band_right() - 4)
        font = QFont()
        size = max(LABEL_LEAST_PX, round(geo.card_w * 0.17))
        while True:
            font.setPixelSize(size)
            metrics = QFontMetricsF(font)
            widest = max(metrics.horizontalAdvance(text) for text in LONGEST_LABELS)
            if widest <= self._label_room or size <= LABEL_LEAST_PX:
                break
            size -= 1
        self._label_line = max(round(geo.card_w * 0.22), math.ceil(metrics.height()) + 1)
        for label in (self.deck_label, self.fools_label, self.death_label):
            label.setFont(font)
            self._set_label(label, self._label_texts.get(id(label), label.text()))
        for label in (self.discard_label, self.discard_count):
            label.setFont(font)
        self._set_discard(self._label_texts.get(id(self.discard_label), ""))
        for label in self.odds_labels:
            label.setFont(font)
        self.set_odds(self._odds)  # (wrapped again to the new room)

    def _set_label(self, label: QGraphicsSimpleTextItem, text: str) -> None:
        """A label's text, elided to the room it has (its tooltip tells the pile in full)."""
        self._label_texts[id(label)] = text
        metrics = QFontMetricsF(label.font())
        label.setText(metrics.elidedText(text, Qt.TextElideMode.ElideRight, self._label_room))

    def _set_discard(self, text: str) -> None:
        """The discard's count under it: one line when it fits right of the table row, else
        its word over its number ("Discard" / "10"), so neither is cut."""
        self._label_texts[id(self.discard_label)] = text
        parts = label_lines(text, QFontMetricsF(self.discard_label.font()), self._discard_room)
        self.discard_label.setText(parts[0])
        self.discard_count.setText(parts[1] if len(parts) > 1 else "")
        self.discard_count.setVisible(len(parts) > 1)

    def _place_labels(self) -> None:
        geo = self.geometry
        below = geo.row_y + geo.card_h + geo.card_w * 0.06
        line = self._label_line
        for label, x, y in (
            (self.deck_label, geo.deck_pos.x(), below),
            (self.fools_label, geo.deck_pos.x(), below + line),
            (self.death_label, geo.deck_pos.x(), below + 2 * line),
            (self.discard_label, geo.discard_pos.x(), below),
            (self.discard_count, geo.discard_pos.x(), below + line),
        ):
            width = label.boundingRect().width()
            # under its pile, within the view; the discard's clear of the table row's band
            least = 2.0 if x < geo.bank_x else self._band_right() + 2
            left = min(max(least, x + (geo.card_w - width) / 2), self.width() - width - 2)
            label.setPos(round(left), round(y))
        shown = [label for label in self.odds_labels if label.isVisible()]
        above = geo.row_y - geo.card_w * 0.06 - len(shown) * line
        # over the deck, or further left where the widest line would reach the table's row
        widest = max((label.boundingRect().width() for label in shown), default=0.0)
        left = max(0.0, min(geo.deck_pos.x(), self._label_room - widest))
        for n, label in enumerate(shown):
            label.setPos(math.floor(left), round(above + n * line))

    def set_odds(self, lines: Sequence[str]) -> None:
        """The odds of the next card over the deck, a line each; none hides them. A line too
        wide for the room beside the table ("Fools left 3" on a small table) takes two
        labels, its last word under the rest, instead of being cut."""
        self._odds = list(lines)
        metrics = QFontMetricsF(self.deck_label.font())
        parts = [part for line in self._odds[:ODDS_LINES]
                 for part in label_lines(line, metrics, self._label_room)]
        for n, label in enumerate(self.odds_labels):
            label.setText(parts[n] if n < len(parts) else "")
            label.setVisible(n < len(parts))
        self._place_labels()

    def set_deck_info(
        self, count: int, fools: int | None = None, death: bool | None = None
    ) -> None:
        self._set_label(self.deck_label, f"Deck {count}")
        if fools is not None and death is not None:
            fool_text = {0: "no Fools", 1: "1 Fool"}.get(fools, f"{fools} Fools")
            self._set_label(self.fools_label, fool_text)
            # (a count like the Fools': "Death in" read as a label cut short)
            self._set_label(self.death_label, "1 Death" if death else "no Death")
        self._set_discard(f"Discard {len(self.discard_pile)}")
        self._place_labels()

    def top_seat(self) -> int:
        return 1 - self.bottom_seat

    def bank_slot_rect(self, seat: int, suit: Suit) -> QRectF:
        """Where a seat's bank keeps its cards of `suit` (for clicks and tests)."""
        return self.geometry.slot_rect(suit, seat != self.bottom_seat)

    # ----- targets: where each card belongs in the current piles -----
    def _targets(self) -> dict[CardItem, tuple[QPointF, float]]:
        geo = self.geometry
        targets: dict[CardItem, tuple[QPointF, float]] = {}
        for i, item in enumerate(self.deck_pile):
            lift = i // 9
            targets[item] = (geo.deck_pos - QPointF(lift, lift), 10 + i)
        for i, item in enumerate(self.discard_pile):
            lift = min(i // 9, 5)
            targets[item] = (geo.discard_pos - QPointF(lift, lift), 100 + i)
        for i, item in enumerate(self.table_pile):
            targets[item] = (geo.table_pos(min(i, SLOTS - 1)), 300 + i)
        for seat, pile in enumerate(self.bank_piles):
            top_row = seat != self.bottom_seat
            groups: dict[Suit, list[CardItem]] = {}
            for item in pile:
                if item.card is not None and item.card.suit is not None:
                    groups.setdefault(item.card.suit, []).append(item)
            for suit, items in groups.items():
                items.sort(key=lambda it: it.card.value if it.card is not None else 0)
                base = self._counting_rect(suit, top_row).topLeft()
                for k, item in enumerate(items):
                    up = (len(items) - 1 - k) * geo.peek
                    targets[item] = (base - QPointF(0, up), 200 + k)
        return targets

    def _snap(self) -> None:
        for item, (pos, z) in self._targets().items():
            item.setPos(pos)
            item.setZValue(z)

    # ----- stealing -----
    def set_stealable(self, suits: Sequence[Suit], focus: Suit | None) -> None:
        """Light up the opponent's suits that may be stolen now; `focus` is the keyboard's pick."""
        self.stealable = tuple(suits)
        self.focus_suit = focus if focus in self.stealable else None
        self._show_highlights()

    def _stack_rect(self, suit: Suit) -> QRectF:
        """The opponent's cards of a suit: the counting one and those peeking above it."""
        held = sum(1 for item in self.bank_piles[self.top_seat()]
                   if item.card is not None and item.card.suit == suit)
        rect = self._counting_rect(suit, True)
        return rect.adjusted(0, -max(0, held - 1) * self.geometry.peek, 0, 0)

    def _show_highlights(self) -> None:
        geo = self.geometry
        for suit in Suit:
            lit = suit in self.stealable
            self._glows[suit].setVisible(lit)
            self._rims[suit].setVisible(lit)
            if lit:
                pad = geo.card_w * 0.03
                path = rounded(self._stack_rect(suit).adjusted(-pad, -pad, pad, pad),
                                geo.card_w * 0.11)
                self._glows[suit].setPath(path)
                self._rims[suit].setPath(path)
                self._place_key(suit)
            self._key_discs[suit].setVisible(lit)
            self.key_labels[suit].setVisible(lit)
        if self.focus_suit is None:
            self._focus_ring.setVisible(False)
            return
        pad = geo.card_w * 0.08
        rect = self._stack_rect(self.focus_suit).adjusted(-pad, -pad, pad, pad)
        self._focus_ring.setPath(rounded(rect, geo.card_w * 0.15))
        self._focus_ring.setVisible(True)

    def _place_key(self, suit: Suit) -> None:
        """The suit's number key on a disc at the top left corner of its glowing stack."""
        geo = self.geometry
        size = max(14.0, round(geo.card_w * 0.34))
        corner = self._stack_rect(suit).topLeft() - QPointF(size * 0.3, size * 0.3)
        disc = QRectF(corner, QSizeF(size, size))
        path = QPainterPath()
        path.addEllipse(disc)
        self._key_discs[suit].setPath(path)
        label = self.key_labels[suit]
        font = QFont()
        font.setPixelSize(max(10, round(size * 0.7)))
        font.setBold(True)
        label.setFont(font)
        box = label.boundingRect()
        label.setPos(disc.center() - QPointF(box.width() / 2, box.height() / 2))

    def suit_at(self, pos: QPointF) -> Suit | None:
        """The opponent's suit slot under a scene position, if it may be stolen now."""
        for suit in self.stealable:
            if self.bank_slot_rect(self.top_seat(), suit).contains(pos):
                return suit
        return None

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            suit = self.suit_at(event.scenePos())
            if suit is not None:
                event.accept()
                self.steal_clicked.emit(suit)
                return
        super().mousePressEvent(event)
