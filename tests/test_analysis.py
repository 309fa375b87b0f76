"""The analysis of a finished game: public views only, the expert's own play unmarked, planted
blunders marked, the win-chance curve and the accuracy as docs/bots.md defines them."""

from __future__ import annotations

import gc
from collections.abc import Sequence

import pytest

from somnium_desktop.game import (
    DEATH,
    FOOL,
    Action,
    Concede,
    Draw,
    EndTurn,
    GameState,
    Steal,
    action_from_dict,
    action_to_dict,
    apply,
    new_game,
    view_from_dict,
    view_to_dict,
)
from somnium_desktop.game.analysis import (
    BLUNDER,
    Analysis,
    Move,
    PublicGame,
    accuracy,
    analyse,
    public_game,
)
from somnium_desktop.game.bots import Bot, make_bot
from somnium_desktop.game.cards import full_deck
from somnium_desktop.game.view import view_of

from .game_helpers import S, c, position


def played(start: GameState, bots: Sequence[Bot], planted: Action | None = None) -> PublicGame:
    """A game played out by `bots` from `start`, its first action replaced by `planted`."""
    actions: list[tuple[int, Action]] = []
    state = start
    while not state.over:
        seat = state.turn
        action = planted if planted and not actions else bots[seat].choose(view_of(state), seat)
        actions.append((seat, action))
        state, _ = apply(state, seat, action)
    return public_game(start, actions)


def experts() -> tuple[Bot, Bot]:
    return make_bot("expert"), make_bot("expert")


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_the_experts_own_games_are_not_marked(seed: int) -> None:
    analysis = analyse(played(new_game(seed), experts()))
    assert analysis.decisions
    assert all(d.mark is None and d.lost == 0.0 and d.action == d.best for d in analysis.decisions)
    assert analysis.accuracy == (100.0, 100.0)


def test_against_hard_only_hards_decisions_are_marked() -> None:
    bots = (make_bot("expert"), make_bot("hard", 5))
    marked = {
        d.seat for seed in (20, 21, 22, 23) for d in analyse(played(new_game(seed), bots)).decisions
        if d.mark
    }
    assert marked == {1}


def test_banking_a_table_that_cannot_bust_is_marked() -> None:
    deck = [card for card in full_deck() if card.suit is not S.ANGELS and card != DEATH][:40]
    start = position(deck, banks=([c(S.ANGELS, 7)], [c(S.ANGELS, 6)]), table=[c(S.ANGELS, 3)])
    analysis = analyse(played(start, experts(), planted=EndTurn()))
    first = analysis.decisions[0]
    assert (first.action, first.best) == (EndTurn(), Draw())
    assert first.mark in ("mistake", "blunder")
    assert first.after < first.before
    assert analysis.accuracy[0] is not None and analysis.accuracy[0] < 100.0
    assert all(d.mark is None for d in analysis.decisions[1:])


def test_stealing_the_worst_suit_is_a_blunder() -> None:
    deck = [FOOL, *(card for card in full_deck() if card.suit in (S.SUNS, S.WANDS, S.CUPS))]
    table = [c(S.ANGELS, 7), c(S.TOWERS, 6), c(S.SWORDS, 7), c(S.DRAGONS, 6)]
    banks = ([c(S.MOONS, 5)], [c(S.DEMONS, 7), c(S.ANGELS, 3)])
    start, _ = apply(position(deck[:13], banks=banks, table=table), 0, Draw())
    analysis = analyse(played(start, experts(), planted=Steal(S.ANGELS)))
    first = analysis.decisions[0]
    assert (first.best, first.mark) == (Steal(S.DEMONS), "blunder")
    assert first.lost == pytest.approx(first.before - first.after)
    assert first.lost >= BLUNDER


def test_the_curve_follows_seat_zero_and_ends_on_the_result() -> None:
    game = played(new_game(30), (make_bot("expert"), make_bot("easy", 1)))
    analysis = analyse(game)
    assert len(analysis.curve) == len(analysis.decisions) + 1
    for point, d in zip(analysis.curve, analysis.decisions, strict=False):
        assert point == (d.before if d.seat == 0 else 1.0 - d.before)
    assert analysis.curve[-1] == {0: 1.0, 1: 0.0, None: 0.5}[game.end.winner]


def test_accuracy_is_the_mean_chance_kept_over_unforced_decisions() -> None:
    analysis = analyse(played(new_game(31), (make_bot("easy", 2), make_bot("expert"))))
    mine = [d for d in analysis.decisions if d.seat == 0 and not d.forced]
    assert any(d.lost > 0 for d in mine)
    expected = 100.0 * sum(1.0 - d.lost for d in mine) / len(mine)
    assert analysis.accuracy[0] == pytest.approx(expected) == accuracy(analysis.decisions, 0)
    assert all(d.mark is None for d in analysis.decisions if d.forced)


def public_copy(game: PublicGame) -> PublicGame:
    """The game through its JSON form: what survives it is public by construction."""
    return PublicGame(
        tuple(
            Move(view_from_dict(view_to_dict(m.view)), action_from_dict(action_to_dict(m.action)))
            for m in game.moves
        ),
        view_from_dict(view_to_dict(game.end)),
    )


def outline(analysis: Analysis) -> list[tuple[object, ...]]:
    return [(d.seat, d.action, d.best, d.before, d.after, d.mark) for d in analysis.decisions]


def test_the_analysis_needs_nothing_beyond_the_public_views() -> None:
    game = played(new_game(40), (make_bot("hard", 3), make_bot("expert")))
    reachable: list[object] = [game]
    seen: set[int] = set()
    while reachable:  # nothing the input holds leads to a game state (its deck, its seed)
        item = reachable.pop()
        if id(item) in seen or isinstance(item, type):
            continue
        seen.add(id(item))
        assert not isinstance(item, GameState)
        reachable.extend(gc.get_referents(item))
    assert outline(analyse(public_copy(game))) == outline(analyse(game))


def test_a_game_state_is_refused_wherever_a_view_is_expected() -> None:
    state = new_game(41)
    with pytest.raises(TypeError):
        Move(state, Draw())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        analyse(state)  # type: ignore[arg-type]
    end, _ = apply(state, 0, Concede())
    with pytest.raises(TypeError):
        PublicGame((), end)  # type: ignore[arg-type]


def test_the_input_of_a_conceded_game_and_of_an_unfinished_one() -> None:
    start = new_game(42)
    seat = start.turn
    game = public_game(start, [(seat, Draw()), (1 - seat, Concede())])
    assert [m.action for m in game.moves] == [Draw()]
    assert game.end.conceded_by == 1 - seat
    assert analyse(game).curve[-1] == (1.0 if seat == 0 else 0.0)
    with pytest.raises(ValueError, match="do not finish"):
        public_game(start, [(seat, Draw())])
