"""What sign-in keeps, through the server's storage: secrets hashed before they get there.

The records live behind `SigninStorage` (storage/__init__.py), which every storage backend provides.
This layer is the one place sign-in's secrets (codes, refresh tokens, our state toward the
provider) are turned into the SHA-256 hashes that alone are stored, and it tells how a
presented refresh token fares.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from somnium_server.storage import AuthRequest, CodeGrant, PendingLogin, Refresh, SigninStorage


def digest(secret: str) -> str:
    """The only form in which a sign-in secret is stored."""
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    return secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class RefreshUse:
    outcome: Refresh
    family_id: str | None = None
    user_id: str | None = None
    client_id: str | None = None


class SigninStore:
    """Sign-in's records in `storage`, addressed by their secrets."""

    def __init__(
        self, storage: SigninStorage, clock: Callable[[], float] = time.time
    ) -> None:
        self.storage = storage
        self.clock = clock

    # Browser sign-ins under way.

    async def add_request(self, request: AuthRequest) -> None:
        await self.storage.add_signin_request(request)

    async def get_request(self, request_id: str) -> AuthRequest | None:
        return await self.storage.get_signin_request(request_id, self.clock())

    async def send_to_provider(
        self, request_id: str, provider: str, state: str, nonce: str, code_verifier: str
    ) -> bool:
        """Remember our state, nonce and verifier toward the provider for this request."""
        return await self.storage.send_to_provider(
            request_id, provider, digest(state), nonce, code_verifier, self.clock()
        )

    async def take_login(self, provider_state: str) -> PendingLogin | None:
        """The sign-in our state toward the provider names, removed: it can be used only once."""
        pending = await self.storage.take_login(digest(provider_state))
        if pending is None or pending.request.expires_at <= self.clock():
            return None
        return pending

    async def drop_request(self, request_id: str) -> None:
        await self.storage.drop_signin_request(request_id)

    # One-time codes.

    async def add_code(self, code: str, grant: CodeGrant) -> None:
        await self.storage.add_code(digest(code), grant)

    async def take_code(self, code: str, family_id: str) -> tuple[CodeGrant | None, str | None]:
        """Redeem a code for `family_id`, made with it: (grant, None) the first time; (None,
        the family it was redeemed for) when it is presented again; (None, None) when
        unknown."""
        return await self.storage.redeem_code(digest(code), family_id, self.clock())

    # Refresh-token families.

    async def add_family(self, family_id: str, user_id: str, client_id: str) -> None:
        await self.storage.add_family(family_id, user_id, client_id, self.clock())

    async def add_refresh_token(self, token: str, family_id: str, expires_at: float) -> None:
        await self.storage.add_refresh_token(digest(token), family_id, expires_at)

    async def add_family_session(self, family_id: str, session_hash: str) -> None:
        await self.storage.add_family_session(family_id, session_hash)

    async def use_refresh_token(self, token: str) -> RefreshUse:
        """Spend a refresh token (each is good once); tells a reuse apart from a stranger."""
        now = self.clock()
        found = await self.storage.spend_refresh_token(digest(token), now)
        outcome = Refresh.of(found, now)
        if found is None:
            return RefreshUse(outcome)
        return RefreshUse(outcome, found.family_id, found.user_id, found.client_id)

    async def family_of_session(self, session_hash: str) -> str | None:
        return await self.storage.family_of_session(session_hash)

    async def family_revoked(self, family_id: str) -> bool:
        return await self.storage.family_revoked(family_id)

    async def family_of_refresh_token(self, token: str) -> str | None:
        return await self.storage.family_of_refresh_token(digest(token))

    async def revoke_family(self, family_id: str) -> list[str]:
        """Revoke a family; the session hashes it issued, for the caller to end."""
        return await self.storage.revoke_family(family_id, self.clock())
