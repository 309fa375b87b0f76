"""Server-sent event streams: the framing, and a reader that reconnects by itself and resumes.

No Qt here: the reader calls plain callbacks on its own thread; the Qt side moves them to the
UI thread (see online.py and the lobby controller).
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import requests

from .answers import (
    NO_HTTP,
    Misanswered,
    http_error,
    lobby_message,
    not_http,
    retry_after,
    what_it_sent,
)

log = logging.getLogger("somnium_desktop.sse")

# The server sends a keep-alive comment every 15 s by default: a read that waits this long
# means the connection is dead (a laptop woke up, a proxy dropped it), so reconnect.
READ_TIMEOUT = 45.0
CONNECT_TIMEOUT = 5.0
BACKOFF = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0)  # seconds before each retry in a row


@dataclass(frozen=True, slots=True)
class ServerEvent:
    """One event of a stream: its name, its data (JSON text here) and its id, if any."""

    event: str
    data: str
    id: str | None

    def json(self) -> Any:
        return json.loads(self.data)


class SSEParser:
    """Turns the bytes of a text/event-stream into events.

    Lines end with LF or CRLF (a lone CR is not treated as a line end). A blank line ends an
    event; `:` starts a comment (keep-alives); `id:` sets the last event id, which carries over
    to later events without one, as the SSE standard says.
    """

    def __init__(self, last_id: str | None = None) -> None:
        self.last_id = last_id
        self._pending = b""
        self._event = ""
        self._data: list[str] = []
        self._id_seen: str | None = None

    def feed(self, chunk: bytes) -> list[ServerEvent]:
        out: list[ServerEvent] = []
        self._pending += chunk
        *lines, self._pending = self._pending.split(b"\n")
        for raw in lines:
            line = raw[:-1] if raw.endswith(b"\r") else raw
            event = self._line(line.decode("utf-8", errors="replace"))
            if event is not None:
                out.append(event)
        return out

    def _line(self, line: str) -> ServerEvent | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id_seen = value
        return None

    def _dispatch(self) -> ServerEvent | None:
        if self._id_seen is not None:
            self.last_id = self._id_seen or None
        event_id, self._id_seen = self._id_seen, None
        name, self._event = self._event or "message", ""
        data, self._data = self._data, []
        if not data:
            return None
        return ServerEvent(name, "\n".join(data), event_id)


class StreamGone(Exception):
    """The stream cannot be had at all (e.g. the game does not exist): no use retrying."""


def _abort(response: requests.Response) -> None:
    """Wake a reader waiting on this response's socket, from another thread: the read ends
    (the reader closes the response itself; closing it from here races with the read)."""
    connection = getattr(response.raw, "connection", None)
    sock = getattr(connection, "sock", None)
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _refusal(response: requests.Response) -> str:
    return lobby_message(response) or f"HTTP {response.status_code}"


class EventStream:
    """Keeps one event stream open on a thread of its own, reconnecting by itself.

    Each reconnection sends the id of the last event seen as `Last-Event-ID`, so the server
    replays what was missed (or sends a fresh snapshot when it cannot). Retries back off
    (BACKOFF) and start again from the shortest delay once a connection delivers. A read
    waits at most `read_timeout` (longer than the server's keep-alive interval).

    `headers()` gives each connection's extra headers (a sign-in; raising RequestException
    there is a failed try); `refused(headers)` is told when the server refused them (401),
    before the next try.

    `on_event(event)` and `on_status(status, detail)` are called on the reader's thread;
    status is "connected", "reconnecting" (detail: why), "misanswered" (the server answers,
    but not with the stream: an HTTP error, a web page, no HTTP at all; detail: what it sent;
    the reader tries again, not before the Retry-After of a 429) or "failed" (detail: why;
    the reader has stopped). Nothing is called after close().
    """

    def __init__(
        self,
        url: Callable[[], str],
        on_event: Callable[[ServerEvent], None],
        on_status: Callable[[str, str], None] | None = None,
        *,
        headers: Callable[[], dict[str, str]] | None = None,
        refused: Callable[[dict[str, str]], None] | None = None,
        last_event_id: str | None = None,
        read_timeout: float = READ_TIMEOUT,
        backoff: Sequence[float] = BACKOFF,
        name: str = "events",
    ) -> None:
        self._url = url
        self._on_event = on_event
        self._on_status = on_status
        self._headers = headers
        self._refused = refused  # told of a 401 (the headers' sign-in), before trying again
        self.last_event_id = last_event_id
        self.read_timeout = read_timeout
        self.backoff = tuple(backoff)
        self.connections = 0  # how many times a stream was opened (for tests and logs)
        self.connected = False
        self._stop = threading.Event()
        self._response: requests.Response | None = None
        self._http = requests.Session()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def closed(self) -> bool:
        return self._stop.is_set()

    def close(self) -> None:
        """Stop reading; returns at once (the thread ends on its own)."""
        self._stop.set()
        response = self._response
        if response is not None:
            _abort(response)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the reader's thread to end (after close); True if it did."""
        if self._thread.is_alive():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    # ----- on the reader's thread -----
    def _run(self) -> None:
        failures = 0
        try:
            while not self._stop.is_set():
                try:
                    delivered = self._read_once()
                    reason = "the server ended the stream"
                except StreamGone as gone:
                    log.warning("%s: %s", self._thread.name, gone)
                    self._status("failed", str(gone))
                    return
                except (Misanswered, requests.RequestException, OSError, ValueError) as error:
                    delivered = False
                    reason = _plain(error)
                    if isinstance(error, Misanswered) or not_http(error):
                        reason = str(error) if isinstance(error, Misanswered) else NO_HTTP
                        log.warning("%s: the server answers, but %s", self._thread.name, reason)
                        self._status("misanswered", reason)
                        failures += 1
                        wait = error.wait if isinstance(error, Misanswered) else 0.0
                        self._stop.wait(max(self._delay(failures), wait))
                        continue
                except Exception as error:
                    if self._stop.is_set():  # closed under the read: whatever it raised
                        return
                    self._status("failed", f"something went wrong: {error}")
                    raise
                if self._stop.is_set():
                    return
                failures = 0 if delivered else failures + 1
                delay = self._delay(failures)
                log.info("%s: %s; reconnecting in %.2f s", self._thread.name, reason, delay)
                self._status("reconnecting", reason)
                self._stop.wait(delay)
        finally:
            self._http.close()

    def _delay(self, failures: int) -> float:
        """Seconds before the next try, after `failures` in a row (with some jitter)."""
        return self.backoff[min(failures, len(self.backoff) - 1)] * random.uniform(0.8, 1.2)

    def _read_once(self) -> bool:
        """One connection, read until it ends; True if it delivered any event."""
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        if self._headers is not None:
            headers.update(self._headers())
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        response = self._http.get(
            self._url(), headers=headers, stream=True,
            timeout=(CONNECT_TIMEOUT, self.read_timeout),
        )
        self._response = response
        try:
            if self._stop.is_set():
                return False
            # (a lobby server's own refusal: no such game; another server's "404 Not Found"
            # page is no lobby server's answer, and is tried again like any misanswer)
            gone = lobby_message(response) if response.status_code in (404, 410, 422) else ""
            if gone:
                raise StreamGone(gone)
            if response.status_code == 401:
                if self._refused is not None:
                    self._refused(headers)
                raise requests.HTTPError(f"the server answered {_refusal(response)}")
            if response.status_code != 200:  # (a 429 is tried again after its Retry-After)
                raise Misanswered(http_error(response), retry_after(response))
            if not response.headers.get("Content-Type", "").startswith("text/event-stream"):
                raise Misanswered(what_it_sent(response, "the lobby's events"))
            self.connections += 1
            self.connected = True
            self._status("connected", "")
            parser = SSEParser(self.last_event_id)
            delivered = False
            for chunk in response.iter_content(chunk_size=None):
                for event in parser.feed(chunk):
                    if self._stop.is_set():
                        return delivered
                    self.last_event_id = parser.last_id
                    delivered = True
                    self._on_event(event)
            return delivered
        finally:
            self.connected = False
            self._response = None
            response.close()

    def _status(self, status: str, detail: str) -> None:
        if self._on_status is not None and not self._stop.is_set():
            self._on_status(status, detail)


def _plain(error: BaseException) -> str:
    """Why a stream broke, in a few words for a log or a status line."""
    if isinstance(error, requests.Timeout | TimeoutError):
        return "the server went quiet"
    if isinstance(error, requests.ConnectionError | ConnectionError):
        return "the connection to the server was lost"
    return str(error) or type(error).__name__
