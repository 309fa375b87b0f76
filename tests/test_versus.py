"""The endgame solved against classic-8-50's rules: as the real classic bot plays it."""

from __future__ import annotations

import pytest

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
from somnium_desktop.game.bots.classic import LEVEL_SETTINGS, ClassicBot
from somnium_desktop.game.bots.endgame import BANK, DRAW, Endgame, settle
from somnium_desktop.game.bots.model import SUITS, Position
from somnium_desktop.game.bots.versus import AgainstHard, hard_banks
from somnium_desktop.game.cards import score

from .test_endgame import option_value as endgame_option_value

HARD = ClassicBot(*LEVEL_SETTINGS["hard"])  # the level the solver models


def option_value(state: GameState, action: Action, me: int) -> float:
    """My share after `action`, the real bot playing the other seat."""
    return endgame_option_value(state, action, me, against_hard)


def against_hard(state: GameState, me: int) -> float:
    """My share with me at my best and the other seat played by the real classic-8-50 bot (its
    steals among equals averaged: it picks one at random)."""
    if state.over:
        return 1.0 if state.winner == me else 0.5 if state.winner is None else 0.0
    if state.turn != me:
        view = view_of(state)
        if view.steal_pending:
            ties = HARD.best_steals(view, state.turn)
            return sum(option_value(state, Steal(s), me) for s in ties) / len(ties)
        return option_value(state, HARD.choose(view, state.turn), me)
    return max(
        option_value(state, action, me)
        for action in legal_actions(state, me)
        if not isinstance(action, Concede)
    )


def endgames(left: int, count: int, fools: bool) -> list[GameState]:
    """Positions with `left` cards or fewer to go and a choice to make (with or without a Fool
    still to come), from classic games."""
    found: list[GameState] = []
    seed = 0
    while len(found) < count:
        state = new_game(seed)
        bots = (ClassicBot(8, 50, seed), ClassicBot(5, 80, seed))
        while not state.over:
            view = view_of(state)
            if (
                view.deck_count <= left
                and (view.table or view.steal_pending)
                and bool(view.fools_left) is fools
            ):
                found.append(state)
                break
            state, _ = apply(state, state.turn, bots[state.turn].choose(view, state.turn))
        seed += 1
    return found


def options(solver: Endgame, state: GameState) -> dict[int, float]:
    view = view_of(state)
    pos = Position.of(view, state.turn)
    table = dict(pos.table)
    suits = [(pos.mine[s], pos.theirs[s], pos.masks[s], table.get(s, 0)) for s in range(SUITS)]
    return solver.options(suits, pos.fools, pos.death, pos.left, view.steal_pending, 10**9)


@pytest.mark.parametrize("fools", [False, True])
def test_every_option_is_valued_as_playing_the_real_classic_bot_values_it(fools: bool) -> None:
    # With fools, every position has a Fool still to come: steals, the opponent's among them.
    # One solver for all the positions, as the expert keeps it from decision to decision.
    solver = AgainstHard()
    for state in endgames(6 if fools else 5, 40 if fools else 30, fools):
        me = state.turn
        for key, value in options(solver, state).items():
            action: Action = (
                EndTurn() if key == BANK else Draw() if key == DRAW else Steal(Suit(key))
            )
            assert value == pytest.approx(option_value(state, action, me)), (state, key)


def test_the_model_of_classic_banks_where_the_real_bot_banks() -> None:
    # Every decision of the real bot in the last 12 cards of its games, Fools or not.
    checked = stole = 0
    for seed in range(40):
        state = new_game(seed)
        bots = (HARD, ClassicBot(3, 40, seed))
        while not state.over:
            view = view_of(state)
            action = bots[state.turn].choose(view, state.turn)
            if state.turn == 0 and view.table and not view.steal_pending and view.deck_count < 12:
                pos = Position.of(view, 0)
                table = dict(pos.table)
                suits = [
                    (pos.mine[s], pos.theirs[s], pos.masks[s], table.get(s, 0))
                    for s in range(SUITS)
                ]
                spot = settle(0, suits, pos.fools, pos.death, pos.left)
                victim = view.banks[1]
                taken = score((*victim, *view.stolen)) - score(victim)
                assert hard_banks(spot, taken) == (action == EndTurn()), view
                checked += 1
                stole += bool(view.stolen)
            state, _ = apply(state, state.turn, action)
    assert checked > 100
    assert stole > 0


def test_against_classic_every_option_is_worth_at_least_its_value_against_best_play() -> None:
    for state in endgames(6, 20, fools=True):
        best = options(Endgame(), state)
        versus = options(AgainstHard(), state)
        assert versus.keys() == best.keys()
        for key, value in best.items():
            assert versus[key] >= value - 1e-9, (state, key)
