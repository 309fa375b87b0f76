"""The rules of docs/rules.md, 1 to 13, each test naming the rule it checks (edge cases too).

Rule 14 (what everyone sees) is tested in tests/test_properties.py and tests/server/test_secrecy.py;
rules 15 to 18 (the classic computer player) in tests/test_bots.py.
"""

from __future__ import annotations

import pytest

from somnium_desktop.game import (
    DEATH,
    FOOL,
    Concede,
    Draw,
    EndTurn,
    Steal,
    apply,
    errors,
    full_deck,
    legal_actions,
    new_game,
    score,
)
from somnium_desktop.game.events import (
    Banked,
    Bust,
    CardDrawn,
    CardStolen,
    Conceded,
    DeathDrawn,
    FoolWasted,
    GameEnded,
    StealRequired,
    TurnPassed,
)

from .game_helpers import S, c, position, stacked


# Rule 1.
def test_deck_has_54_cards_ten_suits_values_three_to_seven() -> None:
    deck = full_deck()
    assert len(deck) == 54
    assert deck.count(FOOL) == 3 and deck.count(DEATH) == 1
    suit_cards = [card for card in deck if card.suit is not None]
    assert len(suit_cards) == 50
    assert {(card.suit, card.value) for card in suit_cards} == {
        (suit, v) for suit in S for v in range(3, 8)
    }
    assert [s.label for s in S] == [
        "Angels", "Suns", "Wands", "Cups", "Towers", "Swords", "Dragons", "Pentacles", "Moons",
        "Demons",
    ]


# Rule 2.
def test_seed_decides_shuffle_and_coin_toss() -> None:
    assert new_game(7) == new_game(7)
    games = [new_game(seed) for seed in range(40)]
    assert len({g.deck for g in games}) == 40
    assert {g.turn for g in games} == {0, 1}  # the coin lands both ways
    assert all(g.turn == g.first for g in games)


# Rule 3.
def test_turn_starts_with_a_draw_end_turn_on_empty_table_refused() -> None:
    game = stacked([c(S.ANGELS, 3)])
    assert legal_actions(game, 0) == [Draw(), Concede()]
    with pytest.raises(errors.EmptyTable, match="table is empty"):
        apply(game, 0, EndTurn())


# Rule 4.
def test_drawn_suit_card_goes_on_the_table() -> None:
    game, events = apply(stacked([c(S.SUNS, 5)]), 0, Draw())
    assert game.table == (c(S.SUNS, 5),)
    assert events == [CardDrawn(0, c(S.SUNS, 5))]
    assert game.turn == 0 and game.deck_count == 53


# Rule 4.
def test_two_cards_of_a_suit_bust_the_turn() -> None:
    game = stacked([c(S.SUNS, 5), c(S.CUPS, 3), c(S.SUNS, 7)])
    for _ in range(3):
        game, events = apply(game, 0, Draw())
    assert game.table == ()
    assert game.discard[-3:] == (c(S.SUNS, 5), c(S.CUPS, 3), c(S.SUNS, 7))
    assert events == [
        CardDrawn(0, c(S.SUNS, 7)),
        Bust(0, S.SUNS, (c(S.SUNS, 5), c(S.CUPS, 3), c(S.SUNS, 7))),
        TurnPassed(1),
    ]
    assert game.turn == 1 and game.banks == ((), ())


# Rule 5.
def test_death_discards_table_and_itself_and_is_gone() -> None:
    game = stacked([c(S.SUNS, 5), DEATH])
    game, _ = apply(game, 0, Draw())
    game, events = apply(game, 0, Draw())
    assert events == [
        CardDrawn(0, DEATH),
        DeathDrawn(0, (c(S.SUNS, 5), DEATH)),
        TurnPassed(1),
    ]
    assert game.table == () and DEATH in game.discard and not game.death_left


# Rule 9.
def test_end_turn_banks_the_table_and_passes() -> None:
    game = stacked([c(S.SUNS, 5), c(S.CUPS, 6)])
    game, _ = apply(game, 0, Draw())
    game, _ = apply(game, 0, Draw())
    game, events = apply(game, 0, EndTurn())
    assert game.banks[0] == (c(S.SUNS, 5), c(S.CUPS, 6))
    assert events == [Banked(0, (c(S.SUNS, 5), c(S.CUPS, 6)), 11), TurnPassed(1)]
    assert game.turn == 1 and game.table == ()


# Rule 9.
def test_bank_keeps_lower_cards_of_a_suit() -> None:
    game = position([c(S.SUNS, 3), c(S.ANGELS, 3)], banks=([c(S.SUNS, 6)], []))
    game, _ = apply(game, 0, Draw())
    game, _ = apply(game, 0, EndTurn())
    assert sorted(game.banks[0]) == [c(S.SUNS, 3), c(S.SUNS, 6)]
    assert game.scores[0] == 6


# Rule 6.
def test_fool_forces_a_steal_of_the_highest_card_of_the_suit() -> None:
    game = position(
        [FOOL, c(S.ANGELS, 3)],
        banks=([], [c(S.MOONS, 4), c(S.MOONS, 7), c(S.CUPS, 3)]),
        table=[c(S.SUNS, 5)],
    )
    game, events = apply(game, 0, Draw())
    assert events == [CardDrawn(0, FOOL), StealRequired(0, (S.CUPS, S.MOONS))]
    assert game.steal_pending and game.stealable_suits() == (S.CUPS, S.MOONS)
    assert FOOL in game.discard and game.fools_left == 0
    assert legal_actions(game, 0) == [Steal(S.CUPS), Steal(S.MOONS), Concede()]
    with pytest.raises(errors.MustSteal, match="must steal"):
        apply(game, 0, Draw())
    with pytest.raises(errors.MustSteal):
        apply(game, 0, EndTurn())
    with pytest.raises(errors.SuitNotHeld, match="no Angels"):
        apply(game, 0, Steal(S.ANGELS))
    with pytest.raises(errors.SuitNotHeld, match="no 42"):  # (no such suit at all)
        apply(game, 0, Steal(42))  # type: ignore[arg-type]
    game, events = apply(game, 0, Steal(S.MOONS))
    assert events == [CardStolen(0, 1, c(S.MOONS, 7))]
    assert game.table == (c(S.SUNS, 5), c(S.MOONS, 7))
    assert game.banks[1] == (c(S.MOONS, 4), c(S.CUPS, 3))
    assert game.scores == (0, 7) and game.turn == 0 and not game.steal_pending


# Rule 6.
def test_stealing_a_suit_already_on_the_table_busts_at_once() -> None:
    game = position(
        [FOOL, c(S.ANGELS, 3)], banks=([], [c(S.SUNS, 7)]), table=[c(S.SUNS, 3)]
    )
    game, _ = apply(game, 0, Draw())
    game, events = apply(game, 0, Steal(S.SUNS))
    assert events == [
        CardStolen(0, 1, c(S.SUNS, 7)),
        Bust(0, S.SUNS, (c(S.SUNS, 3), c(S.SUNS, 7))),
        TurnPassed(1),
    ]
    assert game.banks == ((), ()) and game.table == ()


# Rule 6.
def test_drawing_the_stolen_suit_later_busts() -> None:
    game = position([FOOL, c(S.SUNS, 3), c(S.ANGELS, 3)], banks=([], [c(S.SUNS, 7)]))
    game, _ = apply(game, 0, Draw())
    game, _ = apply(game, 0, Steal(S.SUNS))
    game, events = apply(game, 0, Draw())
    assert isinstance(events[1], Bust)
    assert c(S.SUNS, 7) in game.discard and game.banks == ((), ())


# Rule 6.
def test_death_discards_a_stolen_card_too() -> None:
    game = position([FOOL, DEATH, c(S.ANGELS, 3)], banks=([], [c(S.SUNS, 7)]))
    game, _ = apply(game, 0, Draw())
    game, _ = apply(game, 0, Steal(S.SUNS))
    game, events = apply(game, 0, Draw())
    assert events[1] == DeathDrawn(0, (c(S.SUNS, 7), DEATH))


# Rule 7.
def test_fool_with_empty_opposing_bank_is_wasted_and_turn_goes_on() -> None:
    game = position([FOOL, c(S.ANGELS, 3)], banks=([c(S.CUPS, 5)], []), table=[c(S.SUNS, 5)])
    game, events = apply(game, 0, Draw())
    assert events == [CardDrawn(0, FOOL), FoolWasted(0)]
    assert not game.steal_pending and game.turn == 0 and FOOL in game.discard
    assert game.table == (c(S.SUNS, 5),)
    assert legal_actions(game, 0) == [Draw(), EndTurn(), Concede()]


# Rule 8.
def test_ten_card_cap_forces_end_turn() -> None:
    ten = [c(suit, 3) for suit in S]
    game = position([*ten, c(S.ANGELS, 4)])
    for _ in range(10):
        game, _ = apply(game, 0, Draw())
    assert len(game.table) == 10
    assert legal_actions(game, 0) == [EndTurn(), Concede()]
    with pytest.raises(errors.TableFull, match="ten cards"):
        apply(game, 0, Draw())
    game, _ = apply(game, 0, EndTurn())
    assert game.scores[0] == 30


# Rule 13.
def test_not_your_turn_and_not_a_player() -> None:
    game = stacked([c(S.ANGELS, 3)], first=1)
    with pytest.raises(errors.NotYourTurn, match="not your turn"):
        apply(game, 0, Draw())
    with pytest.raises(errors.NotAPlayer):
        apply(game, 2, Draw())
    with pytest.raises(errors.NoStealPending):
        apply(game, 1, Steal(S.ANGELS))


# Rule 13.
def test_illegal_action_leaves_state_untouched() -> None:
    game = stacked([c(S.ANGELS, 3)])
    before = game
    with pytest.raises(errors.IllegalAction):
        apply(game, 1, Draw())
    assert game == before


# Rule 13.
def test_an_object_that_is_no_action_is_refused() -> None:
    """(Not taken for End turn, which it once fell through to.)"""

    class Bogus:
        pass

    game = stacked([c(S.ANGELS, 3), c(S.SUNS, 4)])
    game, _ = apply(game, 0, Draw())
    with pytest.raises(errors.UnknownAction):
        apply(game, 0, Bogus())  # type: ignore[arg-type]


# Rule 10, the end of the game: the last card of the deck, each kind.


# Rule 10.
def test_last_card_clean_is_banked_and_ends_the_game() -> None:
    game = position([c(S.CUPS, 7)], banks=([], [c(S.SUNS, 4)]), table=[c(S.ANGELS, 3)])
    game, events = apply(game, 0, Draw())
    assert events[1:] == [
        Banked(0, (c(S.ANGELS, 3), c(S.CUPS, 7)), 10),
        GameEnded(0, (10, 4), "deck"),
    ]
    assert game.over and game.winner == 0
    assert legal_actions(game, 0) == [] and legal_actions(game, 1) == []
    with pytest.raises(errors.GameOver):
        apply(game, 0, Concede())


# Rule 10.
def test_last_card_bust_discards_and_ends() -> None:
    game = position([c(S.ANGELS, 7)], banks=([], [c(S.SUNS, 4)]), table=[c(S.ANGELS, 3)])
    game, events = apply(game, 0, Draw())
    assert isinstance(events[1], Bust)
    assert events[-1] == GameEnded(1, (0, 4), "deck")
    assert not any(isinstance(e, TurnPassed) for e in events)


# Rule 10.
def test_last_card_death_discards_and_ends() -> None:
    game = position([DEATH], banks=([c(S.SUNS, 4)], [c(S.SUNS, 5)]), table=[c(S.ANGELS, 7)])
    game, events = apply(game, 0, Draw())
    assert events[1:] == [DeathDrawn(0, (c(S.ANGELS, 7), DEATH)), GameEnded(1, (4, 5), "deck")]


# Rule 10.
def test_last_card_fool_with_nothing_to_steal_banks_the_table() -> None:
    game = position([FOOL], banks=([], []), table=[c(S.ANGELS, 7)], turn=1)
    game, events = apply(game, 1, Draw())
    assert events[1:] == [
        FoolWasted(1),
        Banked(1, (c(S.ANGELS, 7),), 7),
        GameEnded(1, (0, 7), "deck"),
    ]


# Rule 10.
def test_last_card_fool_is_resolved_by_the_steal_first() -> None:
    game = position([FOOL], banks=([c(S.CUPS, 6)], [c(S.CUPS, 5)]), table=[c(S.ANGELS, 7)])
    game, events = apply(game, 0, Draw())
    assert not game.over and game.steal_pending
    game, events = apply(game, 0, Steal(S.CUPS))
    assert events[1:] == [
        Banked(0, (c(S.ANGELS, 7), c(S.CUPS, 5)), 13),
        GameEnded(0, (13, 0), "deck"),
    ]


# Rule 10.
def test_last_card_fool_steal_that_busts_discards() -> None:
    game = position([FOOL], banks=([], [c(S.ANGELS, 5)]), table=[c(S.ANGELS, 7)])
    game, _ = apply(game, 0, Draw())
    game, events = apply(game, 0, Steal(S.ANGELS))
    assert isinstance(events[1], Bust)
    assert events[-1] == GameEnded(None, (0, 0), "deck")
    assert game.over and game.winner is None


# Rule 11.
def test_score_is_sum_of_highest_per_suit() -> None:
    bank = [c(S.SUNS, 3), c(S.SUNS, 7), c(S.CUPS, 4), FOOL]
    assert score(bank) == 11
    assert score([c(suit, 7) for suit in S]) == 70
    assert score([]) == 0


# Rule 11.
def test_equal_scores_are_a_draw() -> None:
    game = position([c(S.CUPS, 5)], banks=([c(S.SUNS, 5)], []))
    game, events = apply(game, 0, Draw())
    assert game.winner == 0
    game = position([c(S.CUPS, 5)], banks=([], [c(S.SUNS, 5)]))
    game, events = apply(game, 0, Draw())
    assert events[-1] == GameEnded(None, (5, 5), "deck")


# Rule 12.
def test_concede_any_time_loses_whatever_the_scores() -> None:
    game = position([c(S.CUPS, 5), c(S.CUPS, 6)], banks=([c(S.SUNS, 7)], []), turn=0)
    game, events = apply(game, 1, Concede())  # not seat 1's turn: still allowed
    assert events == [Conceded(1), GameEnded(0, (7, 0), "concede")]
    game2 = position([c(S.CUPS, 5), c(S.CUPS, 6)], banks=([c(S.SUNS, 7)], []), turn=0)
    game2, events = apply(game2, 0, Concede())
    assert game2.winner == 1 and game2.conceded_by == 0


# Rule 12.
def test_concede_during_a_pending_steal() -> None:
    game = position([FOOL, c(S.ANGELS, 3)], banks=([], [c(S.SUNS, 7)]))
    game, _ = apply(game, 0, Draw())
    game, _ = apply(game, 0, Concede())
    assert game.over and game.winner == 1 and not game.steal_pending
