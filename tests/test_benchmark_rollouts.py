"""benchmarks/rollouts.py: the expert's mid-game decisions played out both ways, same decks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchmarks import rollouts
from somnium_desktop.game.actions import Draw, EndTurn, Steal
from somnium_desktop.game.bots.strong import ENDGAME
from somnium_desktop.game.state import new_game


def test_the_checked_decisions_are_the_experts_own_of_that_kind() -> None:
    steals = rollouts.decisions("steal", range(500_000, 500_004))
    banks = rollouts.decisions("bank", range(600_000, 600_002))
    assert steals and banks
    for found in steals:
        assert found.state.turn == 0 and found.state.steal_pending
        assert found.state.deck_count > ENDGAME
        assert isinstance(found.chosen, Steal) and isinstance(found.other, Steal)
        assert found.chosen != found.other and found.gap >= 0
    for found in banks:
        assert found.state.turn == 0 and found.state.table and not found.state.steal_pending
        assert 11 <= found.state.deck_count <= 30
        assert {found.chosen, found.other} == {Draw(), EndTurn()}
        assert 0 <= found.gap < rollouts.CLOSE


def test_the_same_action_both_ways_differs_by_nothing() -> None:
    """Each deck order is used for both actions: an action against itself shows no luck at all,
    while two different actions do come out differently on some orders."""
    found = rollouts.decisions("bank", range(600_000, 600_002))[0]
    same = replace(found, other=found.chosen)
    assert rollouts.difference(same, 12) == (0.0, 0.0)
    mean, error = rollouts.difference(found, 12)
    assert error > 0 and -1 <= mean <= 1


def test_a_turn_with_nothing_to_decide_is_not_checked() -> None:
    """At a turn's start the table is empty: the expert must draw, so there is no bank-or-draw
    call, and no steal is pending."""
    state = replace(new_game(3), turn=0, first=0)
    assert rollouts.decision_at(state, "bank", 3) is None
    assert rollouts.decision_at(state, "steal", 3) is None


def test_the_report_counts_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    found = rollouts.decisions("steal", range(500_000, 500_002))
    rows = [rollouts.check(4, d) for d in found]
    text = rollouts.report("steal", rows)
    assert f"all: {len(rows)} decisions" in text


def test_the_models_miss_is_what_the_rollouts_noise_does_not_explain() -> None:
    found = rollouts.decisions("steal", range(500_000, 500_002))[0]
    at = [replace(found, gap=g) for g in (0.01, 0.02, 0.03, 0.04)]
    exact = [(d, d.gap, 0.0) for d in at]  # played out exactly as the expert valued them
    assert rollouts.model_error(exact) == (0.0, 0.0)
    misses = (0.05, -0.05, 0.05, -0.05)
    noisy = [(d, d.gap + miss, 0.01) for d, miss in zip(at, misses, strict=True)]
    sigma, gain = rollouts.model_error(noisy)
    assert sigma == pytest.approx((4 * 0.05**2 / 3 - 0.01**2) ** 0.5)
    assert 0 < gain < sigma
    # the same misses, all explained by the rollouts' noise: no miss of the model's is left
    assert rollouts.model_error([(d, v, 0.06) for d, v, _ in noisy]) == (0.0, 0.0)
