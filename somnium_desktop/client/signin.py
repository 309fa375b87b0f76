"""The app's side of sign-in: PKCE, state, the system browser, loopback redirect, exchange."""

from __future__ import annotations

import base64
import hashlib
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import requests

from .loopback import SIGNED_IN, ListenerClosed, LoopbackListener, Page
from .outside import system_browser

CLIENT_ID = "somnium-desktop"
SIGNIN_TIMEOUT = 300.0
HTTP_TIMEOUT = 15.0


class SigninError(Exception):
    """The sign-in did not end with tokens; the message is for the player."""


class SigninCancelled(SigninError):
    """The player cancelled."""


class SigninTimedOut(SigninError):
    """No answer came back from the browser in time."""


class SigninRejected(SigninError):
    """The server or the provider said no (an OAuth error code and its description)."""

    def __init__(self, error: str, description: str | None = None) -> None:
        super().__init__(f"{error}: {description}" if description else error)
        self.error = error
        self.description = description


@dataclass(frozen=True)
class TokenSet:
    """What the token endpoint hands out: a short-lived access token and a refresh token."""

    access_token: str
    refresh_token: str
    expires_in: int

    @classmethod
    def from_response(cls, body: dict[str, Any]) -> TokenSet:
        try:
            return cls(
                access_token=str(body["access_token"]),
                refresh_token=str(body["refresh_token"]),
                expires_in=int(body.get("expires_in", 0)),
            )
        except (KeyError, TypeError, ValueError):
            raise SigninRejected("invalid_response", "the server sent no tokens") from None


def new_state() -> str:
    """An unguessable value tying the redirect to this sign-in."""
    return secrets.token_urlsafe(32)


def new_code_verifier() -> str:
    """A PKCE code verifier (RFC 7636: 43 to 128 unreserved characters)."""
    return secrets.token_urlsafe(64)


def code_challenge(verifier: str) -> str:
    """The S256 challenge of a verifier."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def token_request(
    http: requests.Session, server_url: str, form: dict[str, str]
) -> dict[str, Any]:
    """POST to the token endpoint; the JSON body, or SigninRejected with the server's error."""
    try:
        response = http.post(f"{server_url}/auth/token", data=form, timeout=HTTP_TIMEOUT)
    except requests.RequestException as exc:
        raise SigninError(f"the server could not be reached: {exc}") from exc
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise SigninRejected("invalid_response", f"HTTP {response.status_code}")
    if response.status_code != 200 or "error" in body:
        raise SigninRejected(str(body.get("error", "invalid_response")),
                             body.get("error_description"))
    return body


class SigninFlow:
    """One sign-in through the system browser against a lobby server.

    `start()` opens the loopback listener and builds the URL; `run()` opens the browser, waits
    for the redirect, exchanges the code and tells the browser how it went. `cancel()` may be
    called from any thread. The listener is closed on every outcome.
    """

    def __init__(
        self,
        server_url: str,
        open_browser: Callable[[str], object] = system_browser,
        timeout: float = SIGNIN_TIMEOUT,
        http: requests.Session | None = None,
    ) -> None:
        self.server_url = server_url.rstrip("/")
        self.timeout = timeout
        self._open_browser = open_browser
        self._http = http or requests.Session()
        self._state = new_state()
        self._verifier = new_code_verifier()
        self._listener: LoopbackListener | None = None
        self._url: str | None = None
        self._cancelled = threading.Event()
        self.deadline = 0.0

    @property
    def listener(self) -> LoopbackListener | None:
        return self._listener

    @property
    def authorize_url(self) -> str:
        return self.start()

    def start(self) -> str:
        """Listen on the loopback address and return the URL to open in the browser."""
        if self._url is None:
            self._listener = LoopbackListener(self._state)
            self.deadline = time.monotonic() + self.timeout
            query = urlencode(
                {
                    "response_type": "code",
                    "client_id": CLIENT_ID,
                    "redirect_uri": self._listener.redirect_uri,
                    "state": self._state,
                    "code_challenge": code_challenge(self._verifier),
                    "code_challenge_method": "S256",
                }
            )
            self._url = f"{self.server_url}/auth/authorize?{query}"
        return self._url

    def cancel(self) -> None:
        self._cancelled.set()
        if self._listener is not None:
            self._listener.cancel()

    def close(self) -> None:
        """Stop listening without running (for a flow that was started but never run)."""
        if self._listener is not None:
            self._listener.close()

    def run(self) -> TokenSet:
        """Sign in; TokenSet on success, a SigninError otherwise."""
        url = self.start()
        listener = self._listener
        assert listener is not None
        try:
            if self._cancelled.is_set():
                raise SigninCancelled("sign-in cancelled")
            self._open_browser(url)
            try:
                callback = listener.wait(self.deadline - time.monotonic())
            except ListenerClosed:
                raise SigninCancelled("sign-in cancelled") from None
            except TimeoutError:
                raise SigninTimedOut("no answer from the browser within the time allowed") from None
            try:
                if callback.error is not None or callback.code is None:
                    raise SigninRejected(callback.error or "invalid_request",
                                         callback.error_description)
                tokens = TokenSet.from_response(
                    token_request(self._http, self.server_url, {
                        "grant_type": "authorization_code",
                        "code": callback.code,
                        "redirect_uri": listener.redirect_uri,
                        "client_id": CLIENT_ID,
                        "code_verifier": self._verifier,
                    })
                )
            except SigninError as exc:
                listener.finish(Page("Sign-in failed", str(exc), ok=False))
                raise
            listener.finish(SIGNED_IN)
            return tokens
        finally:
            listener.close()
