"""Our strongest computer player: exact card counting, the turn searched card by card, and the
endgame solved.

How it decides (it sees only the public view, never the deck order):

- It counts every card: the unseen multiset is known exactly (the deck minus banks, table and
  discard), so the chance of each next card is its count over the cards left.
- Its turn is searched card by card (TurnSearch): bank now, or draw and average over every card
  that could come (a bust, Death, a Fool followed by its best steal, a safe card after which it
  decides again), looking DEPTH draws beyond the one being decided. When its turn would end,
  a value model (model.py) judges the position: the expected final top of each suit for both
  players given the cards still unseen, turned into a chance of winning by how far the final
  margin can still stray there (the variance of the suits still open, the Fools and Death left),
  so it plays for the win, not for points (bolder behind, safer ahead, and sure of a lead that
  nothing left can touch).
- A steal is judged the same way: what the stolen card adds to its table (and whether it busts
  it), and what losing it does to the opponent's outlook.
- When banking now wins whatever comes (the opponent could not even draw level with the best
  unseen card of every suit and each Fool left stealing my most), it banks: the model's spread
  would still value such a position below a sure thing and sometimes gamble on.
- With ENDGAME cards left or fewer it solves the rest of the game exactly: every order of the
  unseen cards, its own choices at their best and the opponent's as the original game's hard AI
  (classic-8-50) makes them (versus.py), its model of the opponent. A node budget keeps each
  decision quick; past it the decision falls back on the turn search, and the solved positions
  are kept for the next decisions, which usually finish. With best_play=True it assumes an
  opponent at its best instead (endgame.py).

It is deterministic: there is nothing random in it (ties go to the lowest suit).

How strong it is, with the command behind each figure: the measurements table of
docs/bots.md; what was tried and not kept: its appendix. The tuning constants below (DEPTH,
ENDGAME, BUDGET, STEALS_SEARCHED) are the values that measured best there; larger ones changed
few games, evenly for better and worse, at a higher p99 decision time.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..actions import Action, Draw, EndTurn, Steal
from ..cards import Suit
from ..view import View
from . import Level, register
from .endgame import BANK, DRAW, Endgame, OutOfBudget, decided, settle
from .model import (
    LOW,
    SUITS,
    Position,
    Stacks,
    Table,
    banked,
    bits_of,
    chance,
    final_share,
    robbed,
    spread_squared,
    suit_terms,
    top,
)
from .versus import AgainstHard

DEPTH = 2  # draws looked at beyond the one being decided
ENDGAME = 8  # with this many cards left or fewer, try to solve the rest of the game exactly
BUDGET = 3000  # endgame positions one decision may solve before falling back on the search
STEALS_SEARCHED = 3  # inside the search, how many of the likeliest best steals are searched on
MEMO_LIMIT = 50_000  # endgame positions remembered between decisions (a few MB)


class TurnSearch:
    """The rest of my turn, card by card, from one position: bank now, or draw on.

    Inside a turn the table and the suits stolen so far determine everything else (the cards
    drawn are the table's other cards), so those, the Fools left and the depth key the memo.
    Leaves are valued incrementally: only the suits touched this turn differ from the start.
    """

    def __init__(self, pos: Position, depth: int) -> None:
        self.pos = pos
        self.depth = depth
        self.memo: dict[tuple[frozenset[tuple[int, int]], int, int, int], float] = {}
        self.baselines: dict[int, tuple[float, float, list[tuple[float, float]]]] = {}

    # -- the value of a finished turn -----------------------------------------------------------

    def baseline(self, left: int) -> tuple[float, float, list[tuple[float, float]]]:
        """The value model's per-suit terms (expected difference, variance) for the starting
        banks and unseen cards, and their sums."""
        found = self.baselines.get(left)
        if found is None:
            pos = self.pos
            terms = [
                suit_terms(top(pos.mine[s]), top(pos.theirs[s]), pos.masks[s], left)
                for s in range(SUITS)
            ]
            found = (sum(t[0] for t in terms), sum(t[1] for t in terms), terms)
            self.baselines[left] = found
        return found

    def ended(
        self,
        table: Table,
        theirs: Stacks,
        masks: tuple[int, ...],
        fools: int,
        left: int,
        touched: int,
    ) -> float:
        """My chance once the turn ends with `table` banked (empty after a bust or Death)."""
        mine = self.pos.mine
        if left == 0:
            return final_share(banked(mine, table), theirs)
        margin, variance, terms = self.baseline(left)
        on_table = dict(table)
        while touched:
            bit = touched & -touched
            touched ^= bit
            s = bit.bit_length() - 1
            held = max(top(mine[s]), on_table.get(s, 0))
            mean, spread = suit_terms(held, top(theirs[s]), masks[s], left)
            margin += mean - terms[s][0]
            variance += spread - terms[s][1]
        return chance(margin, spread_squared(variance, fools, self.pos.death, left))

    # -- the turn -------------------------------------------------------------------------------

    def value(
        self,
        table: Table,
        theirs: Stacks,
        masks: tuple[int, ...],
        fools: int,
        left: int,
        touched: int,
        stolen: int,
        depth: int,
    ) -> float:
        """The best I can get from here: bank, or draw on (`depth` more draws looked at)."""
        if left == 0:  # the last card came safely: the game ends, the table banked
            return final_share(banked(self.pos.mine, table), theirs)
        key = (frozenset(table), stolen, fools, depth)
        found = self.memo.get(key)
        if found is not None:
            return found
        best = -1.0
        if table:
            best = self.ended(table, theirs, masks, fools, left, touched)
        if len(table) < SUITS and (depth > 0 or not table):
            best = max(
                best, self.draw(table, theirs, masks, fools, left, touched, stolen, depth - 1)
            )
        self.memo[key] = best
        return best

    def draw(
        self,
        table: Table,
        theirs: Stacks,
        masks: tuple[int, ...],
        fools: int,
        left: int,
        touched: int,
        stolen: int,
        depth: int,
    ) -> float:
        """The expected value of drawing one card now.

        The turns that end on this card (a bust, Death, or a bank right after it when the search
        looks no further) share most of their suits' terms, so those are summed once here:
        `lost` for a table discarded, `kept` for a table banked (each a margin and a variance).
        """
        mine = self.pos.mine
        death = self.pos.death
        after = left - 1
        on_table = bits_of(table)
        depth = max(depth, 0)
        lost_terms: dict[int, tuple[float, float]] = {}
        lost = kept = lost_var = kept_var = 0.0
        base: list[tuple[float, float]] = []
        if after:
            lost, lost_var, base = self.baseline(after)
            kept, kept_var = lost, lost_var
            tops = dict(table)
            bits = touched
            while bits:
                bit = bits & -bits
                bits ^= bit
                s = bit.bit_length() - 1
                held, other = top(mine[s]), top(theirs[s])
                term = suit_terms(held, other, masks[s], after)
                lost_terms[s] = term
                lost += term[0] - base[s][0]
                lost_var += term[1] - base[s][1]
                grown = suit_terms(max(held, tops.get(s, 0)), other, masks[s], after)
                kept += grown[0] - base[s][0]
                kept_var += grown[1] - base[s][1]
        total = 0.0
        for suit in range(SUITS):
            mask = masks[suit]
            bits = mask
            if on_table >> suit & 1:  # every card of this suit busts the table
                if not after:
                    total += mask.bit_count() * final_share(mine, theirs)
                    continue
                others = lost - lost_terms[suit][0]
                others_var = lost_var - lost_terms[suit][1]
                held, other = top(mine[suit]), top(theirs[suit])
                while bits:
                    bit = bits & -bits
                    bits ^= bit
                    mean, spread = suit_terms(held, other, mask ^ bit, after)
                    spread2 = spread_squared(others_var + spread, fools, death, after)
                    total += chance(others + mean, spread2)
                continue
            while bits:
                bit = bits & -bits
                bits ^= bit
                value = LOW + bit.bit_length() - 1
                if depth == 0 and after:  # the search looks no further: bank after this card
                    held = max(top(mine[suit]), value)
                    mean, spread = suit_terms(held, top(theirs[suit]), mask ^ bit, after)
                    spread2 = spread_squared(kept_var - base[suit][1] + spread, fools, death, after)
                    total += chance(kept - base[suit][0] + mean, spread2)
                else:
                    rest = (*masks[:suit], mask ^ bit, *masks[suit + 1 :])
                    total += self.value(
                        (*table, (suit, value)),
                        theirs,
                        rest,
                        fools,
                        after,
                        touched | 1 << suit,
                        stolen,
                        depth,
                    )
        if death:  # no Death in the deck once it has come: the turn would be over
            if after:
                total += chance(lost, spread_squared(lost_var, fools, 0, after))
            else:
                total += final_share(mine, theirs)
        if fools:
            options = self.steals(
                table, theirs, masks, fools - 1, after, touched, stolen, depth, STEALS_SEARCHED
            )
            if options:
                total += fools * max(options.values())
            elif not after:
                total += fools * final_share(banked(mine, table), theirs)
            else:
                total += fools * self.value(
                    table, theirs, masks, fools - 1, after, touched, stolen, depth
                )
        return total / left

    def steals(
        self,
        table: Table,
        theirs: Stacks,
        masks: tuple[int, ...],
        fools: int,
        left: int,
        touched: int,
        stolen: int,
        depth: int,
        searched: int = SUITS,
    ) -> dict[int, float]:
        """The value of each steal open to me now (the Fool already gone from the deck).

        Every steal is first valued as if the turn ended with it; only the `searched` best of
        those are then searched further (the others keep their first value).
        """
        on_table = bits_of(table)
        options: dict[int, float] = {}
        grown: dict[int, Table] = {}
        for suit in range(SUITS):
            if not theirs[suit]:
                continue
            touch = touched | 1 << suit
            if on_table >> suit & 1:  # the stolen card busts the table
                options[suit] = self.ended((), robbed(theirs, suit), masks, fools, left, touch)
            else:
                grown[suit] = (*table, (suit, theirs[suit][0]))
                if left:
                    options[suit] = self.ended(
                        grown[suit], robbed(theirs, suit), masks, fools, left, touch
                    )
                else:
                    options[suit] = final_share(
                        banked(self.pos.mine, grown[suit]), robbed(theirs, suit)
                    )
        if depth > 0 and left:
            ranked = sorted(grown, key=lambda s: -options[s])[:searched]
            for suit in ranked:
                options[suit] = self.value(
                    grown[suit],
                    robbed(theirs, suit),
                    masks,
                    fools,
                    left,
                    touched | 1 << suit,
                    stolen | 1 << suit,
                    depth,
                )
        return options

    # -- the decisions --------------------------------------------------------------------------

    def root(self) -> tuple[Table, Stacks, tuple[int, ...], int, int, int]:
        pos = self.pos
        return pos.table, pos.theirs, pos.masks, pos.fools, pos.left, bits_of(pos.table)

    def bank_or_draw(self) -> tuple[float, float]:
        """The value of banking now and of drawing one more card."""
        table, theirs, masks, fools, left, touched = self.root()
        stay = self.ended(table, theirs, masks, fools, left, touched)
        go = self.draw(table, theirs, masks, fools, left, touched, 0, self.depth - 1)
        return stay, go

    def steal_options(self) -> dict[int, float]:
        """The value of each steal, a Fool having just come."""
        table, theirs, masks, fools, left, touched = self.root()
        return self.steals(table, theirs, masks, fools, left, touched, 0, self.depth)


class StrongBot:
    """Our strongest player (the module's docstring says how it thinks).

    It keeps the endgame positions it has solved (a cache: the same view always gets the same
    answer, only sooner).
    """

    def __init__(
        self,
        seed: int = 0,
        depth: int = DEPTH,
        endgame: int = ENDGAME,
        budget: int = BUDGET,
        best_play: bool = False,
    ) -> None:
        self.seed = seed  # nothing in it is random; kept for the Level interface
        self.depth = depth
        self.endgame = endgame
        self.budget = budget
        self.best_play = best_play
        self.solver = self.fresh_solver()

    def choose(self, view: View, seat: int) -> Action:
        return self.weigh(view, seat, every=False).choice

    def weigh(self, view: View, seat: int, every: bool = True) -> Weighing:
        """My choice for `seat` (to move) and the chance of winning of each option open to it.

        The values are those the choice was made on: exact when the endgame was solved, else
        the turn search's. Where the choice needs no search (the first draw of a turn, a full
        table, a sure win by banking) the options are valued only if `every` asks for it; a
        sure win by banking is worth 1.
        """
        pos = Position.of(view, seat)
        if pos.left <= self.endgame:
            found = self.solve(pos, view.steal_pending)
            if found is not None:
                return weighing(found, bits_of(pos.table), view.steal_pending, exact=True)
        search = TurnSearch(pos, self.depth)
        if view.steal_pending:
            return weighing(search.steal_options(), bits_of(pos.table), True, exact=False)
        if not pos.table:
            values = {DRAW: search.bank_or_draw()[1]} if every else {}
            return Weighing(Draw(), options(values), exact=False)
        if len(pos.table) >= SUITS:
            values = {BANK: search.bank_or_draw()[0]} if every else {}
            return Weighing(EndTurn(), options(values), exact=False)
        if sure_win_banking(pos):
            values = {BANK: 1.0, DRAW: search.bank_or_draw()[1]} if every else {}
            return Weighing(EndTurn(), options(values), exact=False)
        stay, go = search.bank_or_draw()
        return weighing({BANK: stay, DRAW: go}, 0, False, exact=False)

    def fresh_solver(self) -> Endgame:
        """The endgame solver: against an opponent at its best, or against classic-8-50's rules."""
        return Endgame() if self.best_play else AgainstHard()

    def solve(self, pos: Position, steal_pending: bool) -> dict[int, float] | None:
        """The exact value of each option (BANK, DRAW or a suit to steal), if the endgame can
        be solved within the budget."""
        if self.solver.nodes > MEMO_LIMIT:
            self.solver = self.fresh_solver()
        table = dict(pos.table)
        suits = [(pos.mine[s], pos.theirs[s], pos.masks[s], table.get(s, 0)) for s in range(SUITS)]
        try:
            return self.solver.options(
                suits, pos.fools, pos.death, pos.left, steal_pending, self.budget
            )
        except OutOfBudget:
            return None


@dataclass(frozen=True, slots=True)
class Weighing:
    """What the expert makes of a decision: its choice and each option's chance of winning
    (a draw counting half) for the player to move. `exact`: solved to the end of the game."""

    choice: Action
    values: dict[Action, float]
    exact: bool


def options(values: dict[int, float]) -> dict[Action, float]:
    """Option values keyed by action instead of BANK, DRAW or a suit number."""
    return {action_of(key): v for key, v in values.items()}


def action_of(key: int) -> Action:
    """The action an option key stands for."""
    if key == BANK:
        return EndTurn()
    return Draw() if key == DRAW else Steal(Suit(key))


def weighing(values: dict[int, float], on_table: int, steal: bool, exact: bool) -> Weighing:
    """The choice from option values: the best steal (best_steal), else draw only if it is
    worth more than banking."""
    if steal:
        choice: Action = Steal(Suit(best_steal(values, on_table)))
    else:
        choice = Draw() if values.get(DRAW, -1.0) > values.get(BANK, -1.0) else EndTurn()
    return Weighing(choice, options(values), exact)


def sure_win_banking(pos: Position) -> bool:
    """Whether banking the table now wins whatever comes: the opponent, to move, could not even
    draw level with the best unseen card of every suit and every Fool left stealing my most."""
    mine = banked(pos.mine, pos.table)
    suits = [(pos.theirs[s], mine[s], pos.masks[s], 0) for s in range(SUITS)]
    return decided(settle(0, suits, pos.fools, pos.death, pos.left)) == 0.0


def best_steal(options: dict[int, float], on_table: int) -> int:
    """The best suit to steal; one on my table (a sure bust) only when nothing else is open."""
    safe = {s: v for s, v in options.items() if not on_table >> s & 1} or options
    return max(safe, key=lambda s: (safe[s], -s))


register(Level("expert", "Expert", lambda seed: StrongBot(seed)))
