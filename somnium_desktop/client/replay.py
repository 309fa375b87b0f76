"""A finished game seen again action by action, from its public views only: the step model."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..game.actions import Action, action_from_dict
from ..game.events import Event, GameEnded, TurnPassed
from ..game.view import View, view_from_dict
from .describe import Speaker
from .ratings import RatingChange

if TYPE_CHECKING:
    from ..game.analysis import PublicGame
    from .lobby_client import LobbyClient
    from .lobby_records import GameEvent, Seat


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """The game after one action (the deal at step 0): who acted and how, the events the
    action caused, and the public view after them."""

    seat: int | None
    action: Action | None
    events: tuple[Event, ...]
    view: View

    def __post_init__(self) -> None:
        if type(self.view) is not View:  # never a GameState: its deck order is secret
            raise TypeError("a replay step holds a public View, nothing more")


@dataclass(frozen=True, slots=True)
class People:
    """An online game's players as its table showed them: each seat's rating as they sat down
    ("" for none), their page (None: none), and what the game did to the ratings if rated."""

    ratings: tuple[str, str] = ("", "")
    user_ids: tuple[str | None, str | None] = (None, None)
    rating_changes: tuple[RatingChange, ...] | None = None


class Replay:
    """A finished game's steps and the position shown among them.

    `step` is the number of actions applied: 0 is the deal, `length` the end. Moving never
    goes past either end (go_to clamps). Only public views and the events everyone saw are
    held: the deck's order is never in a replay.
    """

    def __init__(
        self,
        steps: Sequence[ReplayStep],
        names: tuple[str, str],
        *,
        game_id: str,
        name: str,
        my_seat: int | None = None,
        claimed_from: int | None = None,
        people: People | None = None,
    ) -> None:
        if not steps:
            raise ValueError("a replay has at least the deal")
        self.steps = tuple(steps)
        self.names = names
        self.game_id = game_id
        self.name = name
        self.my_seat = my_seat  # the seat of the player looking again (told as "You"), if any
        self.claimed_from = claimed_from  # the seat that lost by leaving the table, if so
        self.people = people or People()  # ratings and pages of an online game's players
        self._step = 0

    @property
    def length(self) -> int:
        """How many actions the game had."""
        return len(self.steps) - 1

    @property
    def step(self) -> int:
        return self._step

    def go_to(self, step: int) -> int:
        """Show the game after `step` actions (clamped to 0 … length); the step now shown."""
        self._step = max(0, min(self.length, int(step)))
        return self._step

    def forward(self) -> int:
        return self.go_to(self._step + 1)

    def back(self) -> int:
        return self.go_to(self._step - 1)

    def start(self) -> int:
        return self.go_to(0)

    def end(self) -> int:
        return self.go_to(self.length)

    @property
    def at_start(self) -> bool:
        return self._step == 0

    @property
    def at_end(self) -> bool:
        return self._step == self.length

    @property
    def current(self) -> ReplayStep:
        return self.steps[self._step]

    @property
    def view(self) -> View:
        """The public view after the actions shown."""
        return self.current.view

    @property
    def label(self) -> str:
        """ "Move 12 of 57" (the deal is move 0)."""
        return f"Move {self._step} of {self.length}"

    def history(self) -> list[Event]:
        """Every event up to the step shown, oldest first."""
        return [event for step in self.steps[1:self._step + 1] for event in step.events]

    def lines(self) -> list[tuple[str, bool]]:
        """The log up to the step shown: (sentence, headline) for each event, as the table's
        log tells them (a headline starts a turn or ends the game)."""
        speaker = Speaker(self.names, self.my_seat)
        claimed = self.claimed_from
        return [(speaker.describe(event, claimed), isinstance(event, TurnPassed | GameEnded))
                for event in self.history()]

    def public_game(self) -> PublicGame:
        """What the analysis reads of this game: each action with the public view before it
        (a concession or a time-out left out: neither is judged) and the final view.
        ValueError if the game did not finish."""
        from ..game.actions import Concede, TimeOut  # (lazy: the analysis loads the expert)
        from ..game.analysis import Move, PublicGame

        moves = tuple(Move(before.view, after.action)
                      for before, after in zip(self.steps[:-1], self.steps[1:], strict=True)
                      if after.action is not None
                      and not isinstance(after.action, Concede | TimeOut))
        return PublicGame(moves, self.steps[-1].view)


def from_server(
    data: dict[str, Any],
    log: Iterable[GameEvent],
    names: tuple[str, str],
    name: str,
    my_seat: int | None = None,
    claimed_from: int | None = None,
    people: People | None = None,
) -> Replay:
    """A replay from the server's answers: `GET /games/{id}/replay` (the view after each
    action, by version) and the game's log (the events each version caused)."""
    caused: dict[int, list[Event]] = {}
    for entry in log:
        event = entry.engine_event()
        if event is not None:
            caused.setdefault(entry.version, []).append(event)
    steps = []
    for index, raw in enumerate(data["steps"]):
        action = raw.get("action")
        steps.append(ReplayStep(
            seat=raw.get("seat"),
            action=action_from_dict(action) if action is not None else None,
            events=tuple(caused.get(int(raw["version"]), ())) if index else (),
            view=view_from_dict(raw["view"]),
        ))
    return Replay(steps, names, game_id=str(data["game_id"]), name=name, my_seat=my_seat,
                  claimed_from=claimed_from, people=people)


def fetch(client: LobbyClient, game_id: str, user_id: str | None = None) -> Replay:
    """A finished game's replay from its server (blocking: run it through Operations), with
    its players' ratings and pages, and what a rated game did to the ratings. `user_id`: the
    player asking, whose seat the log calls "You"."""
    detail = client.game(game_id)
    data = client.replay(game_id)
    log = client.log(game_id)
    seats = {p.seat: p for p in detail.players}
    first, second = seats.get(0), seats.get(1)
    people = People(ratings=(first.rating if first else "", second.rating if second else ""),
                    user_ids=(_page(first), _page(second)),
                    rating_changes=detail.rating_changes)
    return from_server(data, log, detail.names, detail.name, my_seat=detail.seat_of(user_id),
                       claimed_from=detail.claimed_from, people=people)


def _page(seat: Seat | None) -> str | None:
    """The user whose page a click on this seat's name opens (a person's only)."""
    return seat.user_id if seat is not None and seat.kind == "person" else None
