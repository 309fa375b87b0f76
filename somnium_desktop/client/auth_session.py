"""A signed-in connection to a lobby server: access token in memory, refresh token in a store."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import requests

from .credentials import Stored, TokenStore, refresh_lock
from .errors import KeyringFailed, keyring_answers
from .signin import CLIENT_ID, HTTP_TIMEOUT, SigninRejected, TokenSet, token_request

# What the token endpoint answers when a refresh token can no longer be used: the sign-in ends.
SIGN_IN_ENDED = ("invalid_grant", "invalid_client", "unauthorized_client")

# An access token is renewed before a new connection once this close to its end (or, for a
# short-lived one, once nine tenths of its life have gone), so a stream is never refused for it.
RENEW_BEFORE = 30.0

log = logging.getLogger(__name__)


def renew_at(expires_in: int) -> float | None:
    """When (monotonic) an access token lasting `expires_in` seconds from now is due for
    renewal; None when its lifetime is not known (0)."""
    if expires_in <= 0:
        return None
    return time.monotonic() + expires_in - min(RENEW_BEFORE, expires_in / 10)


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
        self._renew_at: float | None = None  # (monotonic) when the access token is due
        # a renewed sign-in the store could not take (a keyring locked as it was written):
        # the spent one is still there, so this one is used, and written, at the next renewal
        self._unwritten: Stored | None = None
        self._forgotten = 0  # how often the access token was dropped whatever it was
        # Refreshes, sign-ins and sign-outs of this app take turns (held over the network and
        # the keyring); the access token has a lock of its own, never held that long.
        self._turns = threading.Lock()
        self._token_lock = threading.Lock()

    @property
    def access_token(self) -> str | None:
        """The current access token, if one was had (it may have expired meanwhile)."""
        return self._access_token

    @property
    def access_due(self) -> bool:
        """Whether the access token is missing, or known to expire soon (RENEW_BEFORE) or
        to have expired: a new connection should renew it first."""
        with self._token_lock:
            return self._access_token is None or (
                self._renew_at is not None and time.monotonic() >= self._renew_at)

    @property
    def signed_in(self) -> bool:
        if self._access_token is not None:
            return True
        with keyring_answers("read"):
            return self.store.load() is not None

    def stored(self) -> Stored | None:
        """What the store holds now (another window may have changed it); KeyringFailed when
        it cannot be read."""
        with keyring_answers("read"):
            return Stored.read(self.store)

    def _keep(self, stored: Stored | None) -> None:
        """Put `stored` in the store (None: clear it); KeyringFailed when it cannot be."""
        with keyring_answers("written"):
            if stored is None:
                self.store.clear()
            else:
                stored.write(self.store)

    @contextlib.contextmanager
    def _turn(self) -> Iterator[None]:
        """This app's turn with the stored sign-in: in this process, and across every window
        of this user (refresh_lock)."""
        with self._turns, contextlib.ExitStack() as held:
            with keyring_answers("read"):
                held.enter_context(refresh_lock(self.lock_path))
            yield

    def _set_access(self, token: str | None, expires_in: int = 0) -> None:
        with self._token_lock:
            self._access_token = token
            self._renew_at = renew_at(expires_in)

    def adopt(self, tokens: TokenSet) -> None:
        """Take the tokens of a finished sign-in (not amid another window's refresh, which
        would put back the sign-in it renewed)."""
        with self._turn():
            self._keep(Stored(tokens.refresh_token))
            self.user_id = None
            self._set_access(tokens.access_token, tokens.expires_in)

    def claim(self, user_id: str) -> None:
        """Note whose sign-in this is (learnt from /me), beside the refresh token."""
        with self._turn():
            self.user_id = user_id
            stored = self.stored()
            if stored is not None and stored.user_id != user_id:
                self._keep(Stored(stored.refresh_token, user_id))

    def forget_access(self, token: str | None = None) -> None:
        """Drop the access token (only if it is still `token`, when given): the next request
        refreshes with what the store holds. Waits on no refresh (the UI thread calls it);
        without `token`, a refresh on its way keeps nothing either, since what the store held
        when it began may be another account's sign-in than the one it holds now."""
        with self._token_lock:
            if token is None:
                self._forgotten += 1
                self._access_token = None
                self._unwritten = None  # (the store's sign-in is the one to renew now)
            elif token == self._access_token:
                self._access_token = None

    def refresh(self) -> None:
        """Trade the stored refresh token for new tokens; SignInRequired when it is dead,
        KeyringFailed when the store cannot be read. New tokens the store cannot take are
        used all the same, and written at the next renewal."""
        with self._turn():
            self._refresh_in_turn()

    def renew_if_due(self) -> None:
        """Refresh when the access token is due (access_due), as found once it is this
        app's turn: of several connections asking at once, the first renews it, the others
        find it fresh. Raises as refresh() does."""
        with self._turn():
            if self.access_due:
                self._refresh_in_turn()

    def _refresh_in_turn(self) -> None:
        """refresh(), while this app has its turn with the stored sign-in."""
        forgotten = self._forgotten
        stored = self._unwritten or self.stored()
        if stored is None:
            self._set_access(None)
            raise SignInRequired("not signed in")
        try:
            body = token_request(self.http, self.server_url, {
                "grant_type": "refresh_token",
                "refresh_token": stored.refresh_token,
                "client_id": CLIENT_ID,
            })
        except SigninRejected as exc:
            if exc.error in SIGN_IN_ENDED:
                self._unwritten = None
                self._keep(None)
                self._set_access(None)
                raise SignInRequired("the sign-in has expired; sign in again") from exc
            raise
        tokens = TokenSet.from_response(body)
        renewed = Stored(tokens.refresh_token, stored.user_id)  # (the old one is spent)
        try:
            self._keep(renewed)
            unwritten = None
        except KeyringFailed as error:  # (kept here: the player plays on meanwhile)
            log.warning("the renewed sign-in waits to be kept: %s", error)
            unwritten = renewed
        self.user_id = stored.user_id
        with self._token_lock:
            if self._forgotten == forgotten:  # (else the next request refreshes again)
                self._access_token = tokens.access_token
                self._renew_at = renew_at(tokens.expires_in)
                self._unwritten = unwritten

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        """An authorized request to the server, the access token renewed first when it is
        due (access_due); one refresh and retry on 401."""
        kwargs.setdefault("timeout", HTTP_TIMEOUT)
        for _ in range(2):  # (a second time if a forget came amid the first refresh)
            if not self.access_due:
                break
            self.renew_if_due()
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
        with self._turn():  # (not amid another window's refresh)
            stored = self._unwritten or self.stored()
            self._unwritten = None
            self._keep(None)
            self._set_access(None)
        if stored is not None:
            refresh_token = stored.refresh_token
            # Forgotten locally even if the server cannot be reached: its tokens expire anyway.
            with contextlib.suppress(requests.RequestException):
                self.http.post(
                    f"{self.server_url}/auth/revoke",
                    data={"token": refresh_token, "client_id": CLIENT_ID},
                    timeout=HTTP_TIMEOUT,
                )
