"""The strong bot's picture of a game: exact card counts, and what a position is worth.

`Position.of(view, seat)` reads what the player to move may know off a public view: both banks
per suit, the table, the values still unseen in each suit (as bit masks), the Fools, Death and the
cards left. `outlook()` turns a finished turn into a chance of winning: each suit adds the expected
difference between the two final top cards (who still draws into it, and how likely, by the
cards left: MOVER_SHARE and OTHER_SHARE) and a variance; the expected margin over the spread
(SPREAD, widened by the Fools and Death still to come) goes through the normal distribution
(`chance()`). `benchmarks/calibrate.py` fits the shares and SPREAD and `benchmarks/spread.py` the
variance terms, on self-play; docs/bots.md lists the variants measured and not kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from itertools import pairwise

from ..cards import Kind, Suit
from ..view import View

SUITS = len(Suit)
LOW = 3  # the lowest card value: value v is bit (v - LOW) of a suit's unseen mask
HIGH = 7

Stack = tuple[int, ...]  # a bank's values in one suit, highest first
Stacks = tuple[Stack, ...]  # per suit
Table = tuple[tuple[int, int], ...]  # (suit, value) in the order they came


@dataclass(frozen=True, slots=True)
class Position:
    """What the strong bot reads off a view: `mine` is the bank of the player to move."""

    mine: Stacks
    theirs: Stacks
    table: Table
    masks: tuple[int, ...]  # per suit, the values still unseen, as bits
    fools: int
    death: int
    left: int  # cards left in the deck

    @staticmethod
    def of(view: View, seat: int) -> Position:
        masks = [0] * SUITS
        for card in view.unseen():
            if card.kind is Kind.SUIT and card.suit is not None:
                masks[card.suit] |= 1 << (card.value - LOW)
        return Position(
            mine=stacks(view, seat),
            theirs=stacks(view, 1 - seat),
            table=tuple((int(c.suit), c.value) for c in view.table if c.suit is not None),
            masks=tuple(masks),
            fools=view.fools_left,
            death=int(view.death_left),
            left=view.deck_count,
        )


def stacks(view: View, seat: int) -> Stacks:
    """A bank as per-suit stacks, highest first."""
    held: list[list[int]] = [[] for _ in range(SUITS)]
    for card in view.banks[seat]:
        if card.suit is not None:
            held[card.suit].append(card.value)
    return tuple(tuple(sorted(values, reverse=True)) for values in held)


def top(stack: Stack) -> int:
    return stack[0] if stack else 0


def bits_of(table: Table) -> int:
    """The suits on a table, as bits."""
    found = 0
    for suit, _ in table:
        found |= 1 << suit
    return found


def banked(mine: Stacks, table: Table) -> Stacks:
    """A bank once the table is added to it."""
    held = list(mine)
    for suit, value in table:
        held[suit] = tuple(sorted((*held[suit], value), reverse=True))
    return tuple(held)


def robbed(stacks_: Stacks, suit: int) -> Stacks:
    """A bank once its top card of a suit is stolen."""
    held = list(stacks_)
    held[suit] = held[suit][1:]
    return tuple(held)


def final_share(mine: Stacks, theirs: Stacks) -> float:
    """1 for a win, 0.5 for a draw, 0 for a loss, as the banks stand."""
    a = sum(top(s) for s in mine)
    b = sum(top(s) for s in theirs)
    return 1.0 if a > b else 0.0 if a < b else 0.5


@cache
def expected_top(held: int, mask: int, share: float) -> float:
    """The expected final top of a suit for a player whose top is `held` now, if each unseen
    card of the suit (`mask`) ends in that player's bank with probability `share`."""
    total = float(held)
    for threshold in range(held + 1, HIGH + 1):
        above = mask >> (threshold - LOW) if threshold > LOW else mask
        total += 1.0 - (1.0 - share) ** above.bit_count()
    return total


def curve(knots: tuple[tuple[int, float], ...]) -> tuple[float, ...]:
    """A table over 0..54 cards left, linear between knots and flat beyond the end ones."""
    table = []
    for left in range(55):
        value = knots[0][1] if left <= knots[0][0] else knots[-1][1]
        for (x0, y0), (x1, y1) in pairwise(knots):
            if x0 <= left <= x1:
                value = y0 + (y1 - y0) * (left - x0) / (x1 - x0)
                break
        table.append(value)
    return tuple(table)


# The value model, fitted on turn-boundary positions of classic self-play games (python -m
# benchmarks.calibrate --pair classic-8-50:classic-8-50), smoothed by hand and checked in
# matches. With `left` cards in the deck and a player about to move, each unseen card of a suit
# ends up in the mover's bank with probability MOVER_SHARE and in the other player's with
# OTHER_SHARE, as far as the suit's final top goes; the final margin then strays from that
# estimate with standard deviation SPREAD. Future steals are left out: modelling them made the
# bot shy away from banking lone high cards and play worse. Refits on the expert's own games and
# nudges of each curve changed games within the luck of a match (docs/bots.md, appendix).
MOVER_SHARE = curve(
    (
        (0, 0.85),
        (4, 0.65),
        (8, 0.55),
        (12, 0.5),
        (16, 0.475),
        (20, 0.45),
        (24, 0.425),
        (28, 0.4),
        (40, 0.375),
    )
)
OTHER_SHARE = curve(
    ((0, 0.275), (4, 0.425), (8, 0.425), (12, 0.4), (20, 0.4), (28, 0.375), (40, 0.35))
)
SPREAD = curve(
    (
        (1, 0.5),
        (2, 3.0),
        (4, 5.2),
        (6, 6.3),
        (8, 7.0),
        (10, 7.6),
        (12, 8.0),
        (14, 8.5),
        (16, 9.0),
        (20, 9.3),
        (24, 9.9),
        (30, 10.5),
        (36, 11.0),
        (44, 11.5),
        (54, 11.8),
    )
)


# How far the final margin strays depends on the position, not only on the cards left: a suit
# whose top can no longer change adds nothing to it, one whose high cards are all unseen adds a
# lot, and a Fool can swing a 7 either way. So the squared spread is CARD_WEIGHT times the
# variance of the suits' final tops (each unseen card landing as the shares above say), plus
# FOOL_VARIANCE per Fool left, DEATH_VARIANCE if Death is left and REST_VARIANCE.
# `python -m benchmarks.spread` fits these (least squares on the squared errors of the margin) on
# classic self-play (4,000 games, deals from 200,000 on), scaled so that their mean at each
# number of cards left is still SPREAD squared; smoothed by hand. Past 30 cards or so the Fools
# and Death are nearly always all still to come, so there the split between their terms and
# REST_VARIANCE is not really fitted. The fitted spread predicts results better than SPREAD alone
# from 3 to 23 cards left, and won slightly more games with it (docs/bots.md).
CARD_WEIGHT = curve(
    (
        (1, 0.1),
        (2, 1.2),
        (4, 1.65),
        (7, 1.5),
        (12, 1.37),
        (16, 1.0),
        (22, 0.9),
        (26, 0.95),
        (31, 0.8),
        (40, 0.58),
        (54, 0.35),
    )
)
FOOL_VARIANCE = curve(
    (
        (1, 4.9),
        (2, 61.0),
        (4, 79.0),
        (7, 55.0),
        (10, 51.0),
        (13, 39.0),
        (16, 40.0),
        (20, 28.0),
        (25, 20.0),
        (31, 13.0),
        (40, 12.0),
        (54, 9.0),
    )
)
DEATH_VARIANCE = curve(
    (
        (1, 0.1),
        (2, 1.2),
        (7, 3.0),
        (10, 4.3),
        (16, 8.0),
        (22, 10.2),
        (28, 11.7),
        (40, 15.0),
        (54, 16.5),
    )
)
REST_VARIANCE = curve(
    ((13, 0.0), (16, 10.0), (20, 17.0), (25, 20.4), (30, 35.7), (40, 46.4), (54, 66.0))
)
LEAST_VARIANCE = 0.25  # a floor: the spread never quite vanishes before the last card


@cache
def top_variance(held: int, mask: int, share: float) -> float:
    """The variance of the final top that expected_top() averages."""
    mean, square = float(held), float(held * held)
    for threshold in range(held + 1, HIGH + 1):
        above = mask >> (threshold - LOW) if threshold > LOW else mask
        reached = 1.0 - (1.0 - share) ** above.bit_count()
        mean += reached
        square += (2 * threshold - 1) * reached
    return square - mean * mean


@cache
def suit_outlook(mine: int, theirs: int, mask: int, left: int) -> float:
    """One suit's expected final difference (mine minus theirs), the other player to move."""
    if not mask:
        return float(mine - theirs)
    return expected_top(mine, mask, OTHER_SHARE[left]) - expected_top(
        theirs, mask, MOVER_SHARE[left]
    )


@cache
def suit_terms(mine: int, theirs: int, mask: int, left: int) -> tuple[float, float]:
    """One suit's expected final difference and its variance, the other player to move."""
    if not mask:
        return float(mine - theirs), 0.0
    variance = top_variance(mine, mask, OTHER_SHARE[left]) + top_variance(
        theirs, mask, MOVER_SHARE[left]
    )
    return suit_outlook(mine, theirs, mask, left), variance


def spread_squared(variance: float, fools: int, death: int, left: int) -> float:
    """The squared spread of the final margin, given the variance of the suits' final tops."""
    return max(
        LEAST_VARIANCE,
        CARD_WEIGHT[left] * variance
        + FOOL_VARIANCE[left] * fools
        + DEATH_VARIANCE[left] * death
        + REST_VARIANCE[left],
    )


def chance(margin: float, spread2: float) -> float:
    """The chance of winning (a draw counting half) with this expected final margin and squared
    spread."""
    return 0.5 * (1.0 + math.erf(margin / math.sqrt(2.0 * spread2)))


def win_chance(margin: float, left: int) -> float:
    """chance() with the typical spread at this many cards left (SPREAD), whatever the position."""
    return chance(margin, SPREAD[left] ** 2)


def outlook(
    mine: Stacks, theirs: Stacks, masks: tuple[int, ...], fools: int, death: int, left: int
) -> float:
    """My chance once my turn is over, the opponent to move with `left` cards in the deck."""
    if left == 0:
        return final_share(mine, theirs)
    margin = variance = 0.0
    for s in range(SUITS):
        mean, spread = suit_terms(top(mine[s]), top(theirs[s]), masks[s], left)
        margin += mean
        variance += spread
    return chance(margin, spread_squared(variance, fools, death, left))
