"""The Somnium deck: ten suits valued 3 to 7, three Fools and Death."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum, IntEnum


class Suit(IntEnum):
    """The ten suits, in the original game's order."""

    ANGELS = 0
    SUNS = 1
    WANDS = 2
    CUPS = 3
    TOWERS = 4
    SWORDS = 5
    DRAGONS = 6
    PENTACLES = 7
    MOONS = 8
    DEMONS = 9

    @property
    def label(self) -> str:
        """The suit's display name, e.g. "Angels"."""
        return _SUIT_LABELS[self]

    @property
    def code(self) -> str:
        """The suit's wire name, e.g. "angels"."""
        return _SUIT_CODES[self]

    @classmethod
    def from_code(cls, code: str) -> Suit:
        try:
            return cls[code.upper()]
        except KeyError:
            raise ValueError(f"unknown suit {code!r}") from None


# worked out once: Enum's `name` is a slow descriptor, and every view and event names suits
_SUIT_CODES = {suit: suit.name.lower() for suit in Suit}
_SUIT_LABELS = {suit: suit.name.capitalize() for suit in Suit}


class Kind(Enum):
    """What a card is: a numbered suit card or one of the two specials."""

    SUIT = "suit"
    FOOL = "fool"
    DEATH = "death"


VALUES = (3, 4, 5, 6, 7)
FOOLS_IN_DECK = 3
DECK_SIZE = len(Suit) * len(VALUES) + FOOLS_IN_DECK + 1
MAX_SCORE = len(Suit) * max(VALUES)


@dataclass(frozen=True, slots=True)
class Card:
    """One card. Suit cards carry a suit and a value; Fool and Death carry neither."""

    kind: Kind
    suit: Suit | None = None
    value: int = 0
    # The card's wire name: "angels-3", "fool" or "death". Worked out once: every view and
    # event the server sends names cards by it.
    code: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        code = self.kind.value if self.suit is None else f"{self.suit.code}-{self.value}"
        object.__setattr__(self, "code", code)

    @property
    def label(self) -> str:
        """The card's display name: "Angels 3", "Fool" or "Death"."""
        if self.suit is None:
            return self.kind.value.capitalize()
        return f"{self.suit.label} {self.value}"

    def __str__(self) -> str:
        return self.label

    @classmethod
    def from_code(cls, code: str) -> Card:
        if code == "fool":
            return FOOL
        if code == "death":
            return DEATH
        suit, sep, value = code.rpartition("-")
        if not sep or not value.isdigit() or int(value) not in VALUES:
            raise ValueError(f"unknown card {code!r}")
        return suit_card(Suit.from_code(suit), int(value))

    def __lt__(self, other: object) -> bool:  # order by suit, then value; specials last
        if not isinstance(other, Card):
            return NotImplemented
        return _sort_key(self) < _sort_key(other)


def _sort_key(card: Card) -> tuple[int, int]:
    if card.suit is None:
        return (len(Suit) + (card.kind is Kind.DEATH), 0)
    return (int(card.suit), card.value)


def suit_card(suit: Suit, value: int) -> Card:
    """The suit card of that suit and value."""
    return _SUIT_CARDS[int(suit)][value - VALUES[0]]


_SUIT_CARDS = tuple(tuple(Card(Kind.SUIT, s, v) for v in VALUES) for s in Suit)
FOOL = Card(Kind.FOOL)
DEATH = Card(Kind.DEATH)


def full_deck() -> list[Card]:
    """The 54 cards in a fixed order: every suit card, then the Fools, then Death."""
    cards = [card for suit in _SUIT_CARDS for card in suit]
    return cards + [FOOL] * FOOLS_IN_DECK + [DEATH]


def score(cards: Iterable[Card]) -> int:
    """The sum over the ten suits of the highest card held in each."""
    best = [0] * len(Suit)
    for card in cards:
        if card.suit is not None and card.value > best[card.suit]:
            best[card.suit] = card.value
    return sum(best)


def by_suit(cards: Iterable[Card]) -> dict[Suit, list[Card]]:
    """Suit cards grouped by suit, highest first; suits with no card are left out."""
    groups: dict[Suit, list[Card]] = {}
    for card in cards:
        if card.suit is not None:
            groups.setdefault(card.suit, []).append(card)
    return {suit: sorted(groups[suit], key=lambda c: -c.value) for suit in sorted(groups)}
