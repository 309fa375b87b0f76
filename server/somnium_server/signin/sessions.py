"""Users' sessions: opaque bearer tokens, stored only as SHA-256 hashes, each with an expiry.

Sign-in calls `issue_session` once it knows who the user is; routes depend on `current_user`.
`sweep` deletes them once expired, with what sign-in kept about them.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time

from somnium_server.signin.refused import RefusedTokens
from somnium_server.storage import Session, Storage, User

TOKEN_BYTES = 32
SWEEP_EVERY = 3600.0  # seconds between sweeps of expired sessions and sign-in records
log = logging.getLogger("somnium_server.signin.sessions")


def hash_token(token: str) -> str:
    """The only form in which a token is ever stored."""
    return hashlib.sha256(token.encode()).hexdigest()


async def issue_session(storage: Storage, user_id: str, lifetime: float) -> str:
    """A new session for `user_id` lasting `lifetime` seconds; returns the bearer token."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    now = time.time()
    await storage.create_session(
        Session(token_hash=hash_token(token), user_id=user_id, created_at=now,
                expires_at=now + lifetime)
    )
    return token


async def user_for_token(
    storage: Storage, token: str, refused: RefusedTokens | None = None
) -> User | None:
    """The user a token signs in as, or None if it is unknown or expired. A token `refused`
    lately is refused again without asking the storage, and one refused now is kept there."""
    if not token or len(token) > 512:
        return None
    token_hash = hash_token(token)
    if refused is not None and refused.refused(token_hash):
        return None
    user = await storage.session_user(token_hash, time.time())
    if user is None and refused is not None:
        refused.add(token_hash)
    return user


async def revoke_session(storage: Storage, token: str) -> None:
    """Sign out: the token stops working at once."""
    await storage.delete_session(hash_token(token))



async def sweep(storage: Storage, every: float = SWEEP_EVERY) -> None:
    """Until cancelled, from now on every `every` seconds: delete expired sessions, then the
    sign-in records nothing needs any more (every refresh makes a session and a refresh token,
    which would otherwise pile up for good)."""
    while True:
        now = time.time()
        try:
            ended = await storage.purge_sessions(now)
            await storage.purge_signin(now)
        except Exception as error:  # the database is busy or full: try again next time
            log.warning("sweeping expired sessions failed: %s", error)
        else:
            log.debug("swept %d expired sessions", ended)
        await asyncio.sleep(every)
