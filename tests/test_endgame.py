"""The strong bot's endgame solver agrees with a brute-force search through the real engine."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from somnium_desktop.game import (
    Action,
    Concede,
    Draw,
    EndTurn,
    GameState,
    Steal,
    Suit,
    apply,
    legal_actions,
    new_game,
    view_of,
)
from somnium_desktop.game.bots.classic import ClassicBot
from somnium_desktop.game.bots.endgame import (
    BANK,
    DRAW,
    Endgame,
    OutOfBudget,
    SuitCards,
    encode,
    settle,
)
from somnium_desktop.game.bots.model import SUITS, Position

Judge = Callable[[GameState, int], float]  # a position's worth to player `me`


def option_value(state: GameState, action: Action, me: int, judge: Judge | None = None) -> float:
    """My share after `action`, each position after it judged by `judge` (by default both at
    their best); a draw averages over every distinct next card, by its count."""
    judge = judge or brute_force
    seat = state.turn
    if not isinstance(action, Draw):
        return judge(apply(state, seat, action)[0], me)
    total = 0.0
    for card in set(state.deck):
        rest = list(state.deck)
        rest.remove(card)
        after, _ = apply(replace(state, deck=(card, *rest)), seat, action)
        total += state.deck.count(card) * judge(after, me)
    return total / len(state.deck)


def brute_force(state: GameState, me: int) -> float:
    """My share (a win 1, a draw 1/2) with both players at their best, the deck order unknown."""
    if state.over:
        return 1.0 if state.winner == me else 0.5 if state.winner is None else 0.0
    values = [
        option_value(state, action, me)
        for action in legal_actions(state, state.turn)
        if not isinstance(action, Concede)
    ]
    return max(values) if state.turn == me else min(values)


def endgames(left: int, count: int, steals: int = 0) -> list[GameState]:
    """Positions with `left` cards or fewer to go (and a choice to make), from classic games: the
    first such position of each game, until there are `count`, and until `steals` of them have a
    steal pending (a game's later ones count towards those too)."""
    found: list[GameState] = []
    pending = 0
    seed = 0
    while len(found) < count or pending < steals:
        state = new_game(seed)
        bots = (ClassicBot(8, 50, seed), ClassicBot(5, 80, seed))
        first = True
        while not state.over:
            view = view_of(state)
            if view.deck_count <= left and (view.table or view.steal_pending):
                if (first and len(found) < count) or (view.steal_pending and pending < steals):
                    found.append(state)
                    pending += view.steal_pending
                first = False
                if pending >= steals:
                    break
            state, _ = apply(state, state.turn, bots[state.turn].choose(view, state.turn))
        seed += 1
    return found


def solve(state: GameState, budget: int = 10**9) -> dict[int, float]:
    """The solver's value of each option for the player to move."""
    view = view_of(state)
    pos = Position.of(view, state.turn)
    table = dict(pos.table)
    suits = [(pos.mine[s], pos.theirs[s], pos.masks[s], table.get(s, 0)) for s in range(SUITS)]
    return Endgame().options(suits, pos.fools, pos.death, pos.left, view.steal_pending, budget)


def test_every_option_is_valued_as_brute_force_through_the_engine_values_it() -> None:
    positions = endgames(4, 40, steals=3)
    assert sum(view_of(s).steal_pending for s in positions) >= 3
    assert any(view_of(s).fools_left for s in positions)
    for state in positions:
        me = state.turn
        for key, value in solve(state).items():
            action: Action = (
                EndTurn() if key == BANK else Draw() if key == DRAW else Steal(Suit(key))
            )
            assert value == pytest.approx(option_value(state, action, me)), (state, key)


def test_a_small_budget_stops_large_searches_and_changes_no_finished_answer() -> None:
    stopped = 0
    for state in endgames(8, 10):
        try:
            quick = solve(state, budget=50)
        except OutOfBudget:
            stopped += 1
            continue
        assert quick == solve(state)
    assert 0 < stopped < 10


def test_cards_under_both_tops_only_count_as_busts_once_no_fool_is_left() -> None:
    # Mover holds Angels 6, the other Angels 5: an unseen Angels 4 or 5 can raise neither top, so
    # positions differing only in those values (or in a table card under the mover's top) are one.
    one = settle(0, [((6,), (5,), 0b10100, 4)], 0, 0, 3)  # unseen 5 and 7, a 4 on the table
    two = settle(0, [((6,), (5,), 0b10010, 5)], 0, 0, 3)  # unseen 4 and 7, a 5 on the table
    assert one == two
    with_fool = settle(0, [((6,), (5,), 0b10100, 4)], 1, 0, 3)
    assert with_fool != settle(0, [((6,), (5,), 0b10010, 5)], 1, 0, 3)  # a steal may expose them


stacks_ = st.sets(st.integers(3, 7), max_size=5).map(lambda values: tuple(sorted(values)[::-1]))
suits_ = st.tuples(stacks_, stacks_, st.integers(0, 31), st.sampled_from([0, 3, 4, 5, 6, 7]))


@given(suits_, suits_)
def test_suit_codes_sort_as_the_suits_do(one: SuitCards, two: SuitCards) -> None:
    # The solver sorts a position's suits by their codes; sorted as the tuples were, its sums
    # run in the same order and its choices stay exactly the same.
    assert (encode(one) < encode(two)) == (one < two)
    assert (encode(one) == encode(two)) == (one == two)
