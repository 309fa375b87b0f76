"""The server's HTTP protocol: an action and a game's state answered straight from the parser.

uvicorn turns every request into an ASGI scope, a request cycle, a task and a round of message
dicts, each checked on the way out: under load that cost more than the action itself. Here a
request that is plainly `POST /games/{id}/actions` or `GET /games/{id}` (HTTP/1.1, no query,
a small declared body, nothing pending on the connection) goes to the raw path's own handlers
(fastpath.FastPath) and its answer is written as uvicorn would write it, head and body at once.
Anything else, a malformed action body included, is handed to uvicorn's usual ASGI path
exactly as if it had been from the start, so those answers are the full app's.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from uvicorn.protocols.http.httptools_impl import STATUS_LINE

from .apierror import error_body
from .context import bearer
from .onewrite import OneWriteProtocol

if TYPE_CHECKING:  # not imported here: the built-in server listens before pydantic is loaded
    from .fastpath import Answer, FastPath
    from .models import ActRequest

# /games/{id} or /games/{id}/actions, nothing more (a query or escapes take the usual path)
HOT_URL = re.compile(rb"/games/([A-Za-z0-9]{1,16})(/actions)?")
JSON_HEAD = b"content-length: %d\r\ncontent-type: application/json\r\n"  # Starlette's order
UNEXPECTED = "something went wrong on the server; try again"  # the full app's 500 (errors.py)

log = logging.getLogger("somnium_server.direct")


class _Unused:
    """Stands in for the request cycle's message event: nobody waits on a direct request."""

    @staticmethod
    def set() -> None:
        pass


class DirectCycle:
    """A request answered directly: what uvicorn's protocol reads of a request cycle."""

    __slots__ = (
        "body", "disconnected", "game_id", "keep_alive", "posting", "response_complete",
        "token", "url",
    )
    message_event = _Unused

    def __init__(
        self, game_id: str, posting: bool, token: str | None, keep_alive: bool, url: bytes
    ) -> None:
        self.game_id = game_id
        self.posting = posting
        self.token = token
        self.keep_alive = keep_alive
        self.url = url
        self.body = b""
        self.disconnected = False
        self.response_complete = False


class DirectProtocol(OneWriteProtocol):
    """uvicorn's httptools protocol, the two busiest requests answered without ASGI."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        usable = (
            hasattr(self.app, "fast") and not self.root_path
            and not getattr(self.app, "root_path", "") and self.limit_concurrency is None
        )
        self.fast_app = self.app if usable else None
        # the keep-alive timeout: when an idle connection is closed, and the one timer checking
        # it (uvicorn makes and cancels a timer for every request; this one is rearmed only
        # when it fires early)
        self.idle_until: float | None = None
        self.idle_timer: asyncio.TimerHandle | None = None

    # -- keep-alive ----------------------------------------------------------------------------
    def _unset_keepalive_if_required(self) -> None:
        self.idle_until = None  # busy (a request came), or gone

    def on_message_begin(self) -> None:
        # Busy again, also for a request pipelined behind one answered directly within the
        # same read (that answer set an idle deadline, and no data arrives to clear it).
        self.idle_until = None
        super().on_message_begin()

    def on_response_complete(self) -> None:
        """uvicorn's, with the idle deadline moved instead of a new timer made."""
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self.flow.resume_reading()
        if self.pipeline:
            self.idle_until = None
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
            return
        self.idle_until = self.loop.time() + self.timeout_keep_alive
        if self.idle_timer is None:
            self.idle_timer = self.loop.call_at(self.idle_until, self._idle_check)

    def _idle_check(self) -> None:
        self.idle_timer = None
        idle_until = self.idle_until
        if idle_until is None:  # busy: the next answer sets a new deadline
            return
        if self.loop.time() >= idle_until:
            self.timeout_keep_alive_handler()
        else:
            self.idle_timer = self.loop.call_at(idle_until, self._idle_check)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.idle_timer is not None:
            self.idle_timer.cancel()
            self.idle_timer = None

    # -- direct answers --------------------------------------------------------------------------
    def on_headers_complete(self) -> None:
        cycle = self._direct()
        if cycle is None:
            super().on_headers_complete()
        else:
            self.cycle = cycle  # type: ignore[assignment]

    def _direct(self) -> DirectCycle | None:
        """A cycle for this request if it is one to answer directly, else None."""
        app = self.fast_app
        if app is None or self.expect_100_continue:
            return None
        fast: FastPath | None = app.fast  # read each time: None turns the raw paths off
        cycle = self.cycle
        if fast is None or (cycle is not None and not cycle.response_complete):
            return None  # pipelined behind an answer still to come: uvicorn queues it
        url = self.url
        match = HOT_URL.fullmatch(url)
        if match is None:
            return None
        parser = self.parser
        posting = match.group(2) is not None
        if (
            parser.get_method() != (b"POST" if posting else b"GET")
            or parser.get_http_version() != "1.1" or parser.should_upgrade()
        ):
            return None
        length: bytes | None = None
        authorization: bytes | None = None
        for name, value in self.headers:  # the first of each counts, as in fastpath
            if name == b"content-length":
                if length is None:
                    length = value
            elif name == b"authorization":
                if authorization is None:
                    authorization = value
            elif name == b"transfer-encoding":
                return None
        if posting:
            if length is None or not length.isdigit() or int(length) > fast.max_body:
                return None
        elif length not in (None, b"0"):
            return None
        return DirectCycle(
            match.group(1).decode("ascii"), posting,
            None if authorization is None else bearer(authorization.decode("latin-1")),
            parser.should_keep_alive(), url,
        )

    def on_body(self, body: bytes) -> None:
        cycle: Any = self.cycle
        if type(cycle) is DirectCycle:
            cycle.body += body  # no more than the declared length, itself bounded
        else:
            super().on_body(body)

    def on_message_complete(self) -> None:
        cycle: Any = self.cycle
        if type(cycle) is not DirectCycle:
            super().on_message_complete()
            return
        fast: FastPath | None = getattr(self.fast_app, "fast", None)
        try:  # (httptools would turn an error here into a 400 and log no traceback)
            if fast is None:  # turned off meanwhile
                self._hand_over(cycle)
            elif not cycle.posting:
                self._answer(cycle, fast.game(cycle.game_id))
            else:
                request = fast.request_of(cycle.body)
                if request is None:
                    self._hand_over(cycle)
                else:
                    self._start(self._act(fast, cycle, request))
        except Exception as error:
            self._fail(cycle, error)

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` as a task the server waits for when it shuts down (as uvicorn's are)."""
        task = self.loop.create_task(work)
        task.add_done_callback(self.tasks.discard)
        self.tasks.add(task)

    def _hand_over(self, cycle: DirectCycle) -> None:
        """Serve the request the usual way after all, its body replayed (still in its callback:
        the parser holds this request's method, version and URL)."""
        cycle.response_complete = True  # not an answer pending: uvicorn would queue behind it
        super().on_headers_complete()
        if cycle.body:
            super().on_body(cycle.body)
        super().on_message_complete()

    async def _act(self, fast: FastPath, cycle: DirectCycle, request: ActRequest) -> None:
        try:
            self._answer(cycle, await fast.act(cycle.token, cycle.game_id, request))
        except Exception as error:
            self._fail(cycle, error)

    def _fail(self, cycle: DirectCycle, error: Exception) -> None:
        """Something unexpected: logged with its traceback and answered with the full app's
        500, so that no client is left waiting (the connection closes if even that fails)."""
        method = "POST" if cycle.posting else "GET"
        log.error("unexpected %s on %s %s", type(error).__name__, method,
                  cycle.url.decode("latin-1"), exc_info=error)
        if cycle.response_complete or cycle.disconnected:
            return
        try:
            self._write(cycle, (500, error_body("internal_error", UNEXPECTED), []))
        except Exception:
            log.exception("the 500 answer could not be written either")
            self.transport.close()

    def _answer(self, cycle: DirectCycle, answer: Answer) -> None:
        if self.flow.write_paused and not cycle.disconnected:
            self._start(self._answer_later(cycle, answer))
        else:
            self._write(cycle, answer)

    async def _answer_later(self, cycle: DirectCycle, answer: Answer) -> None:
        await self.flow.drain()  # the client is not reading: uvicorn's send waits so too
        try:
            self._write(cycle, answer)
        except Exception as error:
            self._fail(cycle, error)

    def _write(self, cycle: DirectCycle, answer: Answer) -> None:
        """Write the answer as uvicorn would (see RequestResponseCycle.send), in one write."""
        if cycle.disconnected:
            return
        status, body, headers = answer
        if self.access_log:
            client = f"{self.client[0]}:{self.client[1]}" if self.client else ""
            method = "POST" if cycle.posting else "GET"
            self.access_logger.info(
                '%s - "%s %s HTTP/%s" %d', client, method, cycle.url.decode(), "1.1", status
            )
        content = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            content += (name, b": ", value, b"\r\n")
        for name, value in headers:
            content += (name, b": ", value, b"\r\n")
        content.append(JSON_HEAD % len(body))
        if not cycle.keep_alive:
            content.append(b"connection: close\r\n")
        content += (b"\r\n", body)
        self.transport.write(b"".join(content))
        cycle.response_complete = True
        if not cycle.keep_alive:
            self.transport.close()
        self.on_response_complete()
