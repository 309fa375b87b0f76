"""The app's HTTP client for a lobby server: typed answers, and errors in plain words.

Blocking calls (requests): run them off the UI thread (see tasks.Operations). Every failure is
one of the LobbyError kinds (errors.py), whose text can be shown to the player as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

import requests

from ..game.actions import Action, action_to_dict
from ..game.view import view_from_dict
from .answers import NO_HTTP, gateway_words, http_error, not_http, retry_after, what_it_sent
from .errors import (
    ActionRefused,
    LobbyError,
    RateLimited,
    ServerFailed,
    ServerUnreachable,
    SignedOut,
)
from .lobby_records import Account, ActResult, GameDetail, GameEvent, GameSummary, LevelInfo

if TYPE_CHECKING:  # (sign-in and its keyring are imported once a signed request is made)
    from .auth_session import AuthSession

HTTP_TIMEOUT = 10.0


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
        connection: an access token found stale (stream_refused), or known to expire soon or
        to have expired (AuthSession.access_due), is renewed first, so the connection is not
        refused for it."""
        auth = self.auth
        if auth is None:
            return {}
        if auth.access_due:
            from .auth_session import SignInRequired

            try:
                auth.renew_if_due()
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

    def chat(self, game_id: str, limit: int | None = None,
             before: int | None = None) -> list[dict[str, Any]]:
        """The game's newest chat messages (the server's page, or `limit`), those before the
        message `before` when given, oldest first (signed in: without the users blocked)."""
        signed = self.auth is not None and self.auth.access_token is not None
        query = "&".join(f"{key}={int(value)}" for key, value in
                         (("limit", limit), ("before", before)) if value is not None)
        path = f"/games/{_path(game_id)}/chat" + (f"?{query}" if query else "")
        return [dict(m) for m in self._call("GET", path, signed=signed)]

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
            # (a sign-in that ended is SignInRequired: this is the token endpoint failing for a
            # moment, a gateway's HTTP 502 or a rate limit, and the sign-in is still good)
            raise ServerUnreachable(f"The server {self.host} could not renew your sign-in just "
                                    f"now ({rejected}). Nothing was lost: try again in a "
                                    "moment.") from None
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
    lobby_refusal = isinstance(body, dict) and isinstance(body.get("message"), str)
    if status == 429 and not lobby_refusal:  # (a proxy's rate limit: nothing was done)
        wait = retry_after(response)
        raise RateLimited(f"too many requests to the server {host} just now: try again in "
                          + (f"{wait:.0f} s" if wait else "a moment"), "", wait)
    if status in (502, 503, 504):  # (a gateway: what was asked may have been done)
        wait = retry_after(response)
        raise ServerFailed(f"The server {host} {gateway_words(response)}: try again in "
                           + (f"{wait:.0f} s." if wait else "a moment."), status, wait)
    if status >= 500:
        raise ServerFailed(f"The server {host} answers, but {http_error(response)}. Nothing "
                           "was lost: try again.", status)
    if isinstance(body, dict) and lobby_refusal:
        if status == 429:  # (a lobby server's rate limit: nothing was done)
            raise RateLimited(str(body["message"]), str(body.get("error", "")),
                              retry_after(response))
        version = body.get("version")
        raise ActionRefused(str(body["message"]), str(body.get("error", "")), status,
                            version if isinstance(version, int) else None)
    # (no lobby server's refusal: another server's error page, a wrong address say)
    raise ServerFailed(f"The server {host} answers, but {http_error(response)}.", status)
