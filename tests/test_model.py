"""The strong bot's value model: the suits' expected final tops, their variance, the spread."""

from __future__ import annotations

from itertools import product

import pytest

from somnium_desktop.game.bots.model import (
    HIGH,
    LEAST_VARIANCE,
    LOW,
    SPREAD,
    chance,
    expected_top,
    outlook,
    spread_squared,
    suit_terms,
    top_variance,
)


def enumerated_top(held: int, mask: int, share: float) -> tuple[float, float]:
    """The mean and variance of a final top, every subset of the unseen cards weighed."""
    values = [LOW + bit for bit in range(HIGH - LOW + 1) if mask >> bit & 1]
    mean = square = 0.0
    for taken in product((False, True), repeat=len(values)):
        weight = 1.0
        for got in taken:
            weight *= share if got else 1.0 - share
        final = max([held, *(v for v, got in zip(values, taken, strict=True) if got)])
        mean += weight * final
        square += weight * final * final
    return mean, square - mean * mean


@pytest.mark.parametrize("share", [0.3, 0.5, 0.85])
@pytest.mark.parametrize("held", [0, 3, 5, 7])
def test_top_variance_is_the_variance_of_the_top_expected_top_averages(
    held: int, share: float
) -> None:
    for mask in range(32):
        mean, variance = enumerated_top(held, mask, share)
        assert expected_top(held, mask, share) == pytest.approx(mean)
        assert top_variance(held, mask, share) == pytest.approx(variance, abs=1e-9)


def test_a_settled_suit_adds_its_difference_and_no_variance() -> None:
    assert suit_terms(7, 4, 0, 20) == (3.0, 0.0)
    mean, variance = suit_terms(3, 4, 0b11111, 20)  # every card of the suit still unseen
    assert variance > 1.0
    assert -1.0 < mean < 1.0


@pytest.mark.parametrize("left", range(1, 55))
def test_the_spread_grows_with_the_variance_the_fools_and_death(left: int) -> None:
    base = spread_squared(10.0, 0, 0, left)
    assert base >= LEAST_VARIANCE
    assert spread_squared(20.0, 0, 0, left) > base
    assert spread_squared(10.0, 1, 0, left) > base
    assert spread_squared(10.0, 1, 1, left) > spread_squared(10.0, 1, 0, left)


def test_a_lead_nothing_can_touch_is_sure_and_one_with_suits_open_is_not() -> None:
    left = 12
    empty: tuple[tuple[int, ...], ...] = tuple(() for _ in range(10))
    mine = ((7,), *empty[1:])  # a 7 of Angels against nothing
    settled = outlook(mine, empty, (0,) * 10, 0, 0, left)
    # The typical spread at 12 cards left would call a lead of 7 far from sure.
    assert chance(7.0, SPREAD[left] ** 2) < 0.9
    assert settled > 0.999
    # The same bank with all of Suns and Wands still to come: no longer sure.
    live = outlook(mine, empty, (0, 0b11111, 0b11111, *(0,) * 7), 0, 0, left)
    assert live < 0.95
    # A Fool left makes even the settled lead unsure.
    assert outlook(mine, empty, (0,) * 10, 1, 0, left) < 0.95
