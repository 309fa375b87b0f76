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

from .classic import ENDGAME_CARDS, LEVEL_SETTINGS, ClassicBot
from .endgame import (
    BELOW,
    CAP,
    HIGH_BIT,
    MINE,
    THEIRS,
    TOP,
    UNSEEN,
    Code,
    Endgame,
    OutOfBudget,
    Spot,
    SuitCards,
    decided,
    swapped,
)

INTELLIGENCE, AGGRESSION = LEVEL_SETTINGS["hard"]
if INTELLIGENCE != 8 or AGGRESSION < 50:
    # hard_banks() and the steal values below are classic at intelligence 8 (every card
    # remembered, steals counted, the endgame variant) with no lone-card term (aggression >= 50).
    raise RuntimeError("versus.py models classic at intelligence 8 and aggression 50 or more")


def hard_banks(spot: Spot, taken: int = 0) -> bool:
    """Whether classic-8-50, to move in `spot` (no steal pending), banks rather than draws;
    `taken` is what its steals took off the other's score this turn."""
    base, suits, fools, death, left = spot
    on_table = good = bad = extra = lead = 0
    for code in suits:
        found = _counts.get(code)
        if found is None:
            found = _counts[code] = counts(code)
        on_table += found[0]
        good += found[1]
        bad += found[2]
        extra += found[3]
        lead += found[4]
    if not on_table:
        return False
    if on_table >= CAP:
        return True
    good += 10 * fools  # it remembers every card at intelligence 8
    bad += 10 * death
    chance = good * 100 // (good + bad) if good + bad else 0
    if left < ENDGAME_CARDS:
        return ClassicBot.endgame_ladder(chance, extra + taken, AGGRESSION, base + lead, left)
    return ClassicBot.ladder(chance, extra + taken, AGGRESSION)


def counts(code: Code) -> tuple[int, int, int, int, int]:
    """What one suit adds to classic's sums: on the table (0 or 1), its good and bad draws, the
    table's gain, and its lead in the suit with the table banked."""
    mine, theirs, mask, table = code >> MINE, code >> THEIRS & 31, code >> UNSEEN & 31, code & 7
    held, other = TOP[mine], TOP[theirs]
    draws = 10 * mask.bit_count()
    return (
        int(bool(table)),
        0 if table else draws,
        draws if table else 0,
        max(0, table - held),
        max(held, table) - other,
    )


_counts: dict[Code, tuple[int, int, int, int, int]] = {}


def taken_from(theirs: int) -> int:
    """What stealing the top of a stack (as a mask) takes off its owner's score."""
    return TOP[theirs] - TOP[BELOW[theirs]]


def hard_steals(suits: tuple[Code, ...], open_: list[int]) -> list[int]:
    """The suits (indexes into `suits`, those in `open_`) classic-8-50 picks among at random
    when it steals: ClassicBot.best_steals, with the suits as the solver codes them."""
    gain = sum(max(0, (code & 7) - TOP[code >> MINE]) for code in suits if code & 7)
    scored: dict[int, int] = {}
    for index in open_:
        code = suits[index]
        theirs = code >> THEIRS & 31
        value = taken_from(theirs)  # intelligence 4 and up: what it takes off the other's top
        if not code & 7:  # not on its table: the table's gain and what it adds to its own top
            value += gain + max(0, TOP[theirs] - TOP[code >> MINE])
        scored[index] = value
    most = max(scored.values())
    ties = [index for index, value in scored.items() if value == most]
    return [index for index in ties if not suits[index] & 7] or ties


class AgainstHard(Endgame):
    """Exact values for me (the player to move at the root) against classic-8-50's rules.

    The memo keys each position by whose turn it is (mine or the opponent's: the same position
    is worth different things to a player at its best and to one following fixed rules) and by
    what the opponent's steals took this turn (it changes where classic banks).
    """

    def __init__(self) -> None:
        super().__init__()
        # Mine by position; classic's by position and what its steals took this turn.
        self.seen_mine: dict[Spot, float] = {}
        self.seen_theirs: dict[tuple[Spot, int], float] = {}
        self.mine = True
        self.taken = 0  # what the opponent's steals took off my score this turn

    @property
    def nodes(self) -> int:
        return len(self.seen_mine) + len(self.seen_theirs)

    def value(self, spot: Spot) -> float:
        """The mover's share: my best if it is me, else what classic's rules get."""
        mine = self.mine
        key = (spot, self.taken)
        found = self.seen_mine.get(spot) if mine else self.seen_theirs.get(key)
        if found is not None:
            return found
        best = decided(spot)
        if best is None:
            self.budget -= 1
            if self.budget < 0:
                raise OutOfBudget
            best = self.my_best(spot) if mine else self.hard_play(spot)
        if mine:
            self.seen_mine[spot] = best
        else:
            self.seen_theirs[key] = best
        return best

    def my_best(self, spot: Spot) -> float:
        """My best: bank (if the table holds anything) or draw."""
        on_table = sum(1 for code in spot[1] if code & 7)
        best = -1.0
        if on_table:
            best = 1.0 - self.passed(swapped(*spot, banking=True))
        if on_table < CAP and best < 1.0:
            best = max(best, self.draw(spot, best))
        return best

    def hard_play(self, spot: Spot) -> float:
        """What classic's rules get: bank or draw as its ladder says."""
        if hard_banks(spot, self.taken):
            return 1.0 - self.passed(swapped(*spot, banking=True))
        return self.draw(spot)

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
        suits: tuple[Code, ...],
        fools: int,
        death: int,
        left: int,
        full: bool = False,
    ) -> dict[int, float]:
        """My steals, each valued; for classic, only the one it would take (ties averaged)."""
        if self.mine:
            return super().steals(base, suits, fools, death, left, full)
        full = full or not fools
        open_ = [index for index, code in enumerate(suits) if code >> THEIRS & 31]
        if not open_:
            return {}
        ties = hard_steals(suits, open_)
        total = 0.0
        for index in ties:
            total += self.steal(base, suits, index, fools, death, left, full)
        return {ties[0]: total / len(ties)}

    def steal(
        self,
        base: int,
        suits: tuple[Code, ...],
        index: int,
        fools: int,
        death: int,
        left: int,
        full: bool,
    ) -> float:
        """The opponent's steal from suits[index], what it took counted for the rest of its turn."""
        code = suits[index]
        theirs = code >> THEIRS & 31
        robbed = code ^ HIGH_BIT[theirs] << THEIRS
        if code & 7:
            changed = list(suits)
            changed[index] = robbed
            return self.lost(base, changed, fools, death, left, full)
        took = taken_from(theirs)
        self.taken += took
        try:
            return self.goes_on(base, suits, index, robbed | TOP[theirs], fools, death, left, full)
        finally:
            self.taken -= took

    def options(
        self,
        suits: list[SuitCards],
        fools: int,
        death: int,
        left: int,
        steal_pending: bool,
        budget: int,
    ) -> dict[int, float]:
        """The exact value of everything I may do (suits in real order), classic replying.

        Raises OutOfBudget if that takes more than `budget` positions.
        """
        self.mine, self.taken = True, 0
        return super().options(suits, fools, death, left, steal_pending, budget)
