"""The original game's computer opponent, with its intelligence and aggression knobs."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable

from ..actions import Action, Draw, EndTurn, Steal
from ..cards import Card, Kind, Suit, score
from ..view import View
from . import Level, register

TABLE_CAP = len(Suit)
ENDGAME_CARDS = 13  # the endgame variant plays while fewer cards than this are left
ENDGAME_INTELLIGENCE = 5
LEAD_WEIGHT = 2  # endgame: aggression points taken off per point of lead (added when behind)
STEAL_SWING = 14  # endgame: the most one steal can swing the scores (a 7 lost and a 7 won)


def tops(bank: Iterable[Card]) -> dict[Suit, list[int]]:
    """A bank's values per suit, highest first (the top card counts, the next one is exposed)."""
    held: dict[Suit, list[int]] = {}
    for card in bank:
        if card.suit is not None:
            held.setdefault(card.suit, []).append(card.value)
    for values in held.values():
        values.sort(reverse=True)
    return held


class ClassicBot:
    """The Fall From Heaven 2 Somnium AI, as RULES.md describes it.

    intelligence (0-8) decides which cards it remembers when counting its chance (the 7s from 3 on,
    every card at 7 and up), whether it counts its steals (3), protects lone cards from Fools (2),
    values what a steal costs the opponent (4), and plays the endgame variant (5).
    aggression (0-100) moves its bank-or-draw thresholds: the higher, the longer it draws.

    The endgame variant (intelligence >= 5, fewer than 13 cards left) is ours: the original source
    was not available, and RULES.md only says it "also weighs the score lead". Here `lead` is the
    bot's score after banking now minus the opponent's. It banks at once when that lead is out of
    the opponent's reach (every unseen card that would raise the opponent's score, plus the
    largest swing each Fool left could make). Otherwise it plays the usual ladder with its
    aggression lowered by LEAD_WEIGHT per point of lead (raised when behind), clamped to 0..100:
    careful when ahead, bold when behind.
    """

    def __init__(self, intelligence: int = 5, aggression: int = 50, seed: int = 0) -> None:
        if not 0 <= intelligence <= 8:
            raise ValueError("intelligence runs from 0 to 8")
        if not 0 <= aggression <= 100:
            raise ValueError("aggression runs from 0 to 100")
        self.intelligence = intelligence
        self.aggression = aggression
        self.seed = seed

    def choose(self, view: View, seat: int) -> Action:
        if view.steal_pending:
            return Steal(self.steal_choice(view, seat))
        if not view.table:
            return Draw()
        return EndTurn() if self.wants_to_bank(view, seat) else Draw()

    # -- counting --------------------------------------------------------------------------------

    def remembers(self, card: Card) -> bool:
        """Whether this intelligence keeps track of cards of that value (7s first, 3s last)."""
        return self.intelligence >= 10 - card.value

    def chance(self, view: View) -> int:
        """How likely (in percent) the next draw is good, as the original counts it."""
        unseen = view.unseen()
        on_table = view.table_suits
        n = len(view.table)
        good = bad = 0
        for card, count in unseen.items():
            if card.kind is Kind.FOOL:
                good += 10 * count
            elif card.kind is Kind.DEATH:
                bad += 10 * count
            elif self.remembers(card):
                if card.suit in on_table:
                    bad += 10 * count
                else:
                    good += 10 * count
            else:
                bad += n * count
                good += (10 - n) * count
        if good + bad == 0:
            return 0
        return good * 100 // (good + bad)

    def extra(self, view: View, seat: int) -> int:
        """What banking now is worth to the original AI."""
        mine, theirs = view.banks[seat], view.banks[1 - seat]
        value = score((*mine, *view.table)) - score(mine)
        if self.intelligence >= 3:
            value += score((*theirs, *view.stolen)) - score(theirs)
        if self.aggression < 50 and self.intelligence >= 2 and view.fools_left:
            held = Counter(card.suit for card in mine)
            value += sum(1 for card in view.table if held[card.suit] == 1)
        return value

    # -- deciding --------------------------------------------------------------------------------

    def wants_to_bank(self, view: View, seat: int) -> bool:
        """The bank-or-draw ladder (with the endgame variant when it applies)."""
        if len(view.table) >= TABLE_CAP or view.deck_count == 0:
            return True
        aggression = self.aggression
        if self.intelligence >= ENDGAME_INTELLIGENCE and view.deck_count < ENDGAME_CARDS:
            mine, theirs = view.banks[seat], view.banks[1 - seat]
            lead = score((*mine, *view.table)) - score(theirs)
            if lead > self.opponent_reach(view, seat):
                return True
            aggression = min(100, max(0, aggression - LEAD_WEIGHT * lead))
        return self.ladder(self.chance(view), self.extra(view, seat), aggression)

    @staticmethod
    def ladder(chance: int, extra: int, aggression: int) -> bool:
        """The original thresholds: True to bank, False to draw."""
        a = aggression
        if chance <= 15:
            return True
        if extra <= 1:
            return False
        if chance >= 95:
            return False
        if extra >= 19:
            return True
        if extra >= 13:
            return chance <= (180 - a) * 2 // 3
        if extra >= 7:
            return chance <= (150 - a) * 2 // 3
        if extra >= 3:
            return chance <= (130 - a) * 2 // 3
        return chance < 83 - a

    @staticmethod
    def opponent_reach(view: View, seat: int) -> int:
        """The most the opponent could still gain on us: every useful unseen card, every Fool."""
        theirs = tops(view.banks[1 - seat])
        best: dict[Suit, int] = {}
        for card in view.unseen():
            if card.suit is not None:
                best[card.suit] = max(best.get(card.suit, 0), card.value)
        reach = sum(max(0, v - theirs.get(s, [0])[0]) for s, v in best.items())
        return reach + STEAL_SWING * view.fools_left

    def steal_values(self, view: View, seat: int) -> dict[Suit, int]:
        """What stealing each suit is worth: 0 for a suit on the table (it would bust)."""
        mine, theirs = view.banks[seat], view.banks[1 - seat]
        gain = score((*mine, *view.table)) - score(mine)
        my_tops, their_tops = tops(mine), tops(theirs)
        on_table = view.table_suits
        values: dict[Suit, int] = {}
        for suit in view.stealable:
            if suit in on_table:
                values[suit] = 0
                continue
            stolen, *rest = their_tops[suit]
            value = gain + max(0, stolen - my_tops.get(suit, [0])[0])
            if self.intelligence >= 4:
                value += stolen - (rest[0] if rest else 0)
            values[suit] = value
        return values

    def steal_choice(self, view: View, seat: int) -> Suit:
        """The best steal, at random among equals; a suit on the table only if nothing else."""
        values = self.steal_values(view, seat)
        on_table = view.table_suits
        safe = [s for s in values if s not in on_table] or list(values)
        best = max(values[s] for s in safe)
        ties = sorted(s for s in safe if values[s] == best)
        return self._rng(view).choice(ties)

    def _rng(self, view: View) -> random.Random:
        """A generator seeded from the bot's seed and the position: same seed, same choices."""
        position = ",".join(card.code for card in (*view.table, *view.banks[0], *view.banks[1]))
        return random.Random(f"{self.seed}:{view.deck_count}:{position}")


# level key -> (intelligence, aggression). In 1,000-game matches hard beats normal 54% and
# easy 63% of decisive games (benchmarks/bots.py): Somnium is a game of luck as much as skill.
LEVEL_SETTINGS = {
    "easy": (0, 20),  # remembers no card, banks early
    "normal": (3, 40),  # remembers the 7s
    "hard": (8, 50),  # remembers every card, plays the endgame variant
}


def _level(key: str, label: str) -> Level:
    intelligence, aggression = LEVEL_SETTINGS[key]
    return Level(key, label, lambda seed: ClassicBot(intelligence, aggression, seed))


register(_level("easy", "Easy"))
register(_level("normal", "Normal"))
register(_level("hard", "Hard"))
