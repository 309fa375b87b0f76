"""Sign-in's records and its part of the storage interface (SigninStorage)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class AuthRequest:
    """The app's authorization request, checked, while the person signs in in the browser."""

    id: str
    browser_hash: str
    client_id: str
    redirect_uri: str
    app_state: str
    code_challenge: str
    expires_at: float


@dataclass(frozen=True, slots=True)
class PendingLogin:
    """An AuthRequest whose person was sent to a provider, with our nonce and PKCE verifier."""

    request: AuthRequest
    provider: str
    nonce: str
    code_verifier: str


@dataclass(frozen=True, slots=True)
class CodeGrant:
    """What a one-time code stands for."""

    user_id: str
    client_id: str
    redirect_uri: str
    code_challenge: str
    expires_at: float


@dataclass(frozen=True, slots=True)
class RefreshToken:
    """A refresh token as stored (by its hash), with its family."""

    family_id: str
    expires_at: float
    used_at: float | None
    user_id: str
    client_id: str
    family_revoked_at: float | None


class Refresh(enum.Enum):
    """How a presented refresh token fared."""

    OK = "ok"
    UNKNOWN = "unknown"
    EXPIRED = "expired"
    REUSED = "reused"
    REVOKED = "revoked"

    @classmethod
    def of(cls, token: RefreshToken | None, now: float) -> Refresh:
        if token is None:
            return cls.UNKNOWN
        if token.family_revoked_at is not None:
            return cls.REVOKED
        if token.used_at is not None:
            return cls.REUSED
        if token.expires_at <= now:
            return cls.EXPIRED
        return cls.OK


class SigninStorage(Protocol):
    """What sign-in keeps: browser sign-ins under way, one-time codes, refresh-token families.

    Secrets (codes, refresh tokens, the browser binding, our state toward the provider) reach
    the backend only as hashes (signin/store.py hashes them); `now` is the caller's clock.
    """

    async def add_signin_request(self, request: AuthRequest) -> None: ...

    async def get_signin_request(self, request_id: str, now: float) -> AuthRequest | None:
        """The request, unless unknown or expired."""
        ...

    async def send_to_provider(
        self, request_id: str, provider: str, state_hash: str, nonce: str, code_verifier: str,
        now: float,
    ) -> bool:
        """Note where an unexpired request was sent; False if it is gone."""
        ...

    async def take_login(self, state_hash: str) -> PendingLogin | None:
        """The request sent to a provider with this state, removed (expired or not)."""
        ...

    async def drop_signin_request(self, request_id: str) -> None: ...

    async def add_code(self, code_hash: str, grant: CodeGrant) -> None: ...

    async def redeem_code(
        self, code_hash: str, family_id: str, now: float
    ) -> tuple[CodeGrant | None, str | None]:
        """Mark a code redeemed for `family_id` and make that family (created `now`), in one
        transaction: (grant, None) the first time; (None, the family it was redeemed for)
        when it was redeemed before; (None, None) if unknown. So a second use, however soon,
        finds the family to revoke."""
        ...

    async def add_family(
        self, family_id: str, user_id: str, client_id: str, created_at: float
    ) -> None: ...

    async def add_refresh_token(
        self, token_hash: str, family_id: str, expires_at: float
    ) -> None: ...

    async def add_family_session(self, family_id: str, session_hash: str) -> None: ...

    async def spend_refresh_token(self, token_hash: str, now: float) -> RefreshToken | None:
        """The token as it was, marked used at `now` in the same transaction if it was usable
        (unused, unrevoked, unexpired)."""
        ...

    async def family_of_session(self, session_hash: str) -> str | None: ...

    async def family_of_refresh_token(self, token_hash: str) -> str | None: ...

    async def family_revoked(self, family_id: str) -> bool:
        """True if the family was revoked (or is unknown)."""
        ...

    async def revoke_family(self, family_id: str, now: float) -> list[str]:
        """Revoke a family; the hashes of the sessions it issued, for the caller to end."""
        ...

    async def purge_signin(self, now: float) -> None:
        """Forget what has run out: requests, codes an hour after their expiry (until then a
        reuse is recognised), refresh tokens a day after theirs, links to sessions no longer
        stored, and families more than a day old with neither tokens nor sessions left."""
        ...
