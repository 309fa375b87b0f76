"""The odds of the next card equal exhaustive counts over the cards really left in the deck."""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from somnium_desktop.game import DEATH, FOOL, Draw, GameState, apply, legal_actions, new_game
from somnium_desktop.game.events import Bust, DeathDrawn
from somnium_desktop.game.odds import odds, percent
from somnium_desktop.game.view import view_of

from .game_helpers import S, c, position


def counted(state: GameState) -> tuple[Fraction, Fraction, int]:
    """Bust and Death chances by drawing each card left in the deck in turn (the real engine),
    and the Fools among them."""
    busts = deaths = 0
    deck = state.deck
    for index in range(len(deck)):
        first = (deck[index], *deck[:index], *deck[index + 1 :])
        _, events = apply(dataclasses.replace(state, deck=first), state.turn, Draw())
        busts += any(isinstance(e, Bust) for e in events)
        deaths += any(isinstance(e, DeathDrawn) for e in events)
    return Fraction(busts, len(deck)), Fraction(deaths, len(deck)), deck.count(FOOL)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.randoms(use_true_random=False))
def test_odds_equal_exhaustive_counts_over_the_deck(seed: int, rng: random.Random) -> None:
    state = new_game(seed)
    checked = 0
    while not state.over:
        seat = state.turn
        choices = [a for a in legal_actions(state, seat) if a.type != "concede"]
        if Draw() in choices:
            found = odds(view_of(state))
            assert (found.bust, found.death, found.fools) == counted(state)
            checked += 1
        state, _ = apply(state, seat, rng.choice(choices))
    assert checked > 0


def test_a_table_of_suits_with_none_unseen_cannot_bust() -> None:
    deck = [c(S.SUNS, 4), FOOL, c(S.CUPS, 7)]
    table = [c(S.ANGELS, 3)]  # every other Angels card is in the discard pile
    found = odds(view_of(position(deck, table=table)))
    assert (found.bust, found.death, found.fool) == (Fraction(0), Fraction(0), Fraction(1, 3))


def test_each_unseen_card_of_a_table_suit_busts() -> None:
    deck = [c(S.ANGELS, 4), c(S.ANGELS, 7), DEATH, c(S.CUPS, 7)]
    found = odds(view_of(position(deck, table=[c(S.ANGELS, 3)])))
    assert (found.bust, found.death, found.loss) == (Fraction(1, 2), Fraction(1, 4), Fraction(3, 4))


def test_percent_never_rounds_a_chance_to_a_false_certainty() -> None:
    assert [percent(x) for x in (0, 0.004, 0.584, 0.996, 1)] == ["0%", "<1%", "58%", ">99%", "100%"]
    # (half a percent from either end: the rounding goes to 0 or 100, which it is not)
    assert [percent(Fraction(1, 200)), percent(Fraction(199, 200))] == ["<1%", ">99%"]
