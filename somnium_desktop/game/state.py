"""The rules: a game's state and the pure function that applies an action to it."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any

from . import errors
from .actions import Action, Concede, Draw, EndTurn, Steal, TimeOut
from .cards import Card, Kind, Suit, full_deck, score
from .events import (
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

TABLE_CAP = len(Suit)


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything about a game. `deck` (next card first) and `seed` must never leave the server."""

    deck: tuple[Card, ...]
    banks: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())
    table: tuple[Card, ...] = ()
    discard: tuple[Card, ...] = ()
    turn: int = 0
    first: int = 0
    steal_pending: bool = False
    stolen: tuple[Card, ...] = ()  # cards stolen during the current turn
    over: bool = False
    winner: int | None = None
    conceded_by: int | None = None
    seed: int | None = None
    timed_out: int | None = None  # the seat whose clock ran out

    @property
    def scores(self) -> tuple[int, int]:
        return (score(self.banks[0]), score(self.banks[1]))

    @property
    def deck_count(self) -> int:
        return len(self.deck)

    @property
    def fools_left(self) -> int:
        return self.specials_left()[0]

    @property
    def death_left(self) -> bool:
        return self.specials_left()[1]

    def specials_left(self) -> tuple[int, bool]:
        """(Fools left in the deck, whether Death is), in one look at the deck."""
        kinds = [card.kind for card in self.deck]
        return kinds.count(Kind.FOOL), Kind.DEATH in kinds  # Death: the one card of its kind

    @property
    def table_suits(self) -> frozenset[Suit]:
        return frozenset(card.suit for card in self.table if card.suit is not None)

    def stealable_suits(self) -> tuple[Suit, ...]:
        """The suits the player to move may steal now (empty unless a steal is pending)."""
        if not self.steal_pending:
            return ()
        return held_suits(self.banks[1 - self.turn])


_FIELDS = tuple(f.name for f in fields(GameState))
_values = attrgetter(*_FIELDS)


def _evolve(state: GameState, **changes: Any) -> GameState:
    """dataclasses.replace for a GameState, without its introspection on every call."""
    values = dict(zip(_FIELDS, _values(state), strict=True))
    values.update(changes)
    return GameState(**values)


def held_suits(bank: Iterable[Card]) -> tuple[Suit, ...]:
    """The suits a bank holds at least one card of, in suit order."""
    return tuple(sorted({card.suit for card in bank if card.suit is not None}))


def new_game(seed: int) -> GameState:
    """A game shuffled and coin-tossed from a seed: the same seed always gives the same game."""
    rng = random.Random(seed)
    first = rng.randrange(2)
    deck = full_deck()
    rng.shuffle(deck)
    return GameState(deck=tuple(deck), turn=first, first=first, seed=seed)


def from_deck(deck: Sequence[Card], first: int) -> GameState:
    """A game with an explicit deck order (next card first) and first player."""
    if Counter(deck) != Counter(full_deck()):
        raise ValueError("the deck must hold exactly the 54 Somnium cards")
    if first not in (0, 1):
        raise ValueError("the first player is seat 0 or 1")
    return GameState(deck=tuple(deck), turn=first, first=first)


def check(state: GameState, seat: int, action: Action) -> None:
    """Raise the specific IllegalAction if `seat` may not take `action` now."""
    if type(action) not in (Draw, EndTurn, Steal, Concede, TimeOut):
        raise errors.UnknownAction()
    if state.over:
        raise errors.GameOver()
    if seat not in (0, 1):
        raise errors.NotAPlayer()
    if isinstance(action, Concede):
        return
    if seat != state.turn:
        raise errors.NotYourTurn()
    if isinstance(action, TimeOut):  # whatever the player to move had left to decide
        return
    if isinstance(action, Steal):
        if not state.steal_pending:
            raise errors.NoStealPending()
        if action.suit not in state.stealable_suits():
            known = action.suit in {suit.value for suit in Suit}
            raise errors.SuitNotHeld(Suit(action.suit).label if known else str(action.suit))
        return
    if state.steal_pending:
        raise errors.MustSteal()
    if isinstance(action, Draw) and len(state.table) >= TABLE_CAP:
        raise errors.TableFull()
    if isinstance(action, EndTurn) and not state.table:
        raise errors.EmptyTable()


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every action `seat` may take now (Concede included while the game runs)."""
    if state.over or seat not in (0, 1):
        return []
    actions: list[Action] = []
    if seat == state.turn:
        if state.steal_pending:
            actions.extend(Steal(suit) for suit in state.stealable_suits())
        else:
            if len(state.table) < TABLE_CAP:
                actions.append(Draw())
            if state.table:
                actions.append(EndTurn())
    actions.append(Concede())
    return actions


def apply(state: GameState, seat: int, action: Action) -> tuple[GameState, list[Event]]:
    """The state after `seat` takes `action`, and the events it caused, in order.

    Raises an IllegalAction (and changes nothing) if the rules do not allow it.
    """
    check(state, seat, action)
    events: list[Event] = []
    if isinstance(action, Concede):
        events.append(Conceded(seat))
        state = _evolve(state, conceded_by=seat)
        return _end(state, events, winner=1 - seat, reason="concede"), events
    if isinstance(action, TimeOut):
        events.append(TimedOut(seat))
        state = _evolve(state, timed_out=seat)
        return _end(state, events, winner=1 - seat, reason="time"), events
    if isinstance(action, Draw):
        return _draw(state, events), events
    if isinstance(action, Steal):
        return _steal(state, action.suit, events), events
    assert isinstance(action, EndTurn)  # (check refused anything else)
    return _bank_and_pass(state, events), events


def _draw(state: GameState, events: list[Event]) -> GameState:
    card, deck = state.deck[0], state.deck[1:]
    seat = state.turn
    state = _evolve(state, deck=deck)
    events.append(CardDrawn(seat, card))
    if card.kind is Kind.DEATH:
        cards = (*state.table, card)
        events.append(DeathDrawn(seat, cards))
        state = _evolve(state, table=(), discard=state.discard + cards)
        return _pass(state, events)
    if card.kind is Kind.FOOL:
        state = _evolve(state, discard=(*state.discard, card))
        suits = held_suits(state.banks[1 - seat])
        if suits:
            events.append(StealRequired(seat, suits))
            return _evolve(state, steal_pending=True)
        events.append(FoolWasted(seat))
        return _after_safe_card(state, events)
    return _place(state, card, events)


def _steal(state: GameState, suit: Suit, events: list[Event]) -> GameState:
    seat, victim = state.turn, 1 - state.turn
    bank = state.banks[victim]
    card = max((c for c in bank if c.suit == suit), key=lambda c: c.value)
    index = bank.index(card)
    banks = _with_bank(state.banks, victim, bank[:index] + bank[index + 1 :])
    events.append(CardStolen(seat, victim, card))
    state = _evolve(state, banks=banks, steal_pending=False, stolen=(*state.stolen, card))
    return _place(state, card, events)


def _place(state: GameState, card: Card, events: list[Event]) -> GameState:
    """Put a drawn or stolen suit card on the table: a bust if its suit is there already."""
    assert card.suit is not None
    if card.suit in state.table_suits:
        cards = (*state.table, card)
        events.append(Bust(state.turn, card.suit, cards))
        state = _evolve(state, table=(), discard=state.discard + cards)
        return _pass(state, events)
    return _after_safe_card(_evolve(state, table=(*state.table, card)), events)


def _after_safe_card(state: GameState, events: list[Event]) -> GameState:
    """The turn goes on, unless that was the deck's last card: then the table is banked."""
    if state.deck:
        return state
    state = _bank(state, events)
    return _end(state, events, winner=_leader(state.scores), reason="deck")


def _bank(state: GameState, events: list[Event]) -> GameState:
    if not state.table:
        return state
    seat = state.turn
    bank = state.banks[seat] + state.table
    events.append(Banked(seat, state.table, score(bank)))
    return _evolve(state, banks=_with_bank(state.banks, seat, bank), table=())


def _bank_and_pass(state: GameState, events: list[Event]) -> GameState:
    return _pass(_bank(state, events), events)


def _pass(state: GameState, events: list[Event]) -> GameState:
    """The turn passes, or the game ends if the deck is empty."""
    if not state.deck:
        return _end(state, events, winner=_leader(state.scores), reason="deck")
    turn = 1 - state.turn
    events.append(TurnPassed(turn))
    return _evolve(state, turn=turn, stolen=())


def _end(state: GameState, events: list[Event], winner: int | None, reason: str) -> GameState:
    state = _evolve(state, over=True, winner=winner, steal_pending=False)
    events.append(GameEnded(winner, state.scores, reason))
    return state


def _leader(scores: tuple[int, int]) -> int | None:
    if scores[0] == scores[1]:
        return None
    return 0 if scores[0] > scores[1] else 1


def _with_bank(
    banks: tuple[tuple[Card, ...], tuple[Card, ...]], seat: int, bank: tuple[Card, ...]
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    return (bank, banks[1]) if seat == 0 else (banks[0], bank)


def replay(start: GameState, moves: Iterable[tuple[int, Action]]) -> GameState:
    """Apply (seat, action) moves in order from a start."""
    for seat, action in moves:
        start, _ = apply(start, seat, action)
    return start


def state_to_dict(state: GameState) -> dict[str, Any]:
    """The whole state as JSON data, deck and seed included: for the server's storage only."""
    return {
        "deck": [c.code for c in state.deck],
        "banks": [[c.code for c in bank] for bank in state.banks],
        "table": [c.code for c in state.table],
        "discard": [c.code for c in state.discard],
        "turn": state.turn,
        "first": state.first,
        "steal_pending": state.steal_pending,
        "stolen": [c.code for c in state.stolen],
        "over": state.over,
        "winner": state.winner,
        "conceded_by": state.conceded_by,
        "seed": state.seed,
        "timed_out": state.timed_out,
    }


def state_from_dict(data: dict[str, Any]) -> GameState:
    """Rebuild a state stored with state_to_dict."""

    def cards(codes: Iterable[str]) -> tuple[Card, ...]:
        return tuple(Card.from_code(c) for c in codes)

    bank0, bank1 = (cards(b) for b in data["banks"])
    return GameState(
        deck=cards(data["deck"]),
        banks=(bank0, bank1),
        table=cards(data["table"]),
        discard=cards(data["discard"]),
        turn=data["turn"],
        first=data["first"],
        steal_pending=data["steal_pending"],
        stolen=cards(data["stolen"]),
        over=data["over"],
        winner=data["winner"],
        conceded_by=data["conceded_by"],
        seed=data["seed"],
        timed_out=data.get("timed_out"),  # (absent from states stored before clocks)
    )
