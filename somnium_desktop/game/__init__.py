"""The pure Somnium core: cards, rules, events, the public view and the computer players.

No Qt, no network, no I/O: the server and the app both stand on it.
"""

from .actions import (
    Action,
    Concede,
    Draw,
    EndTurn,
    Steal,
    TimeOut,
    action_from_dict,
    action_to_dict,
)
from .cards import DEATH, FOOL, Card, Kind, Suit, by_suit, full_deck, score, suit_card
from .errors import IllegalAction
from .events import Event, event_from_dict, event_to_dict
from .state import (
    GameState,
    apply,
    check,
    from_deck,
    legal_actions,
    new_game,
    replay,
    state_from_dict,
    state_to_dict,
)
from .view import View, view_from_dict, view_of, view_to_dict

__all__ = [
    "DEATH", "FOOL", "Action", "Card", "Concede", "Draw", "EndTurn", "Event", "GameState",
    "IllegalAction", "Kind", "Steal", "Suit", "TimeOut", "View", "action_from_dict",
    "action_to_dict",
    "apply", "by_suit", "check", "event_from_dict", "event_to_dict", "from_deck", "full_deck",
    "legal_actions", "new_game", "replay", "score", "state_from_dict", "state_to_dict",
    "suit_card", "view_from_dict", "view_of", "view_to_dict",
]
