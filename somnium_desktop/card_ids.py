"""Element ids of the card art in resources/cards/deck.svg, and where that file lives."""

from __future__ import annotations

from pathlib import Path

#: The ten suits, in the game's order.
SUITS: tuple[str, ...] = (
    "Angels",
    "Suns",
    "Wands",
    "Cups",
    "Towers",
    "Swords",
    "Dragons",
    "Pentacles",
    "Moons",
    "Demons",
)
#: The values of the suit cards.
VALUES: tuple[int, ...] = (3, 4, 5, 6, 7)

FOOL_ID = "fool"
DEATH_ID = "death"
BACK_ID = "back"

#: Size of every card element in SVG units (proportions 2.5 x 3.5).
CARD_WIDTH = 250
CARD_HEIGHT = 350
#: Side of every (square) emblem element in SVG units.
EMBLEM_SIZE = 120


def card_id(suit: str, value: int) -> str:
    """Element id of a suit card, e.g. ``card_id("Angels", 3) == "angels_3"``."""
    if suit not in SUITS:
        raise ValueError(f"unknown suit {suit!r}")
    if value not in VALUES:
        raise ValueError(f"no card of value {value!r}")
    return f"{suit.lower()}_{value}"


def emblem_id(suit: str) -> str:
    """Element id of a suit's emblem alone, e.g. ``emblem_id("Moons") == "emblem_moons"``."""
    if suit not in SUITS:
        raise ValueError(f"unknown suit {suit!r}")
    return f"emblem_{suit.lower()}"


#: The 50 suit cards, suit by suit, values ascending.
SUIT_CARD_IDS: tuple[str, ...] = tuple(card_id(s, v) for s in SUITS for v in VALUES)
#: Every distinct card face (the three Fools share one face).
FACE_IDS: tuple[str, ...] = (*SUIT_CARD_IDS, FOOL_ID, DEATH_ID)
#: Every card-sized element: the faces and the back.
CARD_IDS: tuple[str, ...] = (*FACE_IDS, BACK_ID)
#: The ten square emblem elements, in suit order.
EMBLEM_IDS: tuple[str, ...] = tuple(emblem_id(s) for s in SUITS)
#: Every element a renderer may ask for.
ALL_IDS: tuple[str, ...] = (*CARD_IDS, *EMBLEM_IDS)

#: Location of the deck and of the application icon, relative to the source tree.
DECK_SVG_RELPATH = "resources/cards/deck.svg"
ICON_SVG_RELPATH = "resources/icons/somnium.svg"


def source_root() -> Path:
    """The checkout this module was imported from (the folder holding ``resources/``)."""
    return Path(__file__).resolve().parent.parent


def deck_svg_path() -> Path:
    """Path of the shipped deck SVG in a source checkout."""
    return source_root() / DECK_SVG_RELPATH


def icon_svg_path() -> Path:
    """Path of the application icon SVG in a source checkout."""
    return source_root() / ICON_SVG_RELPATH
