"""Property tests over random games: accounting, scores, privacy of the deck, replay, JSON."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from somnium_desktop.game import (
    Action,
    Concede,
    GameState,
    action_from_dict,
    action_to_dict,
    apply,
    event_from_dict,
    event_to_dict,
    full_deck,
    legal_actions,
    new_game,
    replay,
    score,
    state_from_dict,
    state_to_dict,
    view_from_dict,
    view_of,
    view_to_dict,
)
from somnium_desktop.game.cards import MAX_SCORE, Kind


def play_randomly(seed: int, concede_chance: float = 0.0) -> list[tuple[GameState, int, Action]]:
    """A random legal game: the (state before, seat, action) of every move."""
    rng = random.Random(seed)
    state = new_game(seed)
    moves = []
    while not state.over:
        seat = state.turn
        actions = [a for a in legal_actions(state, seat) if not isinstance(a, Concede)]
        action: Action = rng.choice(actions)
        if rng.random() < concede_chance:
            seat, action = rng.randrange(2), Concede()
        moves.append((state, seat, action))
        state, _ = apply(state, seat, action)
    moves.append((state, -1, Concede()))
    return moves


def all_cards(state: GameState) -> Counter[Any]:
    return Counter(state.deck) + Counter(state.banks[0]) + Counter(state.banks[1]) + Counter(
        state.table
    ) + Counter(state.discard)


def strings_in(data: Any) -> set[str]:
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(strings_in(v) for v in data.values()), set(data))
    if isinstance(data, list):
        return set().union(set(), *(strings_in(v) for v in data))
    return set()


seeds = st.integers(min_value=0, max_value=2**63)


@settings(max_examples=60, deadline=None)
@given(seeds)
def test_all_54_cards_accounted_for_and_scores_follow_the_rule(seed: int) -> None:
    for state, _, _ in play_randomly(seed):
        assert all_cards(state) == Counter(full_deck())
        for seat in (0, 1):
            assert 0 <= state.scores[seat] <= MAX_SCORE
            best: dict[Any, int] = {}
            for card in state.banks[seat]:
                if card.suit is not None:
                    best[card.suit] = max(best.get(card.suit, 0), card.value)
            assert state.scores[seat] == sum(best.values()) == score(state.banks[seat])
        assert len(state.table) <= 10
        assert len({card.suit for card in state.table}) == len(state.table)  # never a clash left


PUBLIC_KEYS = {
    "banks", "scores", "table", "discard", "deck_count", "fools_left", "death_left", "turn",
    "first", "steal_pending", "stealable", "stolen", "over", "winner", "conceded_by", "legal",
    "timed_out",
}


# docs/rules.md, rule 14.
@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=10**12, max_value=2**63))  # long enough to spot in the text
def test_public_view_never_holds_the_deck_order_or_seed(seed: int) -> None:
    for state, _, _ in play_randomly(seed):
        data = view_to_dict(view_of(state))
        assert set(data) == PUBLIC_KEYS
        assert str(seed) not in json.dumps(data)
        # No card still in the deck is named anywhere (Fools are alike: one may be seen while
        # another is still in the deck, so they tell nothing about the order).
        in_deck = {c.code for c in state.deck if c.kind is not Kind.FOOL}
        assert not in_deck & strings_in(data)


@settings(max_examples=40, deadline=None)
@given(seeds, st.floats(min_value=0, max_value=0.02))
def test_replaying_the_actions_reproduces_the_game(seed: int, concede_chance: float) -> None:
    moves = play_randomly(seed, concede_chance)
    final = moves[-1][0]
    assert replay(new_game(seed), [(seat, a) for _, seat, a in moves[:-1]]) == final
    assert final.over
    if final.conceded_by is None:
        assert final.deck == () and final.table == ()
        scores = final.scores
        expected = None if scores[0] == scores[1] else int(scores[1] > scores[0])
        assert final.winner == expected
    else:
        assert final.winner == 1 - final.conceded_by


@settings(max_examples=30, deadline=None)
@given(seeds)
def test_state_events_views_and_actions_round_trip_through_json(seed: int) -> None:
    for state, seat, action in play_randomly(seed):
        assert state_from_dict(json.loads(json.dumps(state_to_dict(state)))) == state
        view = view_of(state)
        assert view_from_dict(json.loads(json.dumps(view_to_dict(view)))) == view
        if seat < 0:
            continue
        assert action_from_dict(json.loads(json.dumps(action_to_dict(action)))) == action
        _, events = apply(state, seat, action)
        for event in events:
            assert event_from_dict(json.loads(json.dumps(event_to_dict(event)))) == event


def test_view_unseen_is_the_deck_as_a_multiset() -> None:
    for state, _, _ in play_randomly(3)[::7]:
        view = view_of(state)
        assert view.unseen() == Counter(state.deck)
        assert view.fools_left == state.deck.count(full_deck()[50])
        assert view.deck_count == len(state.deck)
