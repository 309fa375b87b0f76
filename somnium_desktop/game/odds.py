"""The odds of the next card, counted from the public view: bust, Death, Fools left."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .cards import Kind
from .view import View


@dataclass(frozen=True, slots=True)
class Odds:
    """What the next card drawn onto the current table may do, as counts of the unseen cards.

    Every unseen card is equally likely to come next (the deck's order is known to no one), so
    each chance is a count over `unseen`. The same for every viewer: the unseen cards are.
    """

    unseen: int  # cards left in the deck
    busting: int  # unseen suit cards of a suit already on the table
    deaths: int  # 1 while Death is still in the deck, else 0
    fools: int  # Fools still in the deck

    @property
    def bust(self) -> Fraction:
        """The chance that the next card busts the table (a suit card of a suit on it)."""
        return Fraction(self.busting, self.unseen) if self.unseen else Fraction(0)

    @property
    def death(self) -> Fraction:
        """The chance that the next card is Death."""
        return Fraction(self.deaths, self.unseen) if self.unseen else Fraction(0)

    @property
    def fool(self) -> Fraction:
        """The chance that the next card is a Fool."""
        return Fraction(self.fools, self.unseen) if self.unseen else Fraction(0)

    @property
    def loss(self) -> Fraction:
        """The chance that the next card ends the turn with the table lost: a bust or Death."""
        return self.bust + self.death


def odds(view: View) -> Odds:
    """The odds of the next card for the table in `view`, from the unseen cards only."""
    on_table = view.table_suits
    busting = deaths = fools = 0
    for card, count in view.unseen().items():
        if card.kind is Kind.DEATH:
            deaths += count
        elif card.kind is Kind.FOOL:
            fools += count
        elif card.suit in on_table:
            busting += count
    return Odds(unseen=view.deck_count, busting=busting, deaths=deaths, fools=fools)


def percent(chance: Fraction | float) -> str:
    """A chance in words as a whole percentage, "58%"; "<1%" or ">99%" rather than a false 0 or
    100 when it is neither."""
    value = float(chance)
    whole = round(value * 100)
    if whole == 0 and value > 0:
        return "<1%"
    if whole == 100 and value < 1:
        return ">99%"
    return f"{whole}%"
