"""The JSON the API reads and writes: strict request models and declared answers."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from fastapi import Path
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
)

from somnium_desktop.game import Suit
from somnium_server.play.names import VISIBLE_NAME, clean_name

SuitCode = Literal[
    "angels", "suns", "wands", "cups", "towers", "swords", "dragons", "pentacles", "moons",
    "demons",
]
assert set(SuitCode.__args__) == {suit.code for suit in Suit}  # type: ignore[attr-defined]

GameId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9]{1,16}$")]
GamePath = Annotated[GameId, Path(description="the game's short id, as shown on the board")]
LEVEL_PATTERN = r"^[a-z0-9_-]{1,32}$"  # the OpenAPI lists the levels on offer as an enum
LevelKey = Annotated[str, StringConstraints(pattern=LEVEL_PATTERN)]
Status = Literal["waiting", "playing", "finished"]
MAX_VERSION = 1_000_000


def _whole(value: object) -> object:
    """JSON's 2.0 is the integer 2 (as JSON Schema's "integer" says); 2.5, true, "2" stay what
    they are, and strict validation refuses them."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WholeNumber = Annotated[int, BeforeValidator(_whole)]


def _digits(value: object) -> object:
    if isinstance(value, str) and not DIGITS.fullmatch(value):
        raise ValueError("a number here is plain digits 0-9 (no sign, spaces or underscores)")
    return value


DIGITS = re.compile(r"[0-9]{1,9}")
# A number in a query string must be plain ASCII digits (int() would take "+5", " 5" and
# "5_0"): put PLAIN_DIGITS after the parameter's Query(...).
PLAIN_DIGITS = BeforeValidator(_digits)


class Strict(BaseModel):
    """Requests: unknown fields are refused, and values are never converted from another
    type (`"version": true` or `"version": "2"` is no integer: 422)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class DrawAction(Strict):
    type: Literal["draw"]


class EndTurnAction(Strict):
    type: Literal["end_turn"]


class StealAction(Strict):
    type: Literal["steal"]
    suit: SuitCode


class ConcedeAction(Strict):
    type: Literal["concede"]


ActionModel = Annotated[
    DrawAction | EndTurnAction | StealAction | ConcedeAction, Field(discriminator="type")
]


MAX_TABLE_NAME = 60


def _table_name(raw: str) -> str:
    name = clean_name(raw, MAX_TABLE_NAME)
    if name is None:
        raise ValueError(
            f"a table name is 1 to {MAX_TABLE_NAME} printable characters, without control "
            "characters"
        )
    return name


# Cleaned as display names are (names.clean_name): format characters such as bidi overrides
# dropped, spaces collapsed, control characters refused (422).
TableName = Annotated[
    str, StringConstraints(max_length=MAX_TABLE_NAME), AfterValidator(_table_name),
    WithJsonSchema({"type": "string", "minLength": 1, "maxLength": MAX_TABLE_NAME,
                    "pattern": VISIBLE_NAME}),
]
MoveSeconds = Annotated[int, Field(ge=1, le=600), BeforeValidator(_whole)]
MOVE_SECONDS = Field(
    default=None,
    description="a per-move clock: seconds for each decision (the server's shortest, 10 by "
                "default, to 600); a player whose clock runs out loses. None: no clock",
)
HOST_LEVEL = (
    "a computer of this level plays your seat and you watch "
    "(with a computer opponent: two computers play)"
)
# Odds on the table: agreed at Create, never in a rated game (422 odds_in_rated_game).
ODDS = ("both players' tables show the odds of the next card (bust, Death, Fools left); "
        "never in a rated game")
# In the schema too: odds with a person in seat 0 need `"rated": false` (rated is the default).
ODDS_NOT_RATED: dict[str, Any] = {"not": {
    "required": ["odds"],
    "properties": {"odds": {"const": True}, "rated": {"const": True},
                   "host_level": {"type": "null"}},
}}


class PersonOpponent(Strict):
    """A new table with a seat open for a person to join."""

    model_config = ConfigDict(json_schema_extra=ODDS_NOT_RATED)
    name: TableName
    opponent: Literal["person"]
    host_level: LevelKey | None = Field(default=None, description=HOST_LEVEL)
    rated: bool = Field(
        default=True,
        description="counts for both players' ratings (never with a computer in a seat)",
    )
    odds: bool = Field(default=False, description=ODDS)
    move_seconds: MoveSeconds | None = MOVE_SECONDS


class ComputerOpponent(Strict):
    """A new table against the computer; the game starts at once."""

    name: TableName
    opponent: Literal["computer"]
    level: LevelKey = Field(description="the computer opponent's level (see GET /levels)")
    host_level: LevelKey | None = Field(default=None, description=HOST_LEVEL)
    odds: bool = Field(default=False, description=ODDS)
    move_seconds: MoveSeconds | None = MOVE_SECONDS


class ActRequest(Strict):
    """One action by the player whose turn it is (concede: either player)."""

    action_id: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")] = Field(
        description="chosen by the client; a retry with the same id gets the first answer"
    )
    version: WholeNumber = Field(
        ge=0, le=MAX_VERSION, description="the game version the action was made against"
    )
    action: ActionModel


class LevelInfo(BaseModel):
    key: str
    label: str


class UserInfo(BaseModel):
    id: str
    display_name: str


class SeatRating(BaseModel):
    """A player's Glicko-2 rating, rounded; provisional while the deviation is high."""

    rating: int
    deviation: int
    provisional: bool = Field(description="deviation above 110: shown as e.g. 1500?")


class Player(BaseModel):
    """Who sits in a seat."""

    seat: int
    kind: Literal["person", "computer", "open"]
    user_id: str | None = None
    name: str | None = None
    level: str | None = None
    rating: SeatRating | None = Field(
        default=None, description="a person's rating when they sat down"
    )


class RatingChange(BaseModel):
    """What a finished rated game did to one seat's rating."""

    seat: int
    before: int
    after: int
    change: int


class ViewModel(BaseModel):
    """The public view of a game: the same for players and observers (no deck order)."""

    banks: list[list[str]]
    scores: list[int]
    table: list[str]
    discard: list[str]
    deck_count: int
    fools_left: int
    death_left: bool
    turn: int
    first: int
    steal_pending: bool
    stealable: list[SuitCode]
    stolen: list[str]
    over: bool
    winner: int | None
    conceded_by: int | None
    timed_out: int | None = Field(default=None, description="the seat whose clock ran out")
    legal: list[ActionModel]


class Rematch(BaseModel):
    agreed: list[int] = Field(description="seats that asked for a rematch")
    game_id: str | None = Field(description="the new game, once both agreed")


class SeatPresence(BaseModel):
    """Whether a seated player is at the table (has the game's event stream open)."""

    seat: int
    away: bool = Field(description="a person with no stream open for a while (never a computer)")
    claimable: bool = Field(
        description="away long enough, in a running game: the other player may claim the win"
    )


class GameSummary(BaseModel):
    """A lobby line."""

    id: str
    name: str
    created_at: float
    version: int = Field(
        description="the game's version this line shows (lobby events of one game may come "
                    "from several instances: a later version is the newer line)"
    )
    status: Status
    players: list[Player]
    turn: int | None = Field(description="the seat to move, while the game is playing")
    observers: int
    winner: int | None = None
    away: list[bool] = Field(
        default=[], description="per seat: its player has left (no stream open for a while)"
    )
    rated: bool = Field(default=False, description="counts for the players' ratings")
    odds: bool = Field(default=False, description="the tables show the odds (agreed at Create)")
    move_seconds: int | None = Field(
        default=None, description="the per-move clock in seconds (None: no time control)"
    )
    deadline: float | None = Field(
        default=None,
        description="when the clock of the player to move runs out, in the server's time "
                    "(seconds since 1970; a game's detail and its stream's `clock` say `now`)",
    )


class GameDetail(GameSummary):
    """A game's whole public state."""

    now: float = Field(default=0.0, description="the server's time when it answered")
    seq: int = Field(description="the last event's sequence number (the stream's Last-Event-ID)")
    view: ViewModel
    rematch: Rematch
    closed: bool = Field(default=False, description="cancelled by its host before it started")
    presence: list[SeatPresence] = Field(
        default=[], description="who is away; also sent on the game's stream as `presence`"
    )
    claimed_from: int | None = Field(
        default=None, description="the seat that was away when the other claimed the win"
    )
    rating_changes: list[RatingChange] | None = Field(
        default=None, description="a finished rated game: each seat's rating before and after"
    )


class GameEvent(BaseModel):
    """One entry of a game's log; on the stream its `seq` is the SSE id."""

    seq: int
    version: int
    event: dict[str, Any] = Field(description="an engine event or a table event, tagged by type")
    view: ViewModel | None = Field(
        default=None, description="the view after the action, on its last event"
    )


class ActResult(BaseModel):
    version: int
    seq: int
    events: list[GameEvent]
    view: ViewModel


class ReplayStep(BaseModel):
    version: int
    seat: int | None
    action: dict[str, Any] | None
    view: ViewModel


class Replay(BaseModel):
    game_id: str
    steps: list[ReplayStep]


class JudgedDecision(BaseModel):
    """One decision of a finished game judged by the expert (docs/bots.md). Chances are the
    mover's, in shares of a game (a draw counting half)."""

    step: int = Field(description="actions applied before it (a replay's step); 0 is the deal")
    seat: int
    action: dict[str, Any]
    action_label: str = Field(description='the action in words: "Bank", "Draw", "Steal Angels"')
    best: dict[str, Any] = Field(description="the expert's choice")
    best_label: str
    before: float = Field(description="the chance of winning with the expert's choice")
    after: float = Field(description="the chance of winning with the action taken")
    lost: float = Field(description="what the action gave away: before - after, never below 0")
    mark: Literal["inaccuracy", "mistake", "blunder"] | None
    forced: bool = Field(description="one option only: never marked nor counted in accuracy")
    exact: bool = Field(description="the values come from solving the rest of the game")


class GameAnalysis(BaseModel):
    """A finished game judged decision by decision from public views only."""

    game_id: str
    names: list[str | None] = Field(description="the players' names, by seat")
    decisions: list[JudgedDecision]
    curve: list[float] = Field(
        description="seat 0's chance of winning before each decision, then the result"
    )
    end_step: int = Field(description="the step of the game's end (the curve's last point)")
    accuracy: list[float | None] = Field(
        description="each seat's accuracy in percent (None: no unforced decision)"
    )
    winner: int | None
    thresholds: dict[str, float] = Field(description="the share of a game each mark starts at")


class RecentGame(GameSummary):
    """A game on a player's page."""

    accuracy: float | None = Field(
        default=None, description="the player's accuracy in it, once the game was analysed"
    )


class RatingPoint(BaseModel):
    """One rated game in a player's history."""

    game_id: str
    score: float = Field(description="1 won, 0.5 drawn, 0 lost")
    before: int
    after: int
    finished_at: float


class PlayerPage(BaseModel):
    """A player: name, rating and its history, their record and recent games."""

    id: str
    name: str
    rating: SeatRating
    played: int = Field(description="rated games finished")
    won: int
    lost: int
    drawn: int
    history: list[RatingPoint] = Field(description="the latest rated games, newest first")
    recent: list[RecentGame] = Field(description="their latest games, newest first")


class LeaderboardLine(BaseModel):
    """One player on the leaderboard."""

    rank: int
    id: str
    name: str
    rating: SeatRating
    played: int


class Leaderboard(BaseModel):
    """The best rated players with enough rated games."""

    min_games: int
    players: list[LeaderboardLine]
