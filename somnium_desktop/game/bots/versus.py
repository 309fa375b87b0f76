"""The last cards solved against the original game's hard AI: its own rules at its turns.

endgame.Endgame assumes both players at their best. This solver keeps my turns exact (I take the
best of banking, drawing and each steal) but at the opponent's turns it follows what classic-8-50
("hard", classic.py) would do: its bank-or-draw ladder with the endgame variant, and its steals
by its own values (ties averaged, as it picks among them at random). It is the best reply to
that player, which is the expert's model of its opponent in the last cards.

What classic's steals took this turn counts in what its banking is worth (classic.py's extra),
so the solver carries it along the opponent's turn.
"""

from __future__ import annotations

from .classic import (
    ENDGAME_CARDS,
    LEAD_WEIGHT,
    LEVEL_SETTINGS,
    STEAL_SWING,
    ClassicBot,
)
from .endgame import (
    CAP,
    LOW,
    Endgame,
    OutOfBudget,
    Spot,
    Suit,
    decided,
    swapped,
    top,
)

INTELLIGENCE, AGGRESSION = LEVEL_SETTINGS["hard"]
if INTELLIGENCE != 8 or AGGRESSION < 50:
    # hard_banks() and the steal values below are classic at intelligence 8 (every card
    # remembered, steals counted, the endgame variant) with no lone-card term (aggression >= 50).
    raise RuntimeError("versus.py models classic at intelligence 8 and aggression 50 or more")
NO_STEAL = -99  # the option key for "every steal alike" (none open that keeps the table)


def hard_banks(spot: Spot, taken: int = 0) -> bool:
    """Whether classic-8-50, to move in `spot` (no steal pending), banks rather than draws;
    `taken` is what its steals took off the other's score this turn."""
    base, suits, fools, death, left = spot
    on_table = sum(1 for suit in suits if suit[3])
    if not on_table:
        return False
    if on_table >= CAP:
        return True
    good, bad = 10 * fools, 10 * death  # it remembers every card at intelligence 8
    extra = taken
    lead = base
    reach = STEAL_SWING * fools
    for mine, theirs, mask, table in suits:
        held, other = top(mine), top(theirs)
        if table:
            bad += 10 * mask.bit_count()
            extra += max(0, table - held)
        else:
            good += 10 * mask.bit_count()
        lead += max(held, table) - other
        best = mask.bit_length() + LOW - 1 if mask else 0
        reach += max(0, best - other)
    chance = good * 100 // (good + bad) if good + bad else 0
    aggression = AGGRESSION
    if left < ENDGAME_CARDS:
        if lead > reach:
            return True
        aggression = min(100, max(0, aggression - LEAD_WEIGHT * lead))
    return ClassicBot.ladder(chance, extra, aggression)


def next_of(stack: tuple[int, ...]) -> int:
    """A bank's next card in a suit, under its top (0 if none)."""
    return stack[1] if len(stack) > 1 else 0


class AgainstHard(Endgame):
    """Exact values for me (the player to move at the root) against classic-8-50's rules.

    The memo keys each position by whose turn it is (mine or the opponent's: the same position
    is worth different things to a player at its best and to one following fixed rules) and by
    what the opponent's steals took this turn (it changes where classic banks).
    """

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[tuple[Spot, bool, int], float] = {}
        self.mine = True
        self.taken = 0  # what the opponent's steals took off my score this turn

    @property
    def nodes(self) -> int:
        return len(self.seen)

    def value(self, spot: Spot) -> float:
        """The mover's share: my best if it is me, else what classic's rules get."""
        key = (spot, self.mine, self.taken)
        found = self.seen.get(key)
        if found is not None:
            return found
        known = decided(spot)
        if known is not None:
            self.seen[key] = known
            return known
        self.budget -= 1
        if self.budget < 0:
            raise OutOfBudget
        on_table = sum(1 for suit in spot[1] if suit[3])
        if self.mine:
            best = -1.0
            if on_table:
                best = 1.0 - self.passed(swapped(*spot, banking=True))
            if on_table < CAP and best < 1.0:
                best = max(best, self.draw(spot, best))
        elif hard_banks(spot, self.taken):
            best = 1.0 - self.passed(swapped(*spot, banking=True))
        else:
            best = self.draw(spot)
        self.seen[key] = best
        return best

    def passed(self, spot: Spot) -> float:
        """The value of `spot` for the other player, whose turn it now is: the other side's
        rules, and nothing taken yet in the new turn."""
        mine, taken = self.mine, self.taken
        self.mine, self.taken = not mine, 0
        try:
            return self.value(spot)
        finally:
            self.mine, self.taken = mine, taken

    def steals(
        self,
        base: int,
        suits: tuple[Suit, ...],
        fools: int,
        death: int,
        left: int,
        full: bool = False,
    ) -> dict[int, float]:
        """My steals, each valued; for classic, only the one it would take (ties averaged)."""
        if self.mine:
            return super().steals(base, suits, fools, death, left, full)
        full = full or not fools
        open_ = [index for index, suit in enumerate(suits) if suit[1]]
        if not open_:
            return {}
        scored: dict[int, int] = {}
        for index in open_:
            mine, theirs, _, table = suits[index]
            if not table:  # a suit on its table would bust it: worth 0, taken only if nothing else
                scored[index] = max(0, theirs[0] - top(mine)) + theirs[0] - next_of(theirs)
        if scored:
            most = max(scored.values())
            ties = [index for index, value in scored.items() if value == most]
        else:
            ties = open_
        total = 0.0
        for index in ties:
            total += self.steal(base, suits, index, fools, death, left, full)
        return {ties[0] if scored else NO_STEAL: total / len(ties)}

    def steal(
        self,
        base: int,
        suits: tuple[Suit, ...],
        index: int,
        fools: int,
        death: int,
        left: int,
        full: bool,
    ) -> float:
        """The opponent's steal from suits[index], what it took counted for the rest of its turn."""
        mine, theirs, mask, table = suits[index]
        if table:
            changed = list(suits)
            changed[index] = (mine, theirs[1:], mask, table)
            return self.lost(base, changed, fools, death, left, full)
        self.taken += theirs[0] - next_of(theirs)
        try:
            stolen = (mine, theirs[1:], mask, theirs[0])
            return self.goes_on(base, suits, index, stolen, fools, death, left, full)
        finally:
            self.taken -= theirs[0] - next_of(theirs)

    def options(
        self, suits: list[Suit], fools: int, death: int, left: int, steal_pending: bool, budget: int
    ) -> dict[int, float]:
        """The exact value of everything I may do (suits in real order), classic replying.

        Raises OutOfBudget if that takes more than `budget` positions.
        """
        self.mine, self.taken = True, 0
        return super().options(suits, fools, death, left, steal_pending, budget)
