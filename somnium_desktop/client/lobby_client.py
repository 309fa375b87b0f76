"""The app's HTTP client for a lobby server: typed answers, and errors in plain words.

Blocking calls (requests): run them off the UI thread (see tasks.Operations). Every failure is
one of the LobbyError kinds (errors.py), whose text can be shown to the player as it is.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

import requests

from ..game.actions import Action, action_to_dict
from ..game.events import EVENT_TYPES, Event, event_from_dict
from ..game.view import View, view_from_dict
from .answers import NO_HTTP, http_error, not_http, what_it_sent
from .errors import ActionRefused, LobbyError, ServerFailed, ServerUnreachable, SignedOut
from .ratings import RatingChange, rating_changes_of, rating_text

if TYPE_CHECKING:  # (sign-in and its keyring are imported once a signed request is made)
    from .auth_session import AuthSession

HTTP_TIMEOUT = 10.0


# ----- answers --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits in a seat: a person, a computer, or no one yet ("open")."""

    seat: int
    kind: str
    user_id: str | None = None
    name: str | None = None
    level: str | None = None
    rating: str = ""  # a person's rating as they sat down, e.g. "1500?" (ratings.py)

    @property
    def open(self) -> bool:
        return self.kind == "open"

    @property
    def label(self) -> str:
        if self.open:
            return "Open seat"
        return self.name or ("Computer" if self.kind == "computer" else "Player")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Seat:
        return cls(int(data["seat"]), str(data["kind"]), data.get("user_id"), data.get("name"),
                   data.get("level"), rating_text(data.get("rating")))


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A lobby line: a table, who sits at it, how it stands."""

    id: str
    name: str
    status: str  # "waiting", "playing" or "finished"
    players: tuple[Seat, ...]
    turn: int | None = None
    observers: int = 0
    winner: int | None = None
    created_at: float = 0.0
    away: tuple[bool, ...] = ()  # per seat: its player has left (their app is closed)
    odds: bool = False  # the tables show the odds of the next card (agreed at Create)
    rated: bool = False  # counts for both players' ratings (chosen at Create)
    move_seconds: int | None = None  # the per-move clock (None: no time control)

    def is_away(self, seat: int) -> bool:
        return seat < len(self.away) and self.away[seat]

    @property
    def host_away(self) -> bool:
        """A table waiting for a player whose host has left: it cannot be joined for now."""
        return self.status == "waiting" and any(self.away)

    @property
    def names(self) -> tuple[str, str]:
        labels = [seat.label for seat in self.players] + ["Open seat", "Open seat"]
        return (labels[0], labels[1])

    def seat_of(self, user_id: str | None) -> int | None:
        """The seat a user sits in, if any."""
        if user_id is None:
            return None
        return next((p.seat for p in self.players if p.kind == "person" and p.user_id == user_id),
                    None)

    def open_seat(self) -> int | None:
        if self.status != "waiting":
            return None
        return next((p.seat for p in self.players if p.open), None)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameSummary:
        return cls(**_summary_fields(data))


def _summary_fields(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(data["id"]),
        "name": str(data["name"]),
        "status": str(data["status"]),
        "players": tuple(Seat.from_dict(p) for p in data["players"]),
        "turn": data.get("turn"),
        "observers": int(data.get("observers", 0)),
        "winner": data.get("winner"),
        "created_at": float(data.get("created_at", 0.0)),
        "away": tuple(bool(away) for away in data.get("away") or ()),
        "odds": data.get("odds") is True,
        "rated": bool(data.get("rated", False)),
        "move_seconds": _whole_or_none(data.get("move_seconds")),
    }


def _whole_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True, slots=True)
class GameDetail(GameSummary):
    """A game's whole public state, as a snapshot or an answer to create, join or rematch."""

    version: int = 0
    seq: int = 0
    view: View | None = None
    rematch_agreed: tuple[int, ...] = ()
    rematch_game_id: str | None = None
    closed: bool = False
    presence: tuple[tuple[bool, bool], ...] = ()  # per seat: away, and the win claimable
    claimed_from: int | None = None  # the seat whose win was claimed while it was away
    rating_changes: tuple[RatingChange, ...] | None = None  # a finished rated game's
    clock_left: float | None = None  # seconds left to the player to move, when answered

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameDetail:
        rematch = data.get("rematch") or {}
        claimed = data.get("claimed_from")
        return cls(
            **_summary_fields(data),
            version=int(data["version"]),
            seq=int(data["seq"]),
            view=view_from_dict(data["view"]),
            rematch_agreed=tuple(rematch.get("agreed") or ()),
            rematch_game_id=rematch.get("game_id"),
            closed=bool(data.get("closed", False)),
            presence=presence_of(data.get("presence") or ()),
            claimed_from=None if claimed is None else int(claimed),
            rating_changes=rating_changes_of(data.get("rating_changes")),
            clock_left=clock_left(data),
        )

    def with_changes(self, **changes: Any) -> GameDetail:
        return dataclasses.replace(self, **changes)


def clock_left(data: dict[str, Any]) -> float | None:
    """Seconds left on the clock of the player to move, by the server's own time (`deadline`
    less `now`: the computer's clock may be wrong), from a detail or a `clock` message."""
    deadline, now = data.get("deadline"), data.get("now")
    if deadline is None or now is None:
        return None
    return max(0.0, float(deadline) - float(now))


def presence_of(players: Any) -> tuple[tuple[bool, bool], ...]:
    """Who is away (and whether their win may be claimed), by seat, from the server's list."""
    found: dict[int, tuple[bool, bool]] = {
        int(p["seat"]): (bool(p["away"]), bool(p["claimable"])) for p in players
    }
    return tuple(found.get(seat, (False, False)) for seat in range(max(found, default=-1) + 1))


@dataclass(frozen=True, slots=True)
class GameEvent:
    """One numbered event of a game: an engine event or a table event (seat taken, ...).

    `view` is set on the last event of each change: the view after it.
    """

    seq: int
    version: int
    data: dict[str, Any]
    view: View | None = None

    @property
    def kind(self) -> str:
        return str(self.data.get("type", ""))

    def engine_event(self) -> Event | None:
        """The engine's event, or None for a table event."""
        return event_from_dict(self.data) if self.kind in EVENT_TYPES else None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameEvent:
        view = data.get("view")
        return cls(int(data["seq"]), int(data["version"]), dict(data["event"]),
                   view_from_dict(view) if view is not None else None)


@dataclass(frozen=True, slots=True)
class ActResult:
    """What an accepted action did: the new version and the events it caused."""

    version: int
    seq: int
    events: tuple[GameEvent, ...]
    view: View


@dataclass(frozen=True, slots=True)
class LevelInfo:
    key: str
    label: str


@dataclass(frozen=True, slots=True)
class Account:
    """Who the player is signed in as."""

    id: str
    display_name: str


# ----- the client -------------------------------------------------------------------------------
class LobbyClient:
    """Talks to one lobby server. Watching needs no sign-in; creating, joining, acting do.

    One requests.Session per server (shared with the AuthSession that signs requests).
    """

    def __init__(
        self,
        base_url: str,
        auth: AuthSession | None = None,
        http: requests.Session | None = None,
        timeout: float = HTTP_TIMEOUT,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = http if http is not None else (auth.http if auth else requests.Session())
        self.auth = auth
        self.timeout = timeout

    @property
    def host(self) -> str:
        return urlsplit(self.base_url).netloc or self.base_url

    # ----- reading (anyone) -----
    def levels(self) -> list[LevelInfo]:
        return [LevelInfo(str(d["key"]), str(d["label"])) for d in self._call("GET", "/levels")]

    def games(self) -> list[GameSummary]:
        return [GameSummary.from_dict(d) for d in self._call("GET", "/games")]

    def game(self, game_id: str) -> GameDetail:
        return GameDetail.from_dict(self._call("GET", f"/games/{_path(game_id)}"))

    def leaderboard(self, limit: int = 50) -> dict[str, Any]:
        """The best rated players (`GET /leaderboard`): min_games and players."""
        return dict(self._call("GET", f"/leaderboard?limit={int(limit)}"))

    def player(self, user_id: str) -> dict[str, Any]:
        """A player's page (`GET /players/{id}`): rating, record, history, recent games."""
        return dict(self._call("GET", f"/players/{_path(user_id)}"))

    def log(self, game_id: str) -> list[GameEvent]:
        """Every event of a game so far, oldest first."""
        return [GameEvent.from_dict(e) for e in self._call("GET", f"/games/{_path(game_id)}/log")]

    def replay(self, game_id: str) -> dict[str, Any]:
        """A finished game's public view after each action (`GET /games/{id}/replay`)."""
        return dict(self._call("GET", f"/games/{_path(game_id)}/replay"))

    def analysis(self, game_id: str) -> dict[str, Any]:
        """A finished game's analysis (`GET /games/{id}/analysis`), under the sign-in if any
        (its rate limit is then the user's)."""
        path = f"/games/{_path(game_id)}/analysis"
        return dict(self._call("GET", path, signed=self.auth is not None))

    def events_url(self, game_id: str) -> str:
        return f"{self.base_url}/games/{_path(game_id)}/events"

    def lobby_events_url(self) -> str:
        return f"{self.base_url}/lobby/events"

    def stream_headers(self) -> dict[str, str]:
        """Streams are signed while signed in: the server then knows the player is here (and
        not watching their own game). Called on a stream's reader thread, before each
        connection: an access token found stale (stream_refused) is refreshed first."""
        auth = self.auth
        if auth is None:
            return {}
        if auth.access_token is None:
            from .auth_session import SignInRequired

            try:
                auth.refresh()
            except SignInRequired:
                return {}  # (the sign-in has ended: watch as anyone may)
            except Exception as error:  # (a passing failure, the keyring's too: try again)
                raise requests.RequestException(
                    f"the sign-in could not be renewed ({error})") from error
        token = auth.access_token
        return {"Authorization": f"Bearer {token}"} if token else {}

    def stream_refused(self, headers: dict[str, str]) -> None:
        """A stream's sign-in (`headers`) was refused, its access token expired: the next
        connection refreshes it (once, whichever stream of this client asks first)."""
        sent = headers.get("Authorization", "").removeprefix("Bearer ")
        if self.auth is not None and sent:
            self.auth.forget_access(sent)

    # ----- signed in -----
    def me(self) -> Account:
        data = self._call("GET", "/me", signed=True)
        return Account(str(data["id"]), str(data["display_name"]))

    def create(self, name: str, level: str | None = None, move_seconds: int | None = None,
               *, rated: bool = True, odds: bool = False) -> GameDetail:
        """Open a table: against a person (level None; rated or casual) or the computer at
        `level` (never rated); with a per-move clock of `move_seconds` (None: none); `odds`
        shows the odds on both tables (refused for a rated game)."""
        body: dict[str, Any] = {"name": name, "opponent": "person", "rated": rated}
        if level is not None:
            body = {"name": name, "opponent": "computer", "level": level}
        if move_seconds is not None:
            body["move_seconds"] = move_seconds
        if odds:
            body["odds"] = True
        return GameDetail.from_dict(self._call("POST", "/games", body, signed=True))

    def join(self, game_id: str) -> GameDetail:
        return GameDetail.from_dict(
            self._call("POST", f"/games/{_path(game_id)}/join", signed=True)
        )

    def leave(self, game_id: str) -> GameDetail:
        return GameDetail.from_dict(
            self._call("POST", f"/games/{_path(game_id)}/leave", signed=True)
        )

    def rematch(self, game_id: str) -> GameDetail:
        return GameDetail.from_dict(
            self._call("POST", f"/games/{_path(game_id)}/rematch", signed=True)
        )

    def claim(self, game_id: str) -> GameDetail:
        """Claim the win from an opponent who left the table and stayed away."""
        return GameDetail.from_dict(
            self._call("POST", f"/games/{_path(game_id)}/claim", signed=True)
        )

    def say(self, game_id: str, text: str) -> dict[str, Any]:
        """Write a chat message at the table; the server's stored message."""
        body = {"text": text}
        return dict(self._call("POST", f"/games/{_path(game_id)}/chat", body, signed=True))

    def chat(self, game_id: str) -> list[dict[str, Any]]:
        """The game's chat so far, oldest first (signed in: without the users blocked)."""
        signed = self.auth is not None and self.auth.access_token is not None
        return [dict(m) for m in self._call("GET", f"/games/{_path(game_id)}/chat",
                                            signed=signed)]

    def block(self, user_id: str) -> None:
        """Block a user: their chat messages no longer reach this account."""
        self._call("POST", f"/me/blocks/{quote(user_id, safe='')}", signed=True)

    def unblock(self, user_id: str) -> None:
        """Unblock a user: their chat messages reach this account again."""
        self._call("DELETE", f"/me/blocks/{quote(user_id, safe='')}", signed=True)

    def blocks(self) -> list[Account]:
        """The users this account has blocked."""
        return [Account(str(u["id"]), str(u["display_name"]))
                for u in self._call("GET", "/me/blocks", signed=True)]

    def act(self, game_id: str, version: int, action: Action, action_id: str) -> ActResult:
        """Send one action made against `version`; a retry with the same id is answered alike."""
        body = {"action_id": action_id, "version": version, "action": action_to_dict(action)}
        data = self._call("POST", f"/games/{_path(game_id)}/actions", body, signed=True)
        return ActResult(
            version=int(data["version"]),
            seq=int(data["seq"]),
            events=tuple(GameEvent.from_dict(e) for e in data["events"]),
            view=view_from_dict(data["view"]),
        )

    # ----- plumbing -----
    def _call(self, method: str, path: str, body: Any = None, *, signed: bool = False) -> Any:
        if not signed:
            try:
                response = self.http.request(method, f"{self.base_url}{path}", json=body,
                                             timeout=self.timeout)
            except requests.RequestException as error:
                raise self._unreachable(error) from None
            return _answer(response)
        if self.auth is None:
            raise SignedOut("Sign in first.")
        from .auth_session import SignInRequired
        from .signin import SigninError, SigninRejected

        try:
            response = self.auth.request(method, path, json=body, timeout=self.timeout)
        except SignInRequired:
            raise SignedOut("You are signed out: sign in again to play.") from None
        except SigninRejected as rejected:
            raise SignedOut(f"The sign-in was refused ({rejected}): sign in again.") from None
        except (SigninError, requests.RequestException) as error:
            raise self._unreachable(error) from None
        return _answer(response)

    def _unreachable(self, error: Exception) -> LobbyError:
        if not_http(error):
            return ServerFailed(f"The server {self.host} answers, but {NO_HTTP}.")
        return ServerUnreachable(f"The server {self.host} cannot be reached. Nothing was lost: "
                                 "try again in a moment.")


def _path(game_id: str) -> str:
    return quote(game_id.strip(), safe="")


def _answer(response: requests.Response) -> Any:
    """The JSON of a 2xx answer, or the error it stands for."""
    try:
        body = response.json()
    except ValueError:
        body = None
    status = response.status_code
    host = urlsplit(response.url).netloc or "the server"
    if status == 204:  # done, nothing to say (blocking)
        return None
    if 200 <= status < 300:
        if body is None:
            raise ServerFailed(f"The server {host} answers, but "
                               f"{what_it_sent(response, 'what the app asked for')}.")
        return body
    if status == 401:
        raise SignedOut("Your sign-in has expired: sign in again to play.")
    if status >= 500:
        raise ServerFailed(f"The server {host} answers, but {http_error(response)}. Nothing "
                           "was lost: try again.")
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        version = body.get("version")
        raise ActionRefused(str(body["message"]), str(body.get("error", "")), status,
                            version if isinstance(version, int) else None)
    raise ActionRefused(f"the server answered HTTP {status}", "", status)
