"""Our strongest computer player: exact card counting, the turn searched card by card, and the
endgame solved.

How it decides (it sees only the public view, never the deck order):

- It counts every card: the unseen multiset is known exactly (the deck minus banks, table and
  discard), so the chance of each next card is its count over the cards left.
- Its turn is searched card by card (TurnSearch): bank now, or draw and average over every card
  that could come (a bust, Death, a Fool followed by its best steal, a safe card after which it
  decides again), looking DEPTH draws beyond the one being decided. When its turn would end,
  a value model (model.py) judges the position: the expected final top of each suit for both
  players given the cards still unseen, turned into a chance of winning by the final margin's
  spread with that many cards left, so it plays for the win, not for points (bolder behind,
  safer ahead, more so as the deck runs down).
- A steal is judged the same way: what the stolen card adds to its table (and whether it busts
  it), and what losing it does to the opponent's outlook.
- With ENDGAME cards left or fewer it solves the rest of the game exactly (endgame.py): every
  order of the unseen cards, both players at their best. A node budget keeps each decision
  quick; past it the decision falls back on the turn search, and the solved positions are kept
  for the next decisions, which usually finish.

It is deterministic: there is nothing random in it (ties go to the lowest suit).

Tried and not kept: re-judging bank-or-draw (root only, up to 24 cards left) by searching the
opponent's next turn (every draw, their stops by the same value model, one draw beyond their
first) instead of the model at the leaves: on the same 2,000 deals against classic-8-50 it changed
79 games (43 better, 36 worse), 57.3% -> 57.6% of decisive games, with the p99 decision time up
from ~100 to 110-134 ms (busy machine); re-judging every such call, not only those within 0.03,
changed the very same games, so the searched opponent turn almost always agrees with the model.
"""

from __future__ import annotations

from collections.abc import Callable
from math import exp

from ..actions import Action, Draw, EndTurn, Steal
from ..cards import Suit
from ..view import View
from . import Level, register
from .endgame import BANK, DRAW, Endgame, OutOfBudget
from .model import (
    LOW,
    SPREAD,
    SUITS,
    Position,
    Stacks,
    Table,
    Weights,
    banked,
    bits_of,
    corrected_chance,
    final_share,
    robbed,
    suit_exposure,
    suit_outlook,
    top,
    win_chance,
)

DEPTH = 2  # draws looked at beyond the one being decided
ENDGAME = 7  # with this many cards left or fewer, try to solve the rest of the game exactly
BUDGET = 3000  # endgame positions one decision may solve before falling back on the search
STEALS_SEARCHED = 3  # inside the search, how many of the likeliest best steals are searched on
MEMO_LIMIT = 50_000  # endgame positions remembered between decisions (a few MB)
# Steal exposures (TurnSearch.split_exposures): the changed suits' best against me and against
# them, then for each side the suit with the best exposure among the others, it, and the second.
Split = tuple[int, int, int, int, int, int, int, int]
NONE = (0, 0)
NO_SPLIT: Split = (0, 0, -1, 0, 0, -1, 0, 0)


class TurnSearch:
    """The rest of my turn, card by card, from one position: bank now, or draw on.

    Inside a turn the table and the suits stolen so far determine everything else (the cards
    drawn are the table's other cards), so those, the Fools left and the depth key the memo.
    Leaves are valued incrementally: only the suits touched this turn differ from the start.
    """

    def __init__(
        self, pos: Position, depth: int, correction: tuple[Weights, ...] | None = None
    ) -> None:
        self.pos = pos
        self.depth = depth
        self.correction = correction
        mine, theirs = pos.mine, pos.theirs
        # Each suit's steal exposure for the starting banks (mine, theirs), and the suits by it.
        self.exposed = [
            (suit_exposure(mine[s], 0, top(theirs[s])), suit_exposure(theirs[s], 0, top(mine[s])))
            for s in range(SUITS)
        ]
        self.exposed_order = (
            sorted(range(SUITS), key=lambda s: -self.exposed[s][0]),
            sorted(range(SUITS), key=lambda s: -self.exposed[s][1]),
        )
        self.memo: dict[tuple[frozenset[tuple[int, int]], int, int, int], float] = {}
        self.baselines: dict[int, tuple[float, list[float]]] = {}

    # -- the value of a finished turn -----------------------------------------------------------

    def baseline(self, left: int) -> tuple[float, list[float]]:
        """The value model's per-suit terms for the starting banks and unseen cards."""
        found = self.baselines.get(left)
        if found is None:
            pos = self.pos
            terms = [
                suit_outlook(top(pos.mine[s]), top(pos.theirs[s]), pos.masks[s], left)
                for s in range(SUITS)
            ]
            found = (sum(terms), terms)
            self.baselines[left] = found
        return found

    def split_exposures(self, tops: dict[int, int], theirs: Stacks, changed: int) -> Split:
        """The steal exposures of my bank (with `tops`, suit -> table value, banked) and of
        theirs, split into the `changed` suits' best and the best two of the others (which are
        as at the start), so that one more changed suit is quick to add (card_exposures)."""
        mine = self.pos.mine
        exposed = self.exposed
        order_mine, order_theirs = self.exposed_order
        rest: list[int] = []
        for order, side in ((order_mine, 0), (order_theirs, 1)):
            found = [-1, 0, 0]
            for s in order:
                if not changed >> s & 1:
                    if found[0] < 0:
                        found[0], found[1] = s, exposed[s][side]
                    else:
                        found[2] = exposed[s][side]
                        break
            rest += found
        em = et = 0
        while changed:
            bit = changed & -changed
            changed ^= bit
            s = bit.bit_length() - 1
            held = mine[s]
            extra = tops.get(s, 0)
            em = max(em, suit_exposure(held, extra, top(theirs[s])))
            et = max(et, suit_exposure(theirs[s], 0, max(top(held), extra)))
        return (em, et, rest[0], rest[1], rest[2], rest[3], rest[4], rest[5])

    def exposures(self, tops: dict[int, int], theirs: Stacks, changed: int) -> tuple[int, int]:
        """The best steal against my bank (`tops` banked) and against theirs."""
        em, et, _, m1, _, _, t1, _ = self.split_exposures(tops, theirs, changed)
        return max(em, m1), max(et, t1)

    def card_chance(
        self, split: Split, theirs: Stacks, suit: int, left: int, fools: int, death: int
    ) -> Callable[[float, int], float]:
        """My chance by margin and card value, banking one more card of a suit outside the
        split's changed ones (inlined: these are the search's most numerous leaves)."""
        em, et, m_suit, m1, m2, t_suit, t1, t2 = split
        em = max(em, m2 if suit == m_suit else m1)
        et = max(et, t2 if suit == t_suit else t1)
        held, other = self.pos.mine[suit], theirs[suit]
        h0, h1 = (held[0] if held else 0), (held[1] if len(held) > 1 else 0)
        o0, o1 = (other[0] if other else 0), (other[1] if len(other) > 1 else 0)
        assert self.correction is not None
        a, w_mine, w_theirs, w_death, bias = self.correction[left]
        spread = SPREAD[left]
        a /= spread
        w_mine *= fools / spread
        w_theirs *= fools / spread
        bias += w_death * death

        def chance(margin: float, value: int) -> float:
            first, second = (value, h0) if value > h0 else (h0, max(h1, value))
            mine_x = max(em, first - second + max(0, first - o0))
            theirs_x = max(et, o0 - o1 + max(0, o0 - first)) if o0 else et
            x = a * margin + w_mine * mine_x + w_theirs * theirs_x + bias
            return 0.0 if x < -40.0 else 1.0 / (1.0 + exp(-x))

        return chance

    def fixed_chance(
        self, left: int, fools: int, death: int, exposed: tuple[int, int]
    ) -> Callable[[float], float]:
        """My chance by margin alone, the steal exposures fixed (a bust's leaves)."""
        assert self.correction is not None
        a, w_mine, w_theirs, w_death, bias = self.correction[left]
        spread = SPREAD[left]
        a /= spread
        bias += w_death * death + fools * (w_mine * exposed[0] + w_theirs * exposed[1]) / spread

        def chance(margin: float) -> float:
            x = a * margin + bias
            return 0.0 if x < -40.0 else 1.0 / (1.0 + exp(-x))

        return chance

    def chance(
        self, margin: float, left: int, fools: int, death: int, exposed: tuple[int, int]
    ) -> float:
        """My chance at the end of my turn with this model margin (corrected, if fitted)."""
        if self.correction is None:
            return win_chance(margin, left)
        return corrected_chance(self.correction[left], margin, left, fools, death, *exposed)

    def ended(
        self,
        table: Table,
        theirs: Stacks,
        masks: tuple[int, ...],
        left: int,
        touched: int,
        fools: int,
    ) -> float:
        """My chance once the turn ends with `table` banked (empty after a bust or Death)."""
        mine = self.pos.mine
        if left == 0:
            return final_share(banked(mine, table), theirs)
        total, terms = self.baseline(left)
        on_table = dict(table)
        margin = total
        touched_all = touched
        while touched:
            bit = touched & -touched
            touched ^= bit
            s = bit.bit_length() - 1
            held = max(top(mine[s]), on_table.get(s, 0))
            margin += suit_outlook(held, top(theirs[s]), masks[s], left) - terms[s]
        if self.correction is None:
            return win_chance(margin, left)
        exposed = self.exposures(on_table, theirs, touched_all) if fools else NONE
        return self.chance(margin, left, fools, self.pos.death, exposed)

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
            best = self.ended(table, theirs, masks, left, touched, fools)
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
        looks no further) share most of their suits' terms, so those are summed once here.
        """
        mine = self.pos.mine
        death = self.pos.death
        after = left - 1
        on_table = bits_of(table)
        depth = max(depth, 0)
        lost_terms: dict[int, float] = {}
        lost = kept = 0.0
        base: list[float] = []
        tops = dict(table)
        if after:
            lost, base = self.baseline(after)
            kept = lost
            bits = touched
            while bits:
                bit = bits & -bits
                bits ^= bit
                s = bit.bit_length() - 1
                held, other = top(mine[s]), top(theirs[s])
                term = suit_outlook(held, other, masks[s], after)
                lost_terms[s] = term
                lost += term - base[s]
                kept += suit_outlook(max(held, tops.get(s, 0)), other, masks[s], after) - base[s]
        corrected = self.correction is not None and fools > 0 and after > 0
        lost_exposed, split, lost_chance = NONE, NO_SPLIT, None
        if corrected:  # the steal exposures after a bust or Death, and those kept to bank
            lost_exposed = self.exposures({}, theirs, touched)
            split = self.split_exposures(tops, theirs, touched)
            lost_chance = self.fixed_chance(after, fools, death, lost_exposed)
        total = 0.0
        for suit in range(SUITS):
            mask = masks[suit]
            bits = mask
            if on_table >> suit & 1:  # every card of this suit busts the table
                if not after:
                    total += mask.bit_count() * final_share(mine, theirs)
                    continue
                others = lost - lost_terms[suit]
                held, other = top(mine[suit]), top(theirs[suit])
                while bits:
                    bit = bits & -bits
                    bits ^= bit
                    term = suit_outlook(held, other, mask ^ bit, after)
                    if lost_chance is None:
                        total += win_chance(others + term, after)
                    else:
                        total += lost_chance(others + term)
                continue
            card = None
            if corrected and depth == 0:
                card = self.card_chance(split, theirs, suit, after, fools, death)
            while bits:
                bit = bits & -bits
                bits ^= bit
                value = LOW + bit.bit_length() - 1
                if depth == 0 and after:  # the search looks no further: bank after this card
                    held = max(top(mine[suit]), value)
                    term = suit_outlook(held, top(theirs[suit]), mask ^ bit, after)
                    margin = kept - base[suit] + term
                    if card is None:
                        total += win_chance(margin, after)
                    else:
                        total += card(margin, value)
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
        if self.pos.death:  # no Death in the deck once it has come: the turn would be over
            total += (
                self.chance(lost, after, fools, 0, lost_exposed)
                if after
                else final_share(mine, theirs)
            )
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
                options[suit] = self.ended((), robbed(theirs, suit), masks, left, touch, fools)
            else:
                grown[suit] = (*table, (suit, theirs[suit][0]))
                if left:
                    options[suit] = self.ended(
                        grown[suit], robbed(theirs, suit), masks, left, touch, fools
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
        stay = self.ended(table, theirs, masks, left, touched, fools)
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
        correction: tuple[Weights, ...] | None = None,
    ) -> None:
        self.seed = seed  # nothing in it is random; kept for the Level interface
        self.depth = depth
        self.correction = correction
        self.endgame = endgame
        self.budget = budget
        self.solver = Endgame()

    def choose(self, view: View, seat: int) -> Action:
        pos = Position.of(view, seat)
        if pos.left <= self.endgame:
            exact = self.solve(pos, view.steal_pending)
            if exact is not None:
                return exact
        if view.steal_pending:
            options = TurnSearch(pos, self.depth, self.correction).steal_options()
            return Steal(Suit(best_steal(options, bits_of(pos.table))))
        if not pos.table:
            return Draw()
        if len(pos.table) >= SUITS:
            return EndTurn()
        stay, go = TurnSearch(pos, self.depth, self.correction).bank_or_draw()
        return Draw() if go > stay else EndTurn()

    def solve(self, pos: Position, steal_pending: bool) -> Action | None:
        """The exact best action, if the endgame can be solved within the budget."""
        if self.solver.nodes > MEMO_LIMIT:
            self.solver = Endgame()
        table = dict(pos.table)
        suits = [(pos.mine[s], pos.theirs[s], pos.masks[s], table.get(s, 0)) for s in range(SUITS)]
        try:
            found = self.solver.options(
                suits, pos.fools, pos.death, pos.left, steal_pending, self.budget
            )
        except OutOfBudget:
            return None
        if steal_pending:
            return Steal(Suit(best_steal(found, bits_of(pos.table))))
        return Draw() if found.get(DRAW, -1.0) > found.get(BANK, -1.0) else EndTurn()


def best_steal(options: dict[int, float], on_table: int) -> int:
    """The best suit to steal; one on my table (a sure bust) only when nothing else is open."""
    safe = {s: v for s, v in options.items() if not on_table >> s & 1} or options
    return max(safe, key=lambda s: (safe[s], -s))


register(Level("expert", "Expert", lambda seed: StrongBot(seed)))
