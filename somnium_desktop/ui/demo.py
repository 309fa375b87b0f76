"""A dance of all 54 cards across the table, for benchmarks and the soak test."""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractAnimation,
    QEasingCurve,
    QParallelAnimationGroup,
    QPointF,
    QPropertyAnimation,
)

from ..game.cards import Suit, full_deck
from .scene import SLOTS, TableScene


def deal_face_up(scene: TableScene) -> None:
    """Show every card face up: each scene card gets one of the 54."""
    scene.reset(0)
    for item, card in zip(scene.card_items, full_deck(), strict=True):
        item.set_card(card, face_up=True)


def spots(scene: TableScene) -> list[QPointF]:
    """Places across the whole table: both banks' slots, the table row, deck and discard."""
    geo = scene.geometry
    places = [geo.table_pos(i) for i in range(SLOTS)]
    for top in (True, False):
        places += [scene.bank_slot_rect(scene.top_seat() if top else scene.bottom_seat, suit)
                   .topLeft() for suit in Suit]
    return [*places, geo.deck_pos, geo.discard_pos]


def dance(scene: TableScene, period_ms: int = 900) -> QAbstractAnimation:
    """Every card flies back and forth between two places, forever, out of step with the others."""
    deal_face_up(scene)
    places = spots(scene)
    group = QParallelAnimationGroup(scene)
    for i, item in enumerate(scene.card_items):
        start, end = places[i % len(places)], places[(i * 7 + 5) % len(places)]
        item.setPos(start)
        item.setZValue(i)
        move = QPropertyAnimation(item, b"pos", group)
        move.setDuration(period_ms + (i % 9) * 40)
        move.setStartValue(start)
        move.setKeyValueAt(0.5, end)
        move.setEndValue(start)
        move.setEasingCurve(QEasingCurve.Type.InOutSine)
        move.setLoopCount(-1)
        group.addAnimation(move)
        if i % 5 == 0:
            turn = QPropertyAnimation(item.flip, b"angle", group)
            turn.setDuration(period_ms * 2)
            turn.setStartValue(0.0)
            turn.setEndValue(360.0)
            turn.setLoopCount(-1)
            group.addAnimation(turn)
    return group
