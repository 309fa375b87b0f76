"""The coach: the expert's own choice, every option valued, and the advice in plain words."""

from __future__ import annotations

import pytest

from somnium_desktop.game import DEATH, FOOL, Draw, EndTurn, Steal, apply, new_game
from somnium_desktop.game.bots.strong import StrongBot
from somnium_desktop.game.cards import full_deck
from somnium_desktop.game.coach import Advice, advise, describe
from somnium_desktop.game.view import view_of

from .game_helpers import S, c, position


@pytest.mark.parametrize("seed", [3, 4])
def test_the_coach_advises_what_the_expert_plays_and_values_every_legal_option(seed: int) -> None:
    players, coaches = (StrongBot(), StrongBot()), (StrongBot(), StrongBot())
    state = new_game(seed)
    while not state.over:
        seat, view = state.turn, view_of(state)
        advice = advise(view, seat, coaches[seat])
        played = players[seat].choose(view, seat)
        assert advice.choice == played
        assert {action for action, _ in advice.options} == set(view.legal)
        assert all(0.0 <= value <= 1.0 for _, value in advice.options)
        values = [value for _, value in advice.options]
        assert values == sorted(values, reverse=True)
        state, _ = apply(state, seat, played)


def test_advice_is_only_for_the_player_to_move() -> None:
    view = view_of(new_game(1))
    with pytest.raises(ValueError, match="player to move"):
        advise(view, 1 - view.turn)


def test_the_advice_in_words() -> None:
    advice = Advice(0, EndTurn(), ((EndTurn(), 0.584), (Draw(), 0.51)), exact=False)
    assert describe(advice) == "The expert would bank. Bank: 58% to win; Draw: 51%"
    steal = Advice(1, Steal(S.DEMONS), ((Steal(S.DEMONS), 0.996), (Steal(S.ANGELS), 0.24)), True)
    assert describe(steal) == (
        "The expert would steal Demons. Steal Demons: >99% to win; Steal Angels: 24%"
    )


def test_a_table_that_cannot_bust_is_worth_drawing_on() -> None:
    deck = [card for card in full_deck() if card.suit is not S.ANGELS and card != DEATH][:40]
    state = position(deck, banks=([c(S.ANGELS, 7)], [c(S.ANGELS, 6)]), table=[c(S.ANGELS, 3)])
    advice = advise(view_of(state), 0)
    assert advice.choice == Draw()
    assert advice.worth(Draw()) > advice.worth(EndTurn()) + 0.05


def test_stealing_into_a_bust_is_worth_far_less_than_the_best_steal() -> None:
    deck = [FOOL, *(card for card in full_deck() if card.suit in (S.SUNS, S.WANDS, S.CUPS))]
    table = [c(S.ANGELS, 7), c(S.TOWERS, 6), c(S.SWORDS, 7), c(S.DRAGONS, 6)]
    banks = ([c(S.MOONS, 5)], [c(S.DEMONS, 7), c(S.ANGELS, 3)])
    state = position(deck[:13], banks=banks, table=table)
    state, _ = apply(state, 0, Draw())
    advice = advise(view_of(state), 0)
    assert advice.choice == Steal(S.DEMONS)
    assert advice.worth(Steal(S.DEMONS)) > advice.worth(Steal(S.ANGELS)) + 0.5
