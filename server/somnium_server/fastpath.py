"""A raw ASGI path for the two busiest requests: an action, and a game's public state.

They skip Starlette's middleware, routing and Request/Response objects, which cost an action
more than the game and its storage did. The FastAPI routes for them stay as they were: they
describe the API in OpenAPI and serve every request this path hands over: anything it does not
recognise at once (a malformed id or body, HEAD, an oversized declared body) goes to the full
app, with the body replayed, so those answers are exactly the full app's.
"""

from __future__ import annotations

import logging
import re

from pydantic import TypeAdapter, ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .context import ServerContext, bearer, signed_in
from .errors import ApiError, error_body
from .models import ActRequest
from .storage import VersionConflict

log = logging.getLogger("somnium_server.fastpath")

GAMES = "/games/"
ACTIONS = "/actions"
GAME_ID = re.compile(r"[A-Za-z0-9]{1,16}")
JSON = (b"content-type", b"application/json")
ACT_REQUEST: TypeAdapter[ActRequest] = TypeAdapter(ActRequest)
# an answer: status, JSON body, headers besides the length and content type
Answer = tuple[int, bytes, list[tuple[bytes, bytes]]]
NO_HEADERS: list[tuple[bytes, bytes]] = []


class FastPath:
    """POST /games/{id}/actions and GET /games/{id}, answered without the framework."""

    def __init__(self, app: ASGIApp, ctx: ServerContext) -> None:
        self.app = app  # the full app, for whatever this path does not take
        self.ctx = ctx
        self.max_body = ctx.settings.max_body

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> bool:
        """Answer the request if it is one of ours; False (nothing read) if it is not."""
        path: str = scope["path"]
        if not path.startswith(GAMES):
            return False
        method = scope["method"]
        rest = path[len(GAMES):]
        if method == "GET" and GAME_ID.fullmatch(rest):
            await _answer(send, self.game(rest))
            return True
        if method == "POST" and rest.endswith(ACTIONS):
            game_id = rest[: -len(ACTIONS)]
            if GAME_ID.fullmatch(game_id) and self._small_enough(scope):
                await self._act(scope, receive, send, game_id)
                return True
        return False

    def _small_enough(self, scope: Scope) -> bool:
        for name, value in scope["headers"]:
            if name == b"content-length":
                return value.isdigit() and int(value) <= self.max_body
        return True

    def game(self, game_id: str) -> Answer:
        """GET /games/{game_id}: the game's public state (cached bytes), or 404."""
        try:
            return 200, self.ctx.games.room(game_id).detail_bytes(), NO_HEADERS
        except ApiError as error:
            return _error(error)

    def too_large(self) -> Answer:
        message = f"the request body may hold at most {self.max_body} bytes"
        return 413, error_body("body_too_large", message), NO_HEADERS

    @staticmethod
    def request_of(body: bytes) -> ActRequest | None:
        """The action request in `body`, or None: the full app words the 422 (or 400)."""
        try:
            return ACT_REQUEST.validate_json(body)
        except ValidationError:
            return None

    async def act(self, token: str | None, game_id: str, request: ActRequest) -> Answer:
        """POST /games/{game_id}/actions, its body valid: the action's answer or the error."""
        ctx = self.ctx
        try:
            user = await signed_in(ctx.storage, token)
            ctx.limits["act"].check(user.id)
            return 200, await ctx.games.act(user, game_id, request), NO_HEADERS
        except ApiError as error:
            return _error(error)
        except VersionConflict:
            return _error(ApiError(
                409, "stale_version", "the game changed meanwhile: fetch it and retry"
            ))
        except Exception as error:
            log.error("unexpected %s on POST /games/%s/actions", type(error).__name__, game_id,
                      exc_info=error)
            message = "something went wrong on the server; try again"
            return 500, error_body("internal_error", message), NO_HEADERS

    async def _act(self, scope: Scope, receive: Receive, send: Send, game_id: str) -> None:
        body = await _read_body(receive, self.max_body)
        if body is None:
            await _answer(send, self.too_large())
            return
        request = self.request_of(body)
        if request is None:
            await self.app(scope, _replay(body), send)
            return
        await _answer(send, await self.act(_token(scope), game_id, request))


def _token(scope: Scope) -> str | None:
    """The bearer token of the first Authorization header, if any."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            return bearer(value.decode("latin-1"))
    return None


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or None once it grows past `limit` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _replay(body: bytes) -> Receive:
    """A receive that gives the body already read, then waits as the real one would."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


async def _answer(send: Send, answer: Answer) -> None:
    status, body, headers = answer
    # in the order Starlette's Response gives them: the full app's answers, byte for byte
    raw = [*headers, (b"content-length", b"%d" % len(body)), JSON]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def _error(error: ApiError) -> Answer:
    headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in error.headers.items()]
    return error.status, error_body(error.code, error.message, version=error.version), headers
