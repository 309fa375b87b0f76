"""Rule 19 of docs/rules.md: the player to move who runs out of time loses."""

from __future__ import annotations

import dataclasses

import pytest

from somnium_desktop.game import (
    Draw,
    TimeOut,
    action_from_dict,
    action_to_dict,
    apply,
    errors,
    legal_actions,
    state_from_dict,
    state_to_dict,
    view_from_dict,
    view_of,
    view_to_dict,
)
from somnium_desktop.game.analysis import public_game
from somnium_desktop.game.events import CardDrawn, GameEnded, StealRequired, TimedOut

from .game_helpers import S, c, stacked


# Rule 19.
def test_the_player_to_move_who_times_out_loses_whatever_the_scores() -> None:
    game, _ = apply(stacked([c(S.SUNS, 7)], first=1), 1, Draw())
    game, events = apply(game, 1, TimeOut())
    assert events == [TimedOut(1), GameEnded(0, (0, 0), "time")]
    assert game.over and game.winner == 0 and game.timed_out == 1
    assert game.conceded_by is None
    view = view_of(game)
    assert view.timed_out == 1 and view_from_dict(view_to_dict(view)).timed_out == 1
    assert state_from_dict(state_to_dict(game)) == game


# Rule 19.
def test_only_the_player_to_move_can_time_out_and_never_after_the_end() -> None:
    game = stacked([c(S.SUNS, 7)], first=0)
    with pytest.raises(errors.NotYourTurn):
        apply(game, 1, TimeOut())
    over, _ = apply(game, 0, TimeOut())
    with pytest.raises(errors.GameOver):
        apply(over, 1, TimeOut())


# Rule 19.
def test_a_steal_pending_times_out_too_and_time_out_is_never_offered() -> None:
    game = stacked([c(S.SUNS, 7), c(S.CUPS, 3)], first=0)
    game, _ = apply(game, 0, Draw())
    assert all(not isinstance(a, TimeOut) for a in legal_actions(game, 0))
    # a pending steal is a decision the clock counts as well
    pending = dataclasses.replace(game, steal_pending=True)
    after, events = apply(pending, 0, TimeOut())
    assert isinstance(events[0], TimedOut) and after.winner == 1 and not after.steal_pending
    assert not any(isinstance(e, CardDrawn | StealRequired) for e in events)


def test_time_out_travels_as_json_and_states_stored_before_clocks_load() -> None:
    assert action_from_dict(action_to_dict(TimeOut())) == TimeOut()
    stored = state_to_dict(stacked([]))
    del stored["timed_out"]
    assert state_from_dict(stored).timed_out is None


# Rule 19: running out of time is no decision the analysis judges.
def test_the_analysis_leaves_a_time_out_out() -> None:
    start = stacked([c(S.SUNS, 7)], first=0)
    game = public_game(start, [(0, Draw()), (0, TimeOut())])
    assert [move.action for move in game.moves] == [Draw()]
    assert game.end.timed_out == 0 and game.end.winner == 1
