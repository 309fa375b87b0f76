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
FAR_AHEAD = 15  # endgame: a lead above this is "far ahead"
FAR_BEHIND = -13  # endgame: a lead below this is "far behind"


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
    """The Fall From Heaven 2 Somnium AI, with the original's rules (docs/rules.md, rules 15-18).

    intelligence (0-8) decides which cards it remembers when counting its chance (the 7s from 3 on,
    every card at 7 and up), whether it counts its steals (3), protects lone cards from Fools (2),
    values what a steal costs the opponent (4), and plays the endgame variant (5).
    aggression (0-100) moves its bank-or-draw thresholds: the higher, the longer it draws.

    Every rule is the original's (AI_CalculateChance, AI_Choose_Bank and AI_Choose_Joker_Steal of
    the CvSomnium class in Fall From Heaven 2's Python), as docs/rules.md states it: the endgame
    variant (intelligence >= 5, fewer than 13 cards left) in endgame_ladder(), and the steal's
    intelligence-4 term (the stolen card minus the opponent's next one) for every suit, on its
    table too, so that it sometimes busts its own table to strip a high card.
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
        chance, extra = self.chance(view), self.extra(view, seat)
        if self.intelligence >= ENDGAME_INTELLIGENCE and view.deck_count < ENDGAME_CARDS:
            mine, theirs = view.banks[seat], view.banks[1 - seat]
            lead = score((*mine, *view.table)) - score(theirs)
            return self.endgame_ladder(chance, extra, self.aggression, lead, view.deck_count)
        return self.ladder(chance, extra, self.aggression)

    @staticmethod
    def first_rungs(chance: int, extra: int) -> bool | None:
        """The rungs both ladders start with: too risky, nothing to lose, too safe to stop."""
        if chance <= 15:
            return True
        if extra <= 1:
            return False
        if chance >= 95:
            return False
        return None

    @staticmethod
    def ladder(chance: int, extra: int, aggression: int) -> bool:
        """The original thresholds: True to bank, False to draw."""
        a = aggression
        first = ClassicBot.first_rungs(chance, extra)
        if first is not None:
            return first
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
    def endgame_ladder(chance: int, extra: int, aggression: int, lead: int, left: int) -> bool:
        """The original's thresholds with fewer than 13 cards left: `lead` is its score with the
        table banked minus the opponent's, `left` the cards left. Far ahead it banks 7 points
        or a risky draw; far behind it banks 10 points, 7 unless the draw is fairly safe, or
        anything on a risky draw while more than 5 cards remain; in between it banks 10 points
        and otherwise plays the usual ladder's rungs with the cards left added to its bar."""
        a = aggression
        first = ClassicBot.first_rungs(chance, extra)
        if first is not None:
            return first
        if lead > FAR_AHEAD:
            return extra >= 7 or chance <= 30
        if lead < FAR_BEHIND:
            if extra >= 10:
                return True
            if extra >= 7:
                return chance - left <= (150 - a) * 2 // 3
            return chance <= 35 and left > 5
        if extra >= 10:
            return True
        if extra >= 7 and chance - left <= (150 - a) * 2 // 3:
            return True
        if 3 <= extra < 7 and chance - left <= (130 - a) * 2 // 3:
            return True
        return chance < 79 + left - a

    def steal_values(self, view: View, seat: int) -> dict[Suit, int]:
        """What stealing each suit is worth: the table's gain and what the card adds to its own
        top, but nothing for a suit on the table (it would bust); from intelligence 4, plus what
        the steal takes off the opponent's top, on the table or not."""
        mine, theirs = view.banks[seat], view.banks[1 - seat]
        gain = score((*mine, *view.table)) - score(mine)
        my_tops, their_tops = tops(mine), tops(theirs)
        on_table = view.table_suits
        values: dict[Suit, int] = {}
        for suit in view.stealable:
            stolen, *rest = their_tops[suit]
            value = 0 if suit in on_table else gain + max(0, stolen - my_tops.get(suit, [0])[0])
            if self.intelligence >= 4:
                value += stolen - (rest[0] if rest else 0)
            values[suit] = value
        return values

    def best_steals(self, view: View, seat: int) -> list[Suit]:
        """The suits it picks among at random: the best valued, those not on its table first."""
        values = self.steal_values(view, seat)
        best = max(values.values())
        ties = sorted(suit for suit, value in values.items() if value == best)
        on_table = view.table_suits
        return [suit for suit in ties if suit not in on_table] or ties

    def steal_choice(self, view: View, seat: int) -> Suit:
        """The best steal, at random among equals (preferring those that keep its table)."""
        return self._rng(view).choice(self.best_steals(view, seat))

    def _rng(self, view: View) -> random.Random:
        """A generator seeded from the bot's seed and the position: same seed, same choices."""
        position = ",".join(card.code for card in (*view.table, *view.banks[0], *view.banks[1]))
        return random.Random(f"{self.seed}:{view.deck_count}:{position}")


# level key -> (intelligence, aggression). In 10,000-game matches hard beats normal 53.9% and
# easy 63.5% of decisive games (docs/bots.md): Somnium is a game of luck as much as skill.
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
