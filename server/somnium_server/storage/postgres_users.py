"""Users, identities and sessions in PostgreSQL, the signed-in user of each token kept a while.

Every signed request asks who its token belongs to. Asking the database each time cost every
action a round trip, so the answer is kept for RECHECK seconds. Sign-out (and revoking a
sign-in's sessions, which signs out each) and renaming change what is kept: the instance that
makes the change forgets at once and tells the others on the notice channel ("signout <token
hash>", "renamed <user id>"), which forget as soon as they hear it. Notices may be lost with
the listening connection: an instance keeps nothing while it is not listening (from the loss
of its connection until it listens again), and forgets everything when the connection is lost.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from somnium_server.storage import Identity, Session, User
from somnium_server.storage.postgres_pool import PooledDatabase
from somnium_server.storage.postgres_schema import CHANNEL

RECHECK = 5.0  # seconds a token's user is kept before the database is asked again
KEPT_LIMIT = 100_000  # tokens kept at most; past it all are forgotten
SIGNED_OUT = "signout"  # notice kinds: "<instance> signout <token hash>"
RENAMED = "renamed"  # "<instance> renamed <user id>"
FORGET_KINDS = frozenset({SIGNED_OUT, RENAMED})


@dataclass(frozen=True, slots=True)
class Signed:
    """What a token was found to sign in as."""

    recheck_at: float  # time.monotonic() after which the database is asked again
    expires_at: float  # the session's end (wall clock, as stored)
    user: User


class PostgresUsers(PooledDatabase):
    """The users and sessions part of PostgresStorage (its subclass sets `instance`)."""

    instance: str

    def __init__(self, url: str, pool_size: int) -> None:
        super().__init__(url, pool_size)
        self._signed: dict[str, Signed] = {}  # token hash -> its user, while kept
        self._forgotten = 0  # counts forgettings: a read that saw one meanwhile is not kept
        self._hearing = False  # the notice channel is heard: what is kept would be told to go

    async def create_user(self, display_name: str) -> User:
        user = User(id=uuid.uuid4().hex, display_name=display_name, created_at=time.time())
        await self._run(
            "INSERT INTO users (id, display_name, created_at) VALUES (?, ?, ?)",
            user.id, user.display_name, user.created_at,
        )
        return user

    async def get_user(self, user_id: str) -> User | None:
        row = await self._one(
            "SELECT id, display_name, created_at FROM users WHERE id = ?", user_id
        )
        return User(*row) if row else None

    async def get_users(self, user_ids: Sequence[str]) -> dict[str, User]:
        rows = await self._all(
            "SELECT id, display_name, created_at FROM users WHERE id = ANY(?)",
            list(set(user_ids)),
        )
        return {row[0]: User(*row) for row in rows}

    async def rename_user(self, user_id: str, display_name: str) -> None:
        self.forget(RENAMED, user_id)
        await self._one(
            "WITH renamed AS (UPDATE users SET display_name = ? WHERE id = ?)"
            " SELECT pg_notify(?, ?)",
            display_name, user_id, CHANNEL, f"{self.instance} {RENAMED} {user_id}",
        )
        self.forget(RENAMED, user_id)  # a read meanwhile may have kept the old name

    async def add_identity(self, identity: Identity) -> None:
        await self._run(
            "INSERT INTO identities (provider, subject, user_id) VALUES (?, ?, ?)",
            identity.provider, identity.subject, identity.user_id,
        )

    async def find_identity(self, provider: str, subject: str) -> Identity | None:
        row = await self._one(
            "SELECT provider, subject, user_id FROM identities"
            " WHERE provider = ? AND subject = ?",
            provider, subject,
        )
        return Identity(*row) if row else None

    async def create_session(self, session: Session) -> None:
        await self._run(
            "INSERT INTO sessions (token_hash, user_id, created_at, expires_at)"
            " VALUES (?, ?, ?, ?)",
            session.token_hash, session.user_id, session.created_at, session.expires_at,
        )

    async def get_session(self, token_hash: str) -> Session | None:
        row = await self._one(
            "SELECT token_hash, user_id, created_at, expires_at FROM sessions"
            " WHERE token_hash = ?",
            token_hash,
        )
        return Session(*row) if row else None

    async def session_user(self, token_hash: str, now: float) -> User | None:
        clock = time.monotonic()
        kept = self._signed.get(token_hash)
        if kept is not None and kept.recheck_at > clock:
            return kept.user if kept.expires_at > now else None
        forgotten = self._forgotten
        row = await self._one(
            "SELECT u.id, u.display_name, u.created_at, s.expires_at FROM sessions s"
            " JOIN users u ON u.id = s.user_id WHERE s.token_hash = ?",
            token_hash,
        )
        if row is None:  # not kept: a session made meanwhile on another instance counts
            return None
        user = User(row[0], row[1], row[2])
        if forgotten == self._forgotten and self._hearing:
            if len(self._signed) >= KEPT_LIMIT:
                self._signed.clear()
            self._signed[token_hash] = Signed(clock + RECHECK, float(row[3]), user)
        return user if row[3] > now else None

    async def delete_session(self, token_hash: str) -> None:
        self.forget(SIGNED_OUT, token_hash)
        await self._one(
            "WITH gone AS (DELETE FROM sessions WHERE token_hash = ?) SELECT pg_notify(?, ?)",
            token_hash, CHANNEL, f"{self.instance} {SIGNED_OUT} {token_hash}",
        )
        self.forget(SIGNED_OUT, token_hash)  # a read meanwhile saw the row still there

    async def purge_sessions(self, now: float) -> int:
        return await self._run("DELETE FROM sessions WHERE expires_at <= ?", now)

    def hear(self, hearing: bool) -> None:
        """The notice channel was opened (True) or lost (False): nothing kept before is
        trusted any more, and nothing is kept until it is heard again."""
        self._hearing = hearing
        self.forget("listening" if hearing else "lost", "-")

    def forget(self, kind: str, argument: str) -> None:
        """Drop what is kept about a signed-out token or a renamed user (a notice's kind and
        argument); any other kind forgets everything (notices may have been lost)."""
        self._forgotten += 1
        if kind == SIGNED_OUT:
            self._signed.pop(argument, None)
        elif kind == RENAMED:
            for token_hash in [t for t, s in self._signed.items() if s.user.id == argument]:
                del self._signed[token_hash]
        else:
            self._signed.clear()
