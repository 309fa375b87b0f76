"""What anyone may see of a game: everything but the deck order and the seed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .actions import Action, Concede, action_from_dict, action_to_dict
from .cards import Card, Suit, full_deck, score
from .state import GameState, legal_actions


@dataclass(frozen=True, slots=True)
class View:
    """The public face of a game; players and observers all see this."""

    banks: tuple[tuple[Card, ...], tuple[Card, ...]]
    table: tuple[Card, ...]
    discard: tuple[Card, ...]
    deck_count: int
    fools_left: int
    death_left: bool
    turn: int
    first: int
    steal_pending: bool
    stealable: tuple[Suit, ...]
    stolen: tuple[Card, ...]
    over: bool
    winner: int | None
    conceded_by: int | None
    timed_out: int | None  # the seat whose clock ran out (it lost)
    legal: tuple[Action, ...]  # what the player to move may do, Concede left out

    @property
    def scores(self) -> tuple[int, int]:
        return (score(self.banks[0]), score(self.banks[1]))

    @property
    def table_suits(self) -> frozenset[Suit]:
        return frozenset(card.suit for card in self.table if card.suit is not None)

    def unseen(self) -> Counter[Card]:
        """The cards still in the deck, as a multiset: known to all, their order to no one."""
        left = Counter(full_deck())
        left.subtract(self.banks[0])
        left.subtract(self.banks[1])
        left.subtract(self.table)
        left.subtract(self.discard)
        return +left


def view_of(state: GameState) -> View:
    """The one function that builds what a viewer may see of a game."""
    fools_left, death_left = state.specials_left()
    return View(
        banks=state.banks,
        table=state.table,
        discard=state.discard,
        deck_count=len(state.deck),
        fools_left=fools_left,
        death_left=death_left,
        turn=state.turn,
        first=state.first,
        steal_pending=state.steal_pending,
        stealable=state.stealable_suits(),
        stolen=state.stolen,
        over=state.over,
        winner=state.winner,
        conceded_by=state.conceded_by,
        timed_out=state.timed_out,
        legal=tuple(a for a in legal_actions(state, state.turn) if not isinstance(a, Concede)),
    )


def _codes(cards: Iterable[Card]) -> list[str]:
    return [card.code for card in cards]


def _cards(codes: Iterable[str]) -> tuple[Card, ...]:
    return tuple(Card.from_code(code) for code in codes)


def view_to_dict(view: View) -> dict[str, Any]:
    """The view as plain JSON data (scores included for convenience)."""
    return {
        "banks": [_codes(bank) for bank in view.banks],
        "scores": list(view.scores),
        "table": _codes(view.table),
        "discard": _codes(view.discard),
        "deck_count": view.deck_count,
        "fools_left": view.fools_left,
        "death_left": view.death_left,
        "turn": view.turn,
        "first": view.first,
        "steal_pending": view.steal_pending,
        "stealable": [suit.code for suit in view.stealable],
        "stolen": _codes(view.stolen),
        "over": view.over,
        "winner": view.winner,
        "conceded_by": view.conceded_by,
        "timed_out": view.timed_out,
        "legal": [action_to_dict(a) for a in view.legal],
    }


def view_from_dict(data: dict[str, Any]) -> View:
    """Rebuild a view from its JSON data."""
    bank0, bank1 = (_cards(bank) for bank in data["banks"])
    return View(
        banks=(bank0, bank1),
        table=_cards(data["table"]),
        discard=_cards(data["discard"]),
        deck_count=int(data["deck_count"]),
        fools_left=int(data["fools_left"]),
        death_left=bool(data["death_left"]),
        turn=int(data["turn"]),
        first=int(data["first"]),
        steal_pending=bool(data["steal_pending"]),
        stealable=tuple(Suit.from_code(s) for s in data["stealable"]),
        stolen=_cards(data["stolen"]),
        over=bool(data["over"]),
        winner=data["winner"],
        conceded_by=data["conceded_by"],
        timed_out=data.get("timed_out"),
        legal=tuple(action_from_dict(a) for a in data["legal"]),
    )

