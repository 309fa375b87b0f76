"""Plain sentences for game events, for the log and for screen readers."""

from __future__ import annotations

from collections.abc import Sequence

from ..game.cards import Card, Kind, Suit
from ..game.events import (
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
    TimedOut,
    TurnPassed,
)


class Speaker:
    """Names seats in sentences: "You" for the seat at this table, the player's name otherwise."""

    def __init__(self, names: tuple[str, str], my_seat: int | None) -> None:
        self.names = names
        self.my_seat = my_seat

    def subject(self, seat: int) -> str:
        return "You" if seat == self.my_seat else self.names[seat]

    def object(self, seat: int) -> str:
        return "you" if seat == self.my_seat else self.names[seat]

    def possessive(self, seat: int) -> str:
        return "your" if seat == self.my_seat else f"{self.names[seat]}'s"

    def describe(self, event: Event, claimed_from: int | None = None) -> str:
        """One sentence saying what the event was. `claimed_from`: the seat that lost by
        leaving the table (its concession was the other player's claim, not its own)."""
        if isinstance(event, Conceded) and event.seat == claimed_from:
            return (f"{self.subject(1 - event.seat)} claimed the win: "
                    f"{self.object(event.seat)} left the table.")
        if claimed_from is not None and isinstance(event, GameEnded) \
                and event.reason == "concede" and event.winner == 1 - claimed_from:
            won, lost = event.scores[event.winner], event.scores[claimed_from]
            return (f"Game over: {self.object(event.winner)} won, {won} to {lost} "
                    f"({self.object(claimed_from)} left the table).")
        return _describe(event, self)


def cards_phrase(cards: Sequence[Card]) -> str:
    """ "Angels 3, Cups 5 and Death" """
    labels = [card.label for card in cards]
    if len(labels) <= 1:
        return "".join(labels)
    return ", ".join(labels[:-1]) + " and " + labels[-1]


def suits_phrase(suits: Sequence[Suit]) -> str:
    labels = [suit.label for suit in suits]
    if len(labels) <= 1:
        return "".join(labels)
    return ", ".join(labels[:-1]) + " or " + labels[-1]


def count_phrase(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _describe(event: Event, s: Speaker) -> str:
    if isinstance(event, CardDrawn):
        who = s.subject(event.seat)
        if event.card.kind is Kind.FOOL:
            return f"{who} drew a Fool."
        if event.card.kind is Kind.DEATH:
            return f"{who} drew Death."
        return f"{who} drew {event.card.label}."
    if isinstance(event, StealRequired):
        whose = s.possessive(1 - event.seat)
        suits = suits_phrase(event.suits)
        return f"{s.subject(event.seat)} must steal one of {whose} cards: {suits}."
    if isinstance(event, FoolWasted):
        victim = 1 - event.seat
        holds = "hold" if victim == s.my_seat else "holds"
        return f"The Fool finds nothing to steal: {s.object(victim)} {holds} no cards."
    if isinstance(event, CardStolen):
        return f"{s.subject(event.seat)} stole {event.card.label} from {s.object(event.from_seat)}."
    if isinstance(event, Bust):
        lost = count_phrase(len(event.cards), "card")
        return f"Bust: two {event.suit.label} on the table. {lost} discarded."
    if isinstance(event, DeathDrawn):
        table = len(event.cards) - 1
        if table == 0:
            return "Death takes an empty table and leaves the game."
        return f"Death takes the table: {count_phrase(table, 'card')} discarded."
    if isinstance(event, Banked):
        who = s.subject(event.seat)
        return f"{who} banked {cards_phrase(event.cards)}. Score {event.score}."
    if isinstance(event, TurnPassed):
        return f"It is {s.possessive(event.seat)} turn."
    if isinstance(event, Conceded):
        return f"{s.subject(event.seat)} conceded."
    if isinstance(event, TimedOut):
        return f"{s.subject(event.seat)} ran out of time."
    if isinstance(event, GameEnded):
        return _game_over(event, s)
    raise TypeError(f"not a game event: {event!r}")


def _game_over(event: GameEnded, s: Speaker) -> str:
    if event.winner is None:
        return f"Game over: a draw, {event.scores[0]} to {event.scores[1]}."
    won, lost = event.scores[event.winner], event.scores[1 - event.winner]
    how = {"concede": " by concession", "time": " on time"}.get(event.reason, "")
    return f"Game over: {s.object(event.winner)} won{how}, {won} to {lost}."


def result_title(winner: int | None, my_seat: int | None, names: tuple[str, str]) -> str:
    """The headline of a finished game, from this table's point of view."""
    if winner is None:
        return "A draw"
    if my_seat is None:
        return f"{names[winner]} won"
    return "You won!" if winner == my_seat else f"{names[winner]} won"
