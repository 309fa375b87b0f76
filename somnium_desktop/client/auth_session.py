"""A signed-in connection to a lobby server: access token in memory, refresh token in a store."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Any

import requests

from .credentials import Stored, TokenStore, refresh_lock
from .signin import CLIENT_ID, HTTP_TIMEOUT, SigninRejected, TokenSet, token_request


class SignInRequired(Exception):
    """There is no valid sign-in for this server any more: the player must sign in again."""


class AuthSession:
    """Sends authorized requests; on a 401 it refreshes once and retries.

    The refresh token rotates on every refresh and the new one replaces the old in the store.
    A refresh token the server no longer accepts is removed from the store and SignInRequired
    is raised. The store is shared by every window of the app of this user (one sign-in per
    server per user): refreshes take turns under a lock across processes, and each is made
    with the token the store holds then, whoever put it there.
    """

    def __init__(
        self,
        server_url: str,
        store: TokenStore,
        http: requests.Session | None = None,
        lock_path: Path | None = None,
    ) -> None:
        self.server_url = server_url.rstrip("/")
        self.store = store
        self.http = http or requests.Session()
        self.lock_path = lock_path
        self.user_id: str | None = None  # whose sign-in this is, once known (claim)
        self._access_token: str | None = None
        self._lock = threading.Lock()

    @property
    def access_token(self) -> str | None:
        """The current access token, if one was had (it may have expired meanwhile)."""
        return self._access_token

    @property
    def signed_in(self) -> bool:
        return self._access_token is not None or self.store.load() is not None

    def stored(self) -> Stored | None:
        """What the store holds now (another window may have changed it)."""
        return Stored.read(self.store)

    def adopt(self, tokens: TokenSet) -> None:
        """Take the tokens of a finished sign-in."""
        with self._lock:
            Stored(tokens.refresh_token).write(self.store)
            self.user_id = None
            self._access_token = tokens.access_token

    def claim(self, user_id: str) -> None:
        """Note whose sign-in this is (learnt from /me), beside the refresh token."""
        with self._lock, refresh_lock(self.lock_path):
            self.user_id = user_id
            stored = self.stored()
            if stored is not None and stored.user_id != user_id:
                Stored(stored.refresh_token, user_id).write(self.store)

    def forget_access(self, token: str | None = None) -> None:
        """Drop the access token (only if it is still `token`, when given): the next request
        refreshes with what the store holds."""
        with self._lock:
            if token is None or token == self._access_token:
                self._access_token = None

    def refresh(self) -> None:
        """Trade the stored refresh token for new tokens; SignInRequired when it is dead."""
        with self._lock, refresh_lock(self.lock_path):
            stored = self.stored()
            if stored is None:
                self._access_token = None
                raise SignInRequired("not signed in")
            try:
                body = token_request(self.http, self.server_url, {
                    "grant_type": "refresh_token",
                    "refresh_token": stored.refresh_token,
                    "client_id": CLIENT_ID,
                })
            except SigninRejected as exc:
                if exc.error in ("invalid_grant", "invalid_client", "unauthorized_client"):
                    self.store.clear()
                    self._access_token = None
                    raise SignInRequired("the sign-in has expired; sign in again") from exc
                raise
            tokens = TokenSet.from_response(body)
            Stored(tokens.refresh_token, stored.user_id).write(self.store)
            self.user_id = stored.user_id
            self._access_token = tokens.access_token

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        """An authorized request to the server; one refresh and retry on 401."""
        kwargs.setdefault("timeout", HTTP_TIMEOUT)
        if self._access_token is None:
            self.refresh()
        response = self._send(method, path, kwargs)
        if response.status_code == 401:
            self.refresh()
            response = self._send(method, path, kwargs)
        return response

    def _send(self, method: str, path: str, kwargs: dict[str, Any]) -> requests.Response:
        headers = {**(kwargs.get("headers") or {}), "Authorization": f"Bearer {self._access_token}"}
        rest = {k: v for k, v in kwargs.items() if k != "headers"}
        return self.http.request(method, f"{self.server_url}{path}", headers=headers, **rest)

    def sign_out(self) -> None:
        """Revoke the refresh token (and with it its family) at the server, and forget both."""
        with self._lock, refresh_lock(self.lock_path):  # (not amid another window's refresh)
            stored = self.stored()
            self.store.clear()
            self._access_token = None
        if stored is not None:
            refresh_token = stored.refresh_token
            # Forgotten locally even if the server cannot be reached: its tokens expire anyway.
            with contextlib.suppress(requests.RequestException):
                self.http.post(
                    f"{self.server_url}/auth/revoke",
                    data={"token": refresh_token, "client_id": CLIENT_ID},
                    timeout=HTTP_TIMEOUT,
                )
