"""Helpers for building Somnium positions in tests."""

from __future__ import annotations

from collections import Counter

from somnium_desktop.game import Card, GameState, Suit, from_deck, full_deck, suit_card

S = Suit


def c(suit: Suit, value: int) -> Card:
    """Shorthand for a suit card."""
    return suit_card(suit, value)


def stacked(top: list[Card], first: int = 0) -> GameState:
    """A full game whose deck starts with `top` (next card first), the rest in a fixed order."""
    rest = Counter(full_deck())
    rest.subtract(top)
    assert all(n >= 0 for n in rest.values()), "top asks for more cards than the deck has"
    # Keep the rest harmless-looking but deterministic: specials last.
    tail = sorted(rest.elements())
    return from_deck([*top, *tail], first)


def position(
    deck: list[Card],
    banks: tuple[list[Card], list[Card]] = ([], []),
    table: list[Card] | None = None,
    turn: int = 0,
) -> GameState:
    """A position with an explicit (possibly short) deck, banks and table; the rest discarded."""
    used = Counter(deck) + Counter(banks[0]) + Counter(banks[1]) + Counter(table or [])
    rest = Counter(full_deck())
    rest.subtract(used)
    assert all(n >= 0 for n in rest.values())
    return GameState(
        deck=tuple(deck),
        banks=(tuple(banks[0]), tuple(banks[1])),
        table=tuple(table or []),
        discard=tuple(sorted(rest.elements())),
        turn=turn,
        first=turn,
    )
