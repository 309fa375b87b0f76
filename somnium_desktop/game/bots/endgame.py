"""The last cards of a game solved exactly: every order of the unseen cards, both at their best."""

from __future__ import annotations

from itertools import chain

LOW = 3  # value v is bit (v - LOW) of a suit's masks
CAP = 10  # the table holds at most ten cards

Stack = tuple[int, ...]  # a bank's values in one suit, highest first
# One suit as the player to move sees it, as callers give it: (their stack, the other's stack,
# unseen mask, the value on the table or 0).
SuitCards = tuple[Stack, Stack, int, int]
# Inside the solver a suit is one int, its code: the mover's values as a mask (bits 13-17), the
# other's (8-12), the unseen values (3-7) and the table value (0-2, 0 for none). A suit holds
# each value once, so a stack is a set; and comparing two masks as numbers orders their stacks
# as comparing the stacks highest card first does, so codes sort as the suits' tuples would.
Code = int
MINE, THEIRS, UNSEEN = 13, 8, 3
# A position for the player to move, no steal pending: (base, live suit codes sorted, fools,
# death, cards left). Suits are interchangeable, so only their sorted list matters; a suit that
# can no longer change (nothing unseen, nothing on the table, nothing a Fool could take) is
# folded into `base`, the score difference (mover minus other) over folded suits.
Spot = tuple[int, tuple[Code, ...], int, int, int]

EMPTY: Code = 0
SEVEN = 1 << (7 - LOW)
# A suit no card can score in any more, by its unseen count and whether it is on the table.
DEAD: tuple[tuple[Code, Code], ...] = tuple(
    (
        SEVEN << MINE | SEVEN << THEIRS | ((1 << n) - 1) << UNSEEN,
        SEVEN << MINE | SEVEN << THEIRS | ((1 << n) - 1) << UNSEEN | LOW,
    )
    for n in range(6)
)
BANK = -1  # option keys: BANK, DRAW, or a suit number to steal
DRAW = -2

# Per 5-bit mask: the top value (0 if empty), the mask without its top, the top's bit alone.
TOP: tuple[int, ...] = tuple(m.bit_length() + LOW - 1 if m else 0 for m in range(32))
BELOW: tuple[int, ...] = tuple(m ^ (1 << (m.bit_length() - 1)) if m else 0 for m in range(32))
HIGH_BIT: tuple[int, ...] = tuple(1 << (m.bit_length() - 1) if m else 0 for m in range(32))


class OutOfBudget(Exception):
    """The search met its node budget before finishing."""


def share(diff: int) -> float:
    """1 for a win, 0.5 for a draw, 0 for a loss."""
    return 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5


def values_mask(stack: Stack) -> int:
    """A stack's values as a mask."""
    found = 0
    for value in stack:
        found |= 1 << (value - LOW)
    return found


def encode(suit: SuitCards) -> Code:
    """A suit's code."""
    mine, theirs, mask, table = suit
    return values_mask(mine) << MINE | values_mask(theirs) << THEIRS | mask << UNSEEN | table


def steps(mask: int) -> tuple[int, ...]:
    """What each steal in turn would take off a stack's top, the largest three (there are only
    three Fools), largest first."""
    found = []
    while mask:
        below = BELOW[mask]
        found.append(TOP[mask] - TOP[below])
        mask = below
    return tuple(sorted(found, reverse=True)[:3])


STEPS: tuple[tuple[int, ...], ...] = tuple(steps(m) for m in range(32))

_settled: dict[Code, tuple[int, Code | None]] = {}  # canon() once no Fool is left, remembered


def canon(code: Code, fools: int) -> tuple[int, Code | None]:
    """One suit in canonical form: the score it folds into the base, and the suit (None if it
    is settled for good). While a Fool may come every stack matters, so only an empty suit goes;
    after that the forms are remembered: the solver asks for the same few thousand suits
    millions of times."""
    if fools:
        return (0, None) if code == EMPTY else (0, code)
    found = _settled.get(code)
    if found is None:
        found = _settled[code] = _canon(code)
    return found


def _canon(code: Code) -> tuple[int, Code | None]:
    mine, theirs, mask, table = code >> MINE, code >> THEIRS & 31, code >> UNSEEN & 31, code & 7
    held, other = TOP[mine], TOP[theirs]
    if not mask and not table:
        return held - other, None
    under = max(0, min(held, other) - LOW + 1)  # how many values are no higher than both tops
    if table <= held and mask < 1 << under:
        # No card left can raise either top: only its busts matter now.
        return held - other, DEAD[mask.bit_count()][bool(table)]
    # Cards no higher than both tops can only bust: which values they have does not matter,
    # so they become the lowest values (and a table card under our own top becomes a 3).
    low = mask & ((1 << under) - 1)
    if low:
        mask = mask ^ low | (1 << low.bit_count()) - 1
    if table and table <= held:
        table = LOW
    return 0, HIGH_BIT[mine] << MINE | HIGH_BIT[theirs] << THEIRS | mask << UNSEEN | table


def turned_over(code: Code) -> Code:
    """A suit as the other player sees it, the table cleared (banked or discarded before)."""
    mine, theirs, mask = code >> MINE, code >> THEIRS & 31, code >> UNSEEN & 31
    return theirs << MINE | mine << THEIRS | mask << UNSEEN


def settle(base: int, suits: list[SuitCards], fools: int, death: int, left: int) -> Spot:
    """The canonical form of a position given suit by suit."""
    return settle_codes(base, [encode(suit) for suit in suits], fools, death, left)


def settle_codes(base: int, suits: list[Code], fools: int, death: int, left: int) -> Spot:
    """The canonical form of a position: settled suits folded into the base, the rest sorted."""
    live: list[Code] = []
    for code in suits:
        folded, kept = canon(code, fools)
        base += folded
        if kept is not None:
            live.append(kept)
    live.sort()
    return base, tuple(live), fools, death, left


def place(
    base: int, suits: tuple[Code, ...], index: int, code: Code, fools: int, death: int, left: int
) -> Spot:
    """A canonical position with one suit of a canonical one changed."""
    folded, kept = canon(code, fools)
    live = list(suits)
    if kept is None:
        del live[index]
    else:
        live[index] = kept
    live.sort()
    return base + folded, tuple(live), fools, death, left


def swapped(
    base: int,
    suits: list[Code] | tuple[Code, ...],
    fools: int,
    death: int,
    left: int,
    banking: bool,
) -> Spot:
    """The position for the other player once the turn ends (table banked or discarded).

    Only the suits with a table card can change form (the others are canonical already)."""
    base = -base
    turned: list[Code] = []
    for code in suits:
        table = code & 7
        if not table:
            turned.append(turned_over(code))
            continue
        if banking:
            code |= 1 << (table - LOW) << MINE
        folded, kept = canon(turned_over(code), fools)
        base += folded
        if kept is not None:
            turned.append(kept)
    turned.sort()
    return base, tuple(turned), fools, death, left


def final_margin(base: int, suits: list[Code] | tuple[Code, ...], banking: bool) -> int:
    """The final score difference for the mover, banking the table or not."""
    diff = base
    for code in suits:
        held = TOP[code >> MINE]
        if banking and (code & 7) > held:
            held = code & 7
        diff += held - TOP[code >> THEIRS & 31]
    return diff


def largest_drops(masks: list[int], fools: int) -> int:
    """The most `fools` steals could take off a score: its largest steps down a stack."""
    found = sorted(chain.from_iterable(STEPS[mask] for mask in masks), reverse=True)
    return sum(found[:fools])


def _bounds(code: Code, fools: bool) -> tuple[int, int, int]:
    """A suit's score difference now, the most the mover could still gain in it and the most
    the other could (their own cards and the unseen ones only; steals come on top)."""
    mine, theirs, mask, table = code >> MINE, code >> THEIRS & 31, code >> UNSEEN & 31, code & 7
    held, other, best = TOP[mine], TOP[theirs], TOP[mask]
    if fools:
        gain = max(table, best, other) - held
        loss = max(best, held) - other
    else:
        gain = (table if table > best else best) - held
        loss = best - other
    return held - other, max(0, gain), max(0, loss)


_bounds_memo: tuple[dict[Code, tuple[int, int, int]], dict[Code, tuple[int, int, int]]] = ({}, {})


def decided(spot: Spot) -> float | None:
    """The share if no card left can change the winner (bounds on both scores), else None."""
    now, suits, fools = spot[0], spot[1], spot[2]
    memo = _bounds_memo[bool(fools)]
    up = down = 0
    for code in suits:
        found = memo.get(code)
        if found is None:
            found = memo[code] = _bounds(code, bool(fools))
        now += found[0]
        up += found[1]
        down += found[2]
    if fools:
        up += largest_drops([code >> THEIRS & 31 for code in suits], fools)
        down += largest_drops([code >> MINE for code in suits], fools)
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
        on_table = sum(1 for code in spot[1] if code & 7)
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
        suits: list[Code] | tuple[Code, ...],
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
            cleared = [turned_over(code) for code in suits]
            return 1.0 - self.passed(settle_codes(-base, cleared, fools, death, left))
        return 1.0 - self.passed(swapped(base, suits, fools, death, left, banking=False))

    def goes_on(
        self,
        base: int,
        suits: tuple[Code, ...],
        index: int,
        code: Code,
        fools: int,
        death: int,
        left: int,
        full: bool = False,
    ) -> float:
        """A card landed safely (suits[index] is now `code`): the turn goes on, or the last
        card ends the game, banked. `full` asks for a complete settling of the position."""
        if left == 0:
            changed = list(suits)
            if index >= 0:
                changed[index] = code
            return share(final_margin(base, changed, banking=True))
        if full:
            changed = list(suits)
            if index >= 0:
                changed[index] = code
            return self.value(settle_codes(base, changed, fools, death, left))
        if index < 0:
            return self.value((base, suits, fools, death, left))
        return self.value(place(base, suits, index, code, fools, death, left))

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
            previous = -1
            last = 0.0
            for index, code in enumerate(suits):
                mask = code >> UNSEEN & 31
                if not mask or bool(code & 7) is not busting:
                    continue
                if code != previous:
                    last = 0.0
                    bits = mask
                    while bits:
                        bit = bits & -bits
                        bits ^= bit
                        if busting:
                            changed = list(suits)
                            changed[index] = code ^ bit << UNSEEN
                            last += self.lost(base, changed, fools, death, after)
                        else:
                            card = code ^ bit << UNSEEN | LOW + bit.bit_length() - 1
                            last += self.goes_on(base, suits, index, card, fools, death, after)
                    previous = code
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
        suits: tuple[Code, ...],
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
        seen: dict[Code, int] = {}
        for index, code in enumerate(suits):
            theirs = code >> THEIRS & 31
            if not theirs:
                continue
            if code in seen:  # the same steal as an identical suit's
                options[index] = options[seen[code]]
                continue
            seen[code] = index
            robbed = code ^ HIGH_BIT[theirs] << THEIRS
            if code & 7:
                changed = list(suits)
                changed[index] = robbed
                options[index] = self.lost(base, changed, fools, death, left, full)
            else:
                stolen = robbed | TOP[theirs]
                options[index] = self.goes_on(base, suits, index, stolen, fools, death, left, full)
        return options

    def options(
        self,
        suits: list[SuitCards],
        fools: int,
        death: int,
        left: int,
        steal_pending: bool,
        budget: int,
    ) -> dict[int, float]:
        """The exact value of everything the player to move may do (suits in real order).

        Raises OutOfBudget if that takes more than `budget` positions.
        """
        self.budget = budget
        codes = [encode(suit) for suit in suits]
        if steal_pending:
            kept = [(number, code) for number, code in enumerate(codes) if code != EMPTY]
            values = self.steals(0, tuple(code for _, code in kept), fools, death, left, True)
            return {kept[index][0]: value for index, value in values.items()}
        spot = settle_codes(0, codes, fools, death, left)
        on_table = sum(1 for code in spot[1] if code & 7)
        found: dict[int, float] = {}
        if on_table:
            found[BANK] = 1.0 - self.passed(swapped(*spot, banking=True))
        if on_table < CAP:
            found[DRAW] = self.draw(spot)
        return found
