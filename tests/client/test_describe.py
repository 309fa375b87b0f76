"""The log's sentences: one per event, naming "you" for the seat at this table."""

from __future__ import annotations

import pytest

from somnium_desktop.client.describe import Speaker, cards_phrase, result_title
from somnium_desktop.game import DEATH, FOOL, Suit
from somnium_desktop.game.events import (
    Banked,
    Bust,
    CardDrawn,
    CardStolen,
    Conceded,
    DeathDrawn,
    Event,
    FoolWasted,
    GameEnded,
    StealRequired,
    TurnPassed,
)
from tests.game_helpers import c

NAMES = ("Ada", "Computer")


@pytest.mark.parametrize(
    ("event", "mine", "theirs"),
    [
        (CardDrawn(0, c(Suit.CUPS, 5)), "You drew Cups 5.", "Ada drew Cups 5."),
        (CardDrawn(0, FOOL), "You drew a Fool.", "Ada drew a Fool."),
        (CardDrawn(1, DEATH), "Computer drew Death.", "Computer drew Death."),
        (
            StealRequired(0, (Suit.ANGELS, Suit.MOONS)),
            "You must steal one of Computer's cards: Angels or Moons.",
            "Ada must steal one of Computer's cards: Angels or Moons.",
        ),
        (
            FoolWasted(1),
            "The Fool finds nothing to steal: you hold no cards.",
            "The Fool finds nothing to steal: Ada holds no cards.",
        ),
        (
            CardStolen(1, 0, c(Suit.SUNS, 7)),
            "Computer stole Suns 7 from you.",
            "Computer stole Suns 7 from Ada.",
        ),
        (
            Bust(0, Suit.WANDS, (c(Suit.WANDS, 3), c(Suit.CUPS, 4), c(Suit.WANDS, 6))),
            "Bust: two Wands on the table. 3 cards discarded.",
            "Bust: two Wands on the table. 3 cards discarded.",
        ),
        (DeathDrawn(0, (DEATH,)), "Death takes an empty table and leaves the game.",
         "Death takes an empty table and leaves the game."),
        (DeathDrawn(0, (c(Suit.CUPS, 4), DEATH)), "Death takes the table: 1 card discarded.",
         "Death takes the table: 1 card discarded."),
        (
            Banked(0, (c(Suit.CUPS, 4), c(Suit.MOONS, 7)), 21),
            "You banked Cups 4 and Moons 7. Score 21.",
            "Ada banked Cups 4 and Moons 7. Score 21.",
        ),
        (TurnPassed(0), "It is your turn.", "It is Ada's turn."),
        (Conceded(0), "You conceded.", "Ada conceded."),
        (GameEnded(0, (40, 31), "deck"), "Game over: you won, 40 to 31.",
         "Game over: Ada won, 40 to 31."),
        (GameEnded(1, (40, 31), "concede"), "Game over: Computer won by concession, 31 to 40.",
         "Game over: Computer won by concession, 31 to 40."),
        (GameEnded(None, (30, 30), "deck"), "Game over: a draw, 30 to 30.",
         "Game over: a draw, 30 to 30."),
    ],
)
def test_each_event_reads_as_a_sentence(event: Event, mine: str, theirs: str) -> None:
    assert Speaker(NAMES, 0).describe(event) == mine
    assert Speaker(NAMES, None).describe(event) == theirs


def test_phrases() -> None:
    assert cards_phrase([]) == ""
    assert cards_phrase([c(Suit.CUPS, 3)]) == "Cups 3"
    assert cards_phrase([c(Suit.CUPS, 3), FOOL, DEATH]) == "Cups 3, Fool and Death"
    assert result_title(0, 0, NAMES) == "You won!"
    assert result_title(1, 0, NAMES) == "Computer won"
    assert result_title(None, 0, NAMES) == "A draw"
    assert result_title(1, None, NAMES) == "Computer won"


def test_unknown_objects_are_refused() -> None:
    with pytest.raises(TypeError):
        Speaker(NAMES, 0).describe("not an event")  # type: ignore[arg-type]
