"""The table scene: it owns the piles, lays them out in card widths and plays events as moves."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial

from PySide6.QtCore import (
    QAbstractAnimation,
    QEasingCurve,
    QObject,
    QParallelAnimationGroup,
    QPauseAnimation,
    QPointF,
    QPropertyAnimation,
    QRectF,
    QSequentialAnimationGroup,
    QSize,
    QSizeF,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import (
    QGraphicsPathItem,
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsSceneMouseEvent,
    QGraphicsSimpleTextItem,
)

from ..game.cards import DECK_SIZE, Card, Kind, Suit
from ..game.events import (
    Banked,
    Bust,
    CardDrawn,
    CardStolen,
    DeathDrawn,
    Event,
    FoolWasted,
    StealRequired,
)
from ..game.view import View
from .card_item import CardItem
from .cards import CardDeck, emblem_id, shadow_pixmap

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


def _rounded(rect: QRectF, radius: float) -> QPainterPath:
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


class TableScene(QGraphicsScene):
    """The piles of one game: deck, table row, discard and two banks of ten suit slots.

    Events are played from a queue, one after another; each step moves cards between piles and
    animates them to where the layout puts them. `settle(view)` ends a batch: once everything
    before it has played, the piles are checked against the view (and rebuilt from it if they
    differ, e.g. on a first view) and `settled` is emitted.
    """

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
        self._label_line = 12.0  # from one label's top to the next one's
        self.deck_label = self._text()
        self.fools_label = self._text()
        self.death_label = self._text()
        self.discard_label = self._text()

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
    def relayout(self, size: QSize, ratio: float) -> None:
        """Fit the table to a view of `size` (keeping its proportions) and snap every card."""
        self._complete_current()
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
        self._deck_outline.setPath(_rounded(card_rect.translated(geo.deck_pos), radius))
        self._discard_outline.setPath(_rounded(card_rect.translated(geo.discard_pos), radius))
        pad = geo.card_w * 0.1
        band = QRectF(geo.table_pos(0), geo.table_pos(SLOTS - 1) + QPointF(geo.card_w, geo.card_h))
        self._table_band.setPath(_rounded(band.adjusted(-pad, -pad, pad, pad), radius * 1.5))
        for row, top in enumerate((True, False)):
            for suit in Suit:
                slot = self._counting_rect(suit, top)
                self._slot_outlines[row][suit].setPath(_rounded(slot, radius))
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

    def _fit_labels(self) -> None:
        """The labels' font: a sixth of a card, smaller if their longest words would not fit
        between the window's edge and the table row (they would overlap it, or be cut)."""
        geo = self.geometry
        self._label_room = max(1.0, geo.bank_x - geo.card_w * 0.1 - 4)
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
        for label in (self.deck_label, self.fools_label, self.death_label, self.discard_label):
            label.setFont(font)
            self._set_label(label, self._label_texts.get(id(label), label.text()))
        self._place_labels()

    def _set_label(self, label: QGraphicsSimpleTextItem, text: str) -> None:
        """A label's text, elided to the room it has (its tooltip tells the pile in full)."""
        self._label_texts[id(label)] = text
        metrics = QFontMetricsF(label.font())
        label.setText(metrics.elidedText(text, Qt.TextElideMode.ElideRight, self._label_room))

    def _place_labels(self) -> None:
        geo = self.geometry
        below = geo.row_y + geo.card_h + geo.card_w * 0.06
        line = self._label_line
        for label, x, y in (
            (self.deck_label, geo.deck_pos.x(), below),
            (self.fools_label, geo.deck_pos.x(), below + line),
            (self.death_label, geo.deck_pos.x(), below + 2 * line),
            (self.discard_label, geo.discard_pos.x(), below),
        ):
            width = label.boundingRect().width()
            left = min(max(2.0, x + (geo.card_w - width) / 2), self.width() - width - 2)
            label.setPos(round(left), round(y))

    def set_deck_info(
        self, count: int, fools: int | None = None, death: bool | None = None
    ) -> None:
        self._set_label(self.deck_label, f"Deck {count}")
        if fools is not None and death is not None:
            fool_text = {0: "no Fools", 1: "1 Fool"}.get(fools, f"{fools} Fools")
            self._set_label(self.fools_label, fool_text)
            self._set_label(self.death_label, "Death in" if death else "no Death")
        self._set_label(self.discard_label, f"Discard {len(self.discard_pile)}")
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

    # ----- the queue -----
    @property
    def busy(self) -> bool:
        """True while a move runs or steps wait in the queue."""
        return self._current is not None or bool(self._queue)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)

    def _duration(self, ms: float) -> int:
        return 0 if self.reduced_motion else max(1, round(ms / max(self.speed, 0.05)))

    def set_motion(self, reduced: bool, speed: float) -> None:
        self.reduced_motion = reduced
        self.speed = speed

    def _enqueue(self, step: Step) -> None:
        self._queue.append(step)
        if self._current is None and not self._stepping:
            self._run_next()

    def _run_next(self) -> None:
        while self._queue:
            step = self._queue.popleft()
            self._stepping = True
            try:
                animation = step()
            finally:
                self._stepping = False
            if animation is not None and animation.totalDuration() > 0:
                self._current = animation
                animation.finished.connect(self._step_finished)
                self._set_busy(True)
                animation.start()
                return
            self._finish_step()
        self._set_busy(False)

    def _step_finished(self) -> None:
        self._retire(self._current)
        self._current = None
        self._finish_step()
        self._run_next()

    def _retire(self, animation: QAbstractAnimation | None) -> None:
        """Let Qt delete a move once control is back in the event loop.

        The groups are made without a parent, so Python's reference is their only owner: dropped
        inside the group's own `finished` signal, it deleted the group while Qt was still in it,
        and an animated game crashed within a few turns."""
        if animation is not None:
            animation.setParent(self)
            animation.deleteLater()

    def _finish_step(self) -> None:
        finalizers, self._finalizers = self._finalizers, []
        for finalize in finalizers:
            finalize()

    def _complete_current(self) -> None:
        """Jump the running move to its end (used on resize), keeping the queue."""
        current, self._current = self._current, None
        if current is not None:
            current.finished.disconnect(self._step_finished)
            current.stop()
            self._retire(current)
            self._finish_step()
            self._snap()
            if self._queue:
                QTimer.singleShot(0, self._resume)
            else:
                self._set_busy(False)

    def _resume(self) -> None:
        if self._current is None:
            self._run_next()

    def clear_queue(self) -> None:
        """Drop what is queued (a new game starts) and stop the running move."""
        self._queue.clear()
        current, self._current = self._current, None
        if current is not None:
            current.finished.disconnect(self._step_finished)
            current.stop()
            self._retire(current)
        self._finish_step()
        self._set_busy(False)

    # ----- playing events -----
    def play(self, events: Sequence[Event]) -> None:
        for event in events:
            self._enqueue(partial(self._play, event))

    def settle(self, view: View, animate: bool = True) -> None:
        self._enqueue(partial(self._settle, view, animate))

    def _play(self, event: Event) -> QAbstractAnimation | None:
        self.event_played.emit(event)
        if isinstance(event, CardDrawn):
            return self._draw(event.card)
        if isinstance(event, StealRequired | FoolWasted):
            fool, self._fool = self._fool, None
            if fool is None or fool not in self.table_pile:
                return None
            self.table_pile.remove(fool)
            self.discard_pile.append(fool)
            return self._move([fool])
        if isinstance(event, CardStolen):
            bank = self.bank_piles[event.from_seat]
            item = next((it for it in bank if it.card == event.card), None)
            if item is None:
                return None
            bank.remove(item)
            self.table_pile.append(item)
            return self._move([item])
        if isinstance(event, Bust | DeathDrawn):
            items = list(self.table_pile)
            self.table_pile.clear()
            self.discard_pile.extend(items)
            return self._move(items, pause=BUST_PAUSE_MS)
        if isinstance(event, Banked):
            items = list(self.table_pile)
            self.table_pile.clear()
            self.bank_piles[event.seat].extend(items)
            return self._move(items)
        return None

    def _draw(self, card: Card) -> QAbstractAnimation | None:
        if not self.deck_pile:
            return None
        item = self.deck_pile.pop()
        item.set_card(card, face_up=False)
        self.table_pile.append(item)
        self.set_deck_info(len(self.deck_pile))
        after = 0
        if card.kind is Kind.FOOL:
            self._fool = item
            after = FOOL_PAUSE_MS
        return self._move([item], flip=item, after=after)

    def _move(
        self,
        moving: Sequence[CardItem],
        flip: CardItem | None = None,
        pause: float = 0,
        after: float = 0,
    ) -> QAbstractAnimation | None:
        """Animate every card whose place changed; the `moving` ones fly above the rest."""
        targets = self._targets()
        duration = self._duration(MOVE_MS)
        self._set_label(self.discard_label, f"Discard {len(self.discard_pile)}")
        if duration == 0:
            if flip is not None:
                flip.show_face()
            self._snap()
            return None
        group = QParallelAnimationGroup()
        flying = set(moving)
        stagger = self._duration(STAGGER_MS)
        order = {item: i for i, item in enumerate(moving)}
        for item, (pos, z) in targets.items():
            item.setZValue(1000 + z if item in flying else z)  # _snap lowers them at the end
            if _near(item.pos(), pos):
                continue
            anim = QPropertyAnimation(item, b"pos")
            anim.setStartValue(item.pos())
            anim.setEndValue(pos)
            anim.setDuration(duration)
            anim.setEasingCurve(QEasingCurve.Type.OutCubic)
            delay = order.get(item, 0) * stagger
            if delay:
                sequence = QSequentialAnimationGroup()
                sequence.addPause(delay)
                sequence.addAnimation(anim)
                group.addAnimation(sequence)
            else:
                group.addAnimation(anim)
        if flip is not None:
            group.addAnimation(self._flip(flip, duration))
        self._finalizers.append(self._snap)
        if not pause and not after:
            return group
        outer = QSequentialAnimationGroup()
        if pause:
            outer.addAnimation(QPauseAnimation(self._duration(pause)))
        outer.addAnimation(group)
        if after:
            outer.addAnimation(QPauseAnimation(self._duration(after)))
        return outer

    def _flip(self, item: CardItem, duration: int) -> QAbstractAnimation:
        """A flip: turn edge-on, show the face, turn back (a rotation about the card's y axis)."""
        half = max(1, duration // 2)
        first = QPropertyAnimation(item.flip, b"angle")
        first.setStartValue(0.0)
        first.setEndValue(90.0)
        first.setDuration(half)
        first.finished.connect(item.show_face)
        second = QPropertyAnimation(item.flip, b"angle")
        second.setStartValue(-90.0)
        second.setEndValue(0.0)
        second.setDuration(half)
        sequence = QSequentialAnimationGroup()
        sequence.addAnimation(first)
        sequence.addAnimation(second)

        def done() -> None:
            item.flip.setAngle(0.0)
            item.show_face()

        self._finalizers.append(done)
        return sequence

    # ----- settling on a view -----
    def _settle(self, view: View, animate: bool) -> QAbstractAnimation | None:
        self._fool = None
        animation: QAbstractAnimation | None = None
        if not self.matches(view):
            self.resyncs += animate  # a first view is expected to differ; count only surprises
            self._rebuild(view)
            animation = self._move([]) if animate else None
            if animation is None:
                self._snap()
        self.set_deck_info(view.deck_count, view.fools_left, view.death_left)
        self._describe_piles(view)
        self.settled.emit(view)
        return animation

    def _describe_piles(self, view: View | None) -> None:
        """Tooltips for the deck and the discard: what is in them, by suit (public knowledge;
        the deck's order stays unknown)."""
        if view is None:
            deck_tip = discard_tip = ""
        else:
            deck_tip = "\n".join((
                f"Still in the deck, in an order nobody knows: {card_count(view.deck_count)}",
                pile_text(view.unseen().elements())))
            discard_tip = "\n".join((f"Discarded: {card_count(len(view.discard))}",
                                     pile_text(view.discard)))
        for item in (self._deck_outline, self.deck_label, self.fools_label, self.death_label):
            item.setToolTip(deck_tip)
        for item in (self._discard_outline, self.discard_label):
            item.setToolTip(discard_tip)

    def matches(self, view: View) -> bool:
        """Whether the piles hold exactly what the view says."""
        def cards(pile: list[CardItem]) -> list[Card | None]:
            return [item.card if item.face_up else None for item in pile]

        return (
            len(self.deck_pile) == view.deck_count
            and cards(self.table_pile) == list(view.table)
            and cards(self.discard_pile) == list(view.discard)
            and all(
                sorted(c for c in cards(pile) if c is not None) == sorted(view.banks[seat])
                and len(pile) == len(view.banks[seat])
                for seat, pile in enumerate(self.bank_piles)
            )
        )

    def _rebuild(self, view: View) -> None:
        """Deal the cards into the piles the view describes, keeping items that already fit."""
        spare: dict[Card, list[CardItem]] = {}
        loose: list[CardItem] = []
        for pile in (self.table_pile, self.discard_pile, *self.bank_piles):
            for item in pile:
                if item.card is not None:
                    spare.setdefault(item.card, []).append(item)
                else:
                    loose.append(item)
        loose.extend(self.deck_pile)

        def take(card: Card) -> CardItem:
            pool = spare.get(card)
            item = pool.pop() if pool else loose.pop()
            item.set_card(card, face_up=True)
            return item

        self.table_pile = [take(card) for card in view.table]
        self.discard_pile = [take(card) for card in view.discard]
        self.bank_piles = ([take(card) for card in view.banks[0]],
                           [take(card) for card in view.banks[1]])
        rest = loose + [item for pool in spare.values() for item in pool]
        for item in rest:
            item.set_card(None, face_up=False)
            item.flip.setAngle(0.0)
        self.deck_pile = rest[: view.deck_count]

    def reset(self, bottom_seat: int) -> None:
        """A new game: every card back in the deck, face down, `bottom_seat` at the bottom."""
        self.clear_queue()
        self.bottom_seat = bottom_seat
        self._fool = None
        self.table_pile, self.discard_pile, self.bank_piles = [], [], ([], [])
        for item in self.card_items:
            item.set_card(None, face_up=False)
            item.flip.setAngle(0.0)
        self.deck_pile = list(self.card_items)
        self.set_stealable((), None)
        self.set_deck_info(len(self.deck_pile), 3, True)
        self._describe_piles(None)
        self._snap()

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
                path = _rounded(self._stack_rect(suit).adjusted(-pad, -pad, pad, pad),
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
        self._focus_ring.setPath(_rounded(rect, geo.card_w * 0.15))
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


def _near(a: QPointF, b: QPointF) -> bool:
    return abs(a.x() - b.x()) < 0.5 and abs(a.y() - b.y()) < 0.5
