"""Our strongest computer player: exact card counting, a turn searched card by card."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache

from ..actions import Action, Draw, EndTurn, Steal
from ..cards import Kind, Suit
from ..view import View
from . import Level, register

SUITS = len(Suit)
LOW = 3  # the lowest card value: a value v is bit (v - LOW) of a suit's unseen mask
HIGH = 7

Stacks = tuple[tuple[int, ...], ...]  # per suit, a bank's values highest first


@dataclass(frozen=True, slots=True)
class Position:
    """What the strong bot reads off a view: the player to move is `mine`."""

    mine: Stacks
    theirs: Stacks
    table: tuple[tuple[int, int], ...]  # (suit, value) in the order drawn or stolen
    masks: tuple[int, ...]  # per suit, the values still unseen as bits
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
    held: list[list[int]] = [[] for _ in range(SUITS)]
    for card in view.banks[seat]:
        if card.suit is not None:
            held[card.suit].append(card.value)
    return tuple(tuple(sorted(values, reverse=True)) for values in held)


def top(stack: tuple[int, ...]) -> int:
    return stack[0] if stack else 0


@cache
def expected_top(held: int, mask: int, share: float) -> float:
    """The expected final top of a suit for a player holding `held` on top now, if each unseen
    card of the suit (`mask`) independently ends in that player's bank with probability `share`.
    """
    total = float(held)
    for threshold in range(held + 1, HIGH + 1):
        above = (mask >> max(0, threshold - LOW)) if threshold > LOW else mask
        k = bin(above).count("1")
        total += 1.0 - (1.0 - share) ** k
    return total


def steal_swing(thief: Stacks, victim: Stacks) -> int:
    """The most one steal could swing the scores: the victim's loss plus the thief's gain."""
    best = 0
    for suit in range(SUITS):
        stack = victim[suit]
        if stack:
            below = stack[1] if len(stack) > 1 else 0
            swing = stack[0] - below + max(0, stack[0] - top(thief[suit]))
            best = max(best, swing)
    return best


def phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


# -- the value model ---------------------------------------------------------------------------
# Fitted on turn-boundary positions from self-play (benchmarks/calibrate.py): with `left` cards
# in the deck and a player about to move, each unseen card of a suit ends in the mover's bank
# with probability QM and in the other's with QO (as far as the suit's final top is concerned);
# each Fool left swings the margin by AM times the mover's best steal and AO times the other's;
# SIGMA is how far the final margin still strays from that estimate. Knots: (left, value).
def _curve(knots: tuple[tuple[int, float], ...]) -> tuple[float, ...]:
    """A table over 0..54 cards left, linear between knots, flat beyond the last ones."""
    table = []
    for left in range(55):
        if left <= knots[0][0]:
            table.append(knots[0][1])
            continue
        for (x0, y0), (x1, y1) in itertools.pairwise(knots):
            if x0 <= left <= x1:
                table.append(y0 + (y1 - y0) * (left - x0) / (x1 - x0))
                break
        else:
            table.append(knots[-1][1])
    return tuple(table)


QM = _curve(
    ((1, 0.9), (4, 0.9), (8, 0.75), (12, 0.68), (16, 0.62), (20, 0.58), (28, 0.52), (40, 0.5))
)
QO = _curve(((1, 0.1), (3, 0.55), (6, 0.72), (9, 0.7), (12, 0.62), (18, 0.55), (26, 0.48)))
AM = _curve(
    ((1, 1.0), (4, 1.2), (8, 0.55), (12, 0.3), (18, 0.2), (24, 0.12), (32, 0.06), (40, 0.02))
)
AO = _curve(
    ((1, 0.0), (3, -0.7), (6, -0.55), (10, -0.3), (16, -0.17), (24, -0.1), (32, -0.04), (40, 0.0))
)
SIGMA = _curve(
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


def final_share(mine: Stacks, theirs: Stacks) -> float:
    """1 for a win, 0.5 for a draw, 0 for a loss, as the banks stand."""
    a = sum(top(s) for s in mine)
    b = sum(top(s) for s in theirs)
    return 1.0 if a > b else 0.0 if a < b else 0.5


def after_turn(
    mine: Stacks, theirs: Stacks, masks: tuple[int, ...], fools: int, left: int
) -> float:
    """My chance (draws count half) once my turn is over and the opponent is to move."""
    if left == 0:
        return final_share(mine, theirs)
    qm, qo = QM[left], QO[left]
    margin = 0.0
    for suit in range(SUITS):
        mask = masks[suit]
        mt, tt = top(mine[suit]), top(theirs[suit])
        if mask:
            margin += expected_top(mt, mask, qo) - expected_top(tt, mask, qm)
        else:
            margin += mt - tt
    if fools:
        margin -= fools * (
            AM[left] * steal_swing(theirs, mine) + AO[left] * steal_swing(mine, theirs)
        )
    return phi(margin / SIGMA[left])


def bank(mine: Stacks, table: tuple[tuple[int, int], ...]) -> Stacks:
    """My stacks once the table is banked."""
    held = list(mine)
    for suit, value in table:
        held[suit] = tuple(sorted((*held[suit], value), reverse=True))
    return tuple(held)


def without_top(stacks_: Stacks, suit: int) -> Stacks:
    held = list(stacks_)
    held[suit] = held[suit][1:]
    return tuple(held)


class TurnSearch:
    """The rest of my turn, card by card: the value of banking now against drawing on.

    Every possible next card is weighed by its count among the unseen cards (nothing is known of
    their order); a Fool is followed by the best steal; after `depth` more draws the search
    assumes a bank and asks the value model what the position is worth.
    """

    def __init__(self, mine: Stacks) -> None:
        self.mine = mine
        self.memo: dict[tuple[object, ...], float] = {}

    def bank_value(
        self,
        table: tuple[tuple[int, int], ...],
        theirs: Stacks,
        masks: tuple[int, ...],
        fools: int,
        left: int,
    ) -> float:
        return after_turn(bank(self.mine, table), theirs, masks, fools, left)

    def value(
        self,
        table: tuple[tuple[int, int], ...],
        theirs: Stacks,
        masks: tuple[int, ...],
        fools: int,
        death: int,
        left: int,
        depth: int,
    ) -> float:
        """The best I can get from here: bank, or draw on (with `depth` draws to look at)."""
        if left == 0:
            return final_share(bank(self.mine, table), theirs)
        key = (frozenset(table), theirs, masks, fools, death, left, depth)
        found = self.memo.get(key)
        if found is not None:
            return found
        best = -1.0
        if table:
            best = self.bank_value(table, theirs, masks, fools, left)
        if len(table) < SUITS and (depth > 0 or not table):
            best = max(best, self.draw_value(table, theirs, masks, fools, death, left, depth - 1))
        self.memo[key] = best
        return best

    def draw_value(
        self,
        table: tuple[tuple[int, int], ...],
        theirs: Stacks,
        masks: tuple[int, ...],
        fools: int,
        death: int,
        left: int,
        depth: int,
    ) -> float:
        """The expected value of drawing one card now."""
        after = left - 1
        on_table = 0
        for suit, _ in table:
            on_table |= 1 << suit
        total = 0.0
        for suit in range(SUITS):
            mask = masks[suit]
            bits = mask
            while bits:
                bit = bits & -bits
                bits ^= bit
                value = LOW + bit.bit_length() - 1
                rest = _replace(masks, suit, mask ^ bit)
                if on_table >> suit & 1:
                    total += after_turn(self.mine, theirs, rest, fools, after)
                else:
                    total += self.value(
                        (*table, (suit, value)), theirs, rest, fools, death, after, max(depth, 0)
                    )
        if death:
            total += after_turn(self.mine, theirs, masks, fools, after)
        if fools:
            total += fools * self.fool_value(
                table, on_table, theirs, masks, fools - 1, death, after, max(depth, 0)
            )
        return total / left

    def fool_value(
        self,
        table: tuple[tuple[int, int], ...],
        on_table: int,
        theirs: Stacks,
        masks: tuple[int, ...],
        fools: int,
        death: int,
        left: int,
        depth: int,
    ) -> float:
        """What a Fool drawn now is worth: the best steal, or nothing if they hold nothing."""
        choices = self.steal_values(table, on_table, theirs, masks, fools, death, left, depth)
        if not choices:
            if left == 0:
                return final_share(bank(self.mine, table), theirs)
            return self.value(table, theirs, masks, fools, death, left, depth)
        return max(choices.values())

    def steal_values(
        self,
        table: tuple[tuple[int, int], ...],
        on_table: int,
        theirs: Stacks,
        masks: tuple[int, ...],
        fools: int,
        death: int,
        left: int,
        depth: int,
    ) -> dict[int, float]:
        """The value of each possible steal (the Fool already gone from the deck)."""
        choices: dict[int, float] = {}
        for suit in range(SUITS):
            if not theirs[suit]:
                continue
            robbed = without_top(theirs, suit)
            if on_table >> suit & 1:
                choices[suit] = (
                    after_turn(self.mine, robbed, masks, fools, left)
                    if left
                    else final_share(self.mine, robbed)
                )
            else:
                grown = (*table, (suit, theirs[suit][0]))
                choices[suit] = self.value(grown, robbed, masks, fools, death, left, depth)
        return choices


def _replace(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return (*values[:index], value, *values[index + 1 :])


DEPTH = 2  # draws looked at beyond the one being decided


class StrongBot:
    """Our strongest player (see the module's docstring for how it thinks)."""

    def __init__(self, seed: int = 0, depth: int = DEPTH) -> None:
        self.seed = seed
        self.depth = depth

    def choose(self, view: View, seat: int) -> Action:
        pos = Position.of(view, seat)
        search = TurnSearch(pos.mine)
        on_table = 0
        for suit, _ in pos.table:
            on_table |= 1 << suit
        if view.steal_pending:
            values = search.steal_values(
                pos.table,
                on_table,
                pos.theirs,
                pos.masks,
                pos.fools,
                pos.death,
                pos.left,
                self.depth,
            )
            safe = {s: v for s, v in values.items() if not on_table >> s & 1} or values
            return Steal(Suit(max(safe, key=lambda s: (safe[s], -s))))
        if not pos.table:
            return Draw()
        if len(pos.table) >= SUITS:
            return EndTurn()
        stay = search.bank_value(pos.table, pos.theirs, pos.masks, pos.fools, pos.left)
        go = search.draw_value(
            pos.table, pos.theirs, pos.masks, pos.fools, pos.death, pos.left, self.depth - 1
        )
        return Draw() if go > stay else EndTurn()


register(Level("expert", "Expert", lambda seed: StrongBot(seed)))
