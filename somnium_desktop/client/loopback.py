"""The sign-in's loopback redirect listener: one path on 127.0.0.1, one state, then closed."""

from __future__ import annotations

import html
import queue
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

CALLBACK_PATH = "/callback"
# How long the browser's request is held open while the app exchanges the code.
FINISH_WAIT = 60.0


@dataclass(frozen=True)
class Callback:
    """What the authorization server sent back to the loopback address for our state."""

    code: str | None
    error: str | None
    error_description: str | None


@dataclass(frozen=True)
class Page:
    """The page the browser shows at the end of the flow."""

    title: str
    message: str
    ok: bool

    def render(self) -> bytes:
        colour = "#1b5e20" if self.ok else "#b71c1c"
        return (
            "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{html.escape(self.title)}</title></head>"
            "<body style='font-family: sans-serif; margin: 3em; text-align: center'>"
            f"<h1 style='color: {colour}'>{html.escape(self.title)}</h1>"
            f"<p>{html.escape(self.message)}</p></body></html>"
        ).encode()


SIGNED_IN = Page("Signed in — return to Somnium", "You can close this tab.", ok=True)
CANCELLED = Page("Sign-in cancelled", "Somnium stopped waiting for this sign-in.", ok=False)


class ListenerClosed(Exception):
    """The listener was closed (cancelled) while waiting for the callback."""


class _Cancel:
    """Queue sentinel: stop waiting."""


class LoopbackListener:
    """An HTTP listener on 127.0.0.1 and an ephemeral port for one sign-in's redirect.

    Only GET on the exact callback path with the expected state counts; anything else (a favicon,
    a stray hit, a wrong state) gets an error answer and the flow goes on waiting. The matching
    request is held open until `finish` says what the browser should show.
    """

    def __init__(self, state: str, host: str = "127.0.0.1") -> None:
        self._state = state
        self._results: queue.Queue[Callback | _Cancel] = queue.Queue()
        self._page: Page | None = None
        self._page_ready = threading.Condition()
        self._taken = False
        self._lock = threading.Lock()
        self._closed = False
        self._server = ThreadingHTTPServer((host, 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    @property
    def closed(self) -> bool:
        return self._closed

    def wait(self, timeout: float) -> Callback:
        """The callback for our state; TimeoutError after `timeout` s, ListenerClosed on cancel."""
        try:
            got = self._results.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise TimeoutError("no answer from the browser in time") from None
        if isinstance(got, _Cancel):
            raise ListenerClosed("the sign-in was cancelled")
        return got

    def cancel(self) -> None:
        """Stop a `wait` in another thread (it raises ListenerClosed)."""
        self._results.put(_Cancel())

    def finish(self, page: Page) -> None:
        """Answer the held browser request (if any) with this page."""
        with self._page_ready:
            if self._page is None:
                self._page = page
            self._page_ready.notify_all()

    def close(self) -> None:
        """Stop listening; a browser request still held gets the cancelled page."""
        if self._closed:
            return
        self._closed = True
        self.cancel()
        self.finish(CANCELLED)
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> LoopbackListener:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # The request side, run on the server's threads.

    def _accept(self, query: dict[str, list[str]]) -> bool:
        """Take the first callback with our state; False if it is not ours or came twice."""
        if query.get("state", [None])[0] != self._state:
            return False
        with self._lock:
            if self._taken:
                return False
            self._taken = True
        self._results.put(
            Callback(
                code=query.get("code", [None])[0],
                error=query.get("error", [None])[0],
                error_description=query.get("error_description", [None])[0],
            )
        )
        return True

    def _await_page(self) -> Page:
        with self._page_ready:
            self._page_ready.wait_for(lambda: self._page is not None, timeout=FINISH_WAIT)
            return self._page or CANCELLED

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlsplit(self.path)
                if url.path != CALLBACK_PATH:
                    self._answer(404, Page("Not found", "Nothing here.", ok=False))
                elif not listener._accept(parse_qs(url.query)):
                    self._answer(
                        400,
                        Page(
                            "Not this sign-in",
                            "This link is not the sign-in Somnium is waiting for.",
                            ok=False,
                        ),
                    )
                else:
                    page = listener._await_page()
                    self._answer(200 if page.ok else 400, page)

            def _answer(self, status: int, page: Page) -> None:
                body = page.render()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                """Stay quiet: the app has its own log."""

        return Handler
