"""The table scene: it owns the piles, lays them out in card widths and plays events as moves.

Its measures are in scene_geometry; the piles' layout, furniture and the marks on the suits that
may be stolen in scene_layout; here the queue of moves, playing events and settling on a view."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from PySide6.QtCore import (
    QAbstractAnimation,
    QEasingCurve,
    QParallelAnimationGroup,
    QPauseAnimation,
    QPropertyAnimation,
    QSequentialAnimationGroup,
    QSize,
    QTimer,
)

from ..game.cards import Card, Kind
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
from .scene_geometry import (
    ACCENT,
    BUST_PAUSE_MS,
    FOOL_PAUSE_MS,
    MOVE_MS,
    SLOTS,
    STAGGER_MS,
    STEAL_KEYS,
    Step,
    card_count,
    near,
    pile_text,
)
from .scene_layout import SceneLayout

__all__ = ["ACCENT", "SLOTS", "STEAL_KEYS", "TableScene"]


class TableScene(SceneLayout):
    """The piles of one game: deck, table row, discard and two banks of ten suit slots.

    Events are played from a queue, one after another; each step moves cards between piles and
    animates them to where the layout puts them. `settle(view)` ends a batch: once everything
    before it has played, the piles are checked against the view (and rebuilt from it if they
    differ, e.g. on a first view) and `settled` is emitted.
    """

    def relayout(self, size: QSize, ratio: float) -> None:
        """Fit the table to a view of `size` (keeping its proportions) and snap every card;
        a move running is jumped to its end first."""
        self._complete_current()
        self._lay_out(size, ratio)

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
        self._set_discard(f"Discard {len(self.discard_pile)}")
        self._place_labels()
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
            if near(item.pos(), pos):
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
        for item in (self._discard_outline, self.discard_label, self.discard_count):
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
