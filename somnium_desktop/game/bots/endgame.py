"""The last cards of a game solved exactly: every order of the unseen cards, both at their best."""

from __future__ import annotations

from functools import cache
from itertools import chain

LOW = 3  # value v is bit (v - LOW) of a suit's unseen mask
CAP = 10  # the table holds at most ten cards

Stack = tuple[int, ...]  # a bank's values in one suit, highest first
# One suit as the player to move sees it: (their stack, the other's stack, unseen mask, the value
# on the table or 0).
Suit = tuple[Stack, Stack, int, int]
# A position for the player to move, no steal pending: (base, live suits sorted, fools, death,
# cards left). Suits are interchangeable, so only their sorted list matters; a suit that can no
# longer change (nothing unseen, nothing on the table, nothing a Fool could take) is folded into
# `base`, the score difference (mover minus other) over folded suits.
Spot = tuple[int, tuple[Suit, ...], int, int, int]

EMPTY: Suit = ((), (), 0, 0)
# A suit no card can score in any more, by its unseen count and whether it is on the table.
DEAD: tuple[tuple[Suit, Suit], ...] = tuple(
    (((7,), (7,), (1 << n) - 1, 0), ((7,), (7,), (1 << n) - 1, LOW)) for n in range(6)
)
BANK = -1  # option keys: BANK, DRAW, or a suit number to steal
DRAW = -2


class OutOfBudget(Exception):
    """The search met its node budget before finishing."""


def top(stack: Stack) -> int:
    return stack[0] if stack else 0


def share(diff: int) -> float:
    """1 for a win, 0.5 for a draw, 0 for a loss."""
    return 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5


def canon(suit: Suit, fools: int) -> tuple[int, Suit | None]:
    """One suit in canonical form: the score it folds into the base, and the suit (None if it
    is settled for good)."""
    return _canon(suit, bool(fools))


@cache
def _canon(suit: Suit, fools: bool) -> tuple[int, Suit | None]:
    """canon(), remembered: the solver asks for the same few thousand suits millions of times."""
    mine, theirs, mask, table = suit
    if fools:
        if not mask and not table and not mine and not theirs:
            return 0, None
        return 0, suit
    held, other = top(mine), top(theirs)
    if not mask and not table:
        return held - other, None
    if table <= held and mask < 1 << max(0, min(held, other) - LOW + 1):
        # No card left can raise either top: only its busts matter now.
        return held - other, DEAD[mask.bit_count()][bool(table)]
    # Cards no higher than both tops can only bust: which values they have does not matter,
    # so they become the lowest values (and a table card under our own top becomes a 3).
    low = mask & ((1 << max(0, min(held, other) - LOW + 1)) - 1)
    if low:
        mask = mask ^ low | (1 << low.bit_count()) - 1
    if table and table <= held:
        table = LOW
    return 0, (mine[:1], theirs[:1], mask, table)


def settle(base: int, suits: list[Suit], fools: int, death: int, left: int) -> Spot:
    """The canonical form of a position: settled suits folded into the base, the rest sorted."""
    live: list[Suit] = []
    some = bool(fools)
    for suit in suits:
        folded, kept = _canon(suit, some)
        base += folded
        if kept is not None:
            live.append(kept)
    live.sort()
    return base, tuple(live), fools, death, left


def place(
    base: int, suits: tuple[Suit, ...], index: int, suit: Suit, fools: int, death: int, left: int
) -> Spot:
    """A canonical position with one suit of a canonical one changed."""
    folded, kept = canon(suit, fools)
    live = list(suits)
    if kept is None:
        del live[index]
    else:
        live[index] = kept
    live.sort()
    return base + folded, tuple(live), fools, death, left


def swapped(
    base: int,
    suits: list[Suit] | tuple[Suit, ...],
    fools: int,
    death: int,
    left: int,
    banking: bool,
) -> Spot:
    """The position for the other player once the turn ends (table banked or discarded).

    Only the suits with a table card can change form (the others are canonical already)."""
    base = -base
    turned: list[Suit] = []
    for suit in suits:
        mine, theirs, mask, table = suit
        if not table:
            turned.append((theirs, mine, mask, 0))
            continue
        if banking:
            mine = tuple(sorted((*mine, table), reverse=True))
        folded, kept = canon((theirs, mine, mask, 0), fools)
        base += folded
        if kept is not None:
            turned.append(kept)
    turned.sort()
    return base, tuple(turned), fools, death, left


def final_margin(base: int, suits: list[Suit] | tuple[Suit, ...], banking: bool) -> int:
    """The final score difference for the mover, banking the table or not."""
    diff = base
    for mine, theirs, _, table in suits:
        held = mine[0] if mine else 0
        if banking and table > held:
            held = table
        diff += held - (theirs[0] if theirs else 0)
    return diff


def largest_drops(stacks: list[Stack], fools: int) -> int:
    """The most `fools` steals could take off a score: its largest steps down a stack."""
    steps = sorted(chain.from_iterable(map(_steps, stacks)), reverse=True)
    return sum(steps[:fools])


@cache
def _steps(stack: Stack) -> tuple[int, ...]:
    """What each steal in turn would take off a stack's top, the largest three (there are only
    three Fools), largest first."""
    steps = (v - (stack[i + 1] if i + 1 < len(stack) else 0) for i, v in enumerate(stack))
    return tuple(sorted(steps, reverse=True)[:3])


def decided(spot: Spot) -> float | None:
    """The share if no card left can change the winner (bounds on both scores), else None."""
    now, suits, fools = spot[0], spot[1], spot[2]
    up = down = 0
    for mine, theirs, mask, table in suits:
        held = mine[0] if mine else 0
        other = theirs[0] if theirs else 0
        now += held - other
        best = mask.bit_length() + LOW - 1 if mask else 0
        if fools:
            gain = max(table, best, other) - held
            loss = max(best, held) - other
        else:
            gain = (table if table > best else best) - held
            loss = best - other
        if gain > 0:
            up += gain
        if loss > 0:
            down += loss
    if fools:
        up += largest_drops([s[1] for s in suits], fools)
        down += largest_drops([s[0] for s in suits], fools)
    if now - down > 0:
        return 1.0
    if now + up < 0:
        return 0.0
    return None


class Endgame:
    """Exact values with the whole rest of the game searched: the player to move maximises its
    share (a win 1, a draw 1/2), the other then does the same, every unseen order equally likely.

    Values are for the player about to act. The memo is kept between calls (positions recur
    from one decision to the next). `budget` bounds the positions a call may visit: past it the
    call raises OutOfBudget (what was finished stays remembered), so a caller can fall back.
    """

    def __init__(self) -> None:
        self.memo: dict[Spot, float] = {}
        self.budget = 0

    @property
    def nodes(self) -> int:
        return len(self.memo)

    def value(self, spot: Spot) -> float:
        """The best share the mover can get: bank (if the table holds anything) or draw."""
        found = self.memo.get(spot)
        if found is not None:
            return found
        known = decided(spot)
        if known is not None:
            self.memo[spot] = known
            return known
        self.budget -= 1
        if self.budget < 0:
            raise OutOfBudget
        best = -1.0
        on_table = sum(1 for s in spot[1] if s[3])
        if on_table:
            best = 1.0 - self.passed(swapped(*spot, banking=True))
        if on_table < CAP and best < 1.0:
            best = max(best, self.draw(spot, best))
        self.memo[spot] = best
        return best

    def passed(self, spot: Spot) -> float:
        """The value of `spot` for the other player, whose turn it now is (a hook for solvers
        that play the two sides differently)."""
        return self.value(spot)

    def lost(
        self,
        base: int,
        suits: list[Suit] | tuple[Suit, ...],
        fools: int,
        death: int,
        left: int,
        full: bool = False,
    ) -> float:
        """A bust or Death: the table is discarded and the turn passes, or the game ends.

        `suits` is canonical but for table cards, unless `full` asks for a complete settling.
        """
        if left == 0:
            return share(final_margin(base, suits, banking=False))
        if full:
            cleared = [(theirs, mine, mask, 0) for mine, theirs, mask, _ in suits]
            return 1.0 - self.passed(settle(-base, cleared, fools, death, left))
        return 1.0 - self.passed(swapped(base, suits, fools, death, left, banking=False))

    def goes_on(
        self,
        base: int,
        suits: tuple[Suit, ...],
        index: int,
        suit: Suit,
        fools: int,
        death: int,
        left: int,
        full: bool = False,
    ) -> float:
        """A card landed safely (suits[index] is now `suit`): the turn goes on, or the last
        card ends the game, banked. `full` asks for a complete settling of the position."""
        if left == 0:
            changed = list(suits)
            if index >= 0:
                changed[index] = suit
            return share(final_margin(base, changed, banking=True))
        if full:
            changed = list(suits)
            if index >= 0:
                changed[index] = suit
            return self.value(settle(base, changed, fools, death, left))
        if index < 0:
            return self.value((base, suits, fools, death, left))
        return self.value(place(base, suits, index, suit, fools, death, left))

    def draw(self, spot: Spot, floor: float = -1.0) -> float:
        """Draw one card: the average over every card that could come.

        If the draw is shown to be worth no more than `floor` (what banking gets), the search
        stops early and returns a value no higher than `floor`: the busts are looked at first,
        and every card not yet looked at counts as a sure win meanwhile.
        """
        base, suits, fools, death, left = spot
        after = left - 1
        total = 0.0
        unseen = left  # cards not looked at yet
        for busting in (True, False):
            previous: Suit | None = None
            last = 0.0
            for index, suit in enumerate(suits):
                mine, theirs, mask, table = suit
                if not mask or bool(table) is not busting:
                    continue
                if suit != previous:
                    last = 0.0
                    bits = mask
                    while bits:
                        bit = bits & -bits
                        bits ^= bit
                        if table:
                            changed = list(suits)
                            changed[index] = (mine, theirs, mask ^ bit, table)
                            last += self.lost(base, changed, fools, death, after)
                        else:
                            card = (mine, theirs, mask ^ bit, LOW + bit.bit_length() - 1)
                            last += self.goes_on(base, suits, index, card, fools, death, after)
                    previous = suit
                total += last  # an identical suit has the same outcomes again
                unseen -= mask.bit_count()
                if (total + unseen) / left <= floor:
                    return (total + unseen) / left
            if busting and death:
                total += self.lost(base, suits, fools, 0, after)
                unseen -= 1
        if fools:
            options = self.steals(base, suits, fools - 1, death, after)
            if options:
                total += fools * max(options.values())
            else:
                total += fools * self.goes_on(
                    base, suits, -1, EMPTY, fools - 1, death, after, full=fools == 1
                )
        return total / left

    def steals(
        self,
        base: int,
        suits: tuple[Suit, ...],
        fools: int,
        death: int,
        left: int,
        full: bool = False,
    ) -> dict[int, float]:
        """The value of stealing from each suit the other player holds (by index in `suits`).

        `suits` is canonical for `fools + 1` Fools; with none left after this one, or if `full`
        says it is not canonical at all, the positions are settled completely."""
        full = full or not fools
        options: dict[int, float] = {}
        seen: dict[Suit, int] = {}
        for index, suit in enumerate(suits):
            mine, theirs, mask, table = suit
            if not theirs:
                continue
            if suit in seen:  # the same steal as an identical suit's
                options[index] = options[seen[suit]]
                continue
            seen[suit] = index
            if table:
                changed = list(suits)
                changed[index] = (mine, theirs[1:], mask, table)
                options[index] = self.lost(base, changed, fools, death, left, full)
            else:
                stolen = (mine, theirs[1:], mask, theirs[0])
                options[index] = self.goes_on(base, suits, index, stolen, fools, death, left, full)
        return options

    def options(
        self, suits: list[Suit], fools: int, death: int, left: int, steal_pending: bool, budget: int
    ) -> dict[int, float]:
        """The exact value of everything the player to move may do (suits in real order).

        Raises OutOfBudget if that takes more than `budget` positions.
        """
        self.budget = budget
        if steal_pending:
            kept = [(number, suit) for number, suit in enumerate(suits) if suit != EMPTY]
            values = self.steals(0, tuple(suit for _, suit in kept), fools, death, left, True)
            return {kept[index][0]: value for index, value in values.items()}
        spot = settle(0, suits, fools, death, left)
        on_table = sum(1 for s in suits if s[3])
        found: dict[int, float] = {}
        if on_table:
            found[BANK] = 1.0 - self.passed(swapped(*spot, banking=True))
        if on_table < CAP:
            found[DRAW] = self.draw(spot)
        return found
