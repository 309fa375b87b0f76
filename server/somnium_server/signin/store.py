"""Sign-in's own tables: browser sign-ins under way, one-time codes, refresh-token families.

They live in the server's SQLite file beside its users and sessions, on their own connection and
with their own schema version, so the rest of the server's storage does not have to know them.
Secrets (codes, refresh tokens, the browser binding, our state toward the provider) are stored
only as SHA-256 hashes. Methods block briefly: call them from a worker thread.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE signin_requests (
        id TEXT PRIMARY KEY,
        browser_hash TEXT NOT NULL,
        client_id TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        app_state TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        expires_at REAL NOT NULL,
        provider TEXT,
        provider_state_hash TEXT UNIQUE,
        nonce TEXT,
        code_verifier TEXT
    );
    CREATE TABLE signin_codes (
        code_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        client_id TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        expires_at REAL NOT NULL,
        family_id TEXT
    );
    CREATE TABLE signin_families (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        client_id TEXT NOT NULL,
        created_at REAL NOT NULL,
        revoked_at REAL
    );
    CREATE TABLE signin_refresh_tokens (
        token_hash TEXT PRIMARY KEY,
        family_id TEXT NOT NULL REFERENCES signin_families(id),
        expires_at REAL NOT NULL,
        used_at REAL
    );
    CREATE INDEX signin_refresh_by_family ON signin_refresh_tokens(family_id);
    CREATE TABLE signin_family_sessions (
        family_id TEXT NOT NULL REFERENCES signin_families(id),
        session_hash TEXT NOT NULL,
        PRIMARY KEY (family_id, session_hash)
    );
    CREATE INDEX signin_sessions_by_hash ON signin_family_sessions(session_hash);
    """,
)


def digest(secret: str) -> str:
    """The only form in which a sign-in secret is stored."""
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    return secrets.token_urlsafe(32)


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


class Refresh(enum.Enum):
    """How a presented refresh token fared."""

    OK = "ok"
    UNKNOWN = "unknown"
    EXPIRED = "expired"
    REUSED = "reused"
    REVOKED = "revoked"


@dataclass(frozen=True, slots=True)
class RefreshUse:
    outcome: Refresh
    family_id: str | None = None
    user_id: str | None = None
    client_id: str | None = None


class SigninStore:
    """The sign-in tables on their own SQLite connection; each method is one transaction."""

    def __init__(self, path: Path | str) -> None:
        if isinstance(path, Path):
            path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._conn.execute("PRAGMA busy_timeout=5000")
        self._lock = threading.Lock()
        self._migrate()

    def _migrate(self) -> None:
        with self._transaction():
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS signin_schema (version INTEGER NOT NULL)"
            )
            row = self._conn.execute("SELECT version FROM signin_schema").fetchone()
            current = row[0] if row else 0
            if current > len(MIGRATIONS):
                raise RuntimeError(
                    f"the sign-in tables have schema version {current}, newer than this "
                    f"server's {len(MIGRATIONS)}"
                )
            for migration in MIGRATIONS[current:]:
                for statement in migration.split(";"):
                    if statement.strip():
                        self._conn.execute(statement)
            self._conn.execute("DELETE FROM signin_schema")
            self._conn.execute("INSERT INTO signin_schema VALUES (?)", (len(MIGRATIONS),))

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One immediate (write-locked) transaction, committed unless the block raises."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _write(self, statements: list[tuple[str, tuple[object, ...]]]) -> list[int]:
        """Run statements in one transaction; their row counts."""
        with self._transaction():
            return [self._conn.execute(sql, args).rowcount for sql, args in statements]

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # Browser sign-ins under way.

    def add_request(self, request: AuthRequest) -> None:
        self._write([(
            "INSERT INTO signin_requests (id, browser_hash, client_id, redirect_uri, app_state,"
            " code_challenge, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (request.id, request.browser_hash, request.client_id, request.redirect_uri,
             request.app_state, request.code_challenge, request.expires_at),
        )])

    def get_request(self, request_id: str) -> AuthRequest | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT id, browser_hash, client_id, redirect_uri, app_state, code_challenge,"
                " expires_at FROM signin_requests WHERE id = ? AND expires_at > ?",
                (request_id, time.time()),
            ).fetchone()
        return AuthRequest(*row) if row else None

    def send_to_provider(
        self, request_id: str, provider: str, state: str, nonce: str, code_verifier: str
    ) -> bool:
        """Remember our state, nonce and verifier toward the provider for this request."""
        (count,) = self._write([(
            "UPDATE signin_requests SET provider = ?, provider_state_hash = ?, nonce = ?,"
            " code_verifier = ? WHERE id = ? AND expires_at > ?",
            (provider, digest(state), nonce, code_verifier, request_id, time.time()),
        )])
        return count == 1

    def take_login(self, provider_state: str) -> PendingLogin | None:
        """The sign-in our state toward the provider names, removed: it can be used only once."""
        with self._transaction():
            row = self._conn.execute(
                "SELECT id, browser_hash, client_id, redirect_uri, app_state, code_challenge,"
                " expires_at, provider, nonce, code_verifier FROM signin_requests"
                " WHERE provider_state_hash = ?",
                (digest(provider_state),),
            ).fetchone()
            if row:
                self._conn.execute("DELETE FROM signin_requests WHERE id = ?", (row[0],))
        if not row or row[6] <= time.time():
            return None
        return PendingLogin(AuthRequest(*row[:7]), provider=row[7], nonce=row[8],
                            code_verifier=row[9])

    def drop_request(self, request_id: str) -> None:
        self._write([("DELETE FROM signin_requests WHERE id = ?", (request_id,))])

    # One-time codes.

    def add_code(self, code: str, grant: CodeGrant) -> None:
        self._write([(
            "INSERT INTO signin_codes (code_hash, user_id, client_id, redirect_uri,"
            " code_challenge, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
            (digest(code), grant.user_id, grant.client_id, grant.redirect_uri,
             grant.code_challenge, grant.expires_at),
        )])

    def take_code(self, code: str, family_id: str) -> tuple[CodeGrant | None, str | None]:
        """Redeem a code for `family_id`: (grant, None) the first time; (None, the family it
        was redeemed for) when it is presented again; (None, None) when unknown."""
        with self._transaction():
            row = self._conn.execute(
                "SELECT user_id, client_id, redirect_uri, code_challenge, expires_at,"
                " family_id FROM signin_codes WHERE code_hash = ?",
                (digest(code),),
            ).fetchone()
            if row and row[5] is None:
                self._conn.execute(
                    "UPDATE signin_codes SET family_id = ? WHERE code_hash = ?",
                    (family_id, digest(code)),
                )
        if not row:
            return None, None
        if row[5] is not None:
            return None, str(row[5])
        return CodeGrant(*row[:5]), None

    # Refresh-token families.

    def add_family(self, family_id: str, user_id: str, client_id: str) -> None:
        self._write([(
            "INSERT INTO signin_families (id, user_id, client_id, created_at) VALUES (?, ?, ?, ?)",
            (family_id, user_id, client_id, time.time()),
        )])

    def add_refresh_token(self, token: str, family_id: str, expires_at: float) -> None:
        self._write([(
            "INSERT INTO signin_refresh_tokens (token_hash, family_id, expires_at)"
            " VALUES (?, ?, ?)",
            (digest(token), family_id, expires_at),
        )])

    def add_family_session(self, family_id: str, session_hash: str) -> None:
        self._write([(
            "INSERT OR IGNORE INTO signin_family_sessions (family_id, session_hash)"
            " VALUES (?, ?)",
            (family_id, session_hash),
        )])

    def use_refresh_token(self, token: str) -> RefreshUse:
        """Spend a refresh token (each is good once); tells a reuse apart from a stranger."""
        now = time.time()
        with self._transaction():
            row = self._conn.execute(
                "SELECT r.family_id, r.expires_at, r.used_at, f.user_id, f.client_id,"
                " f.revoked_at FROM signin_refresh_tokens r"
                " JOIN signin_families f ON f.id = r.family_id WHERE r.token_hash = ?",
                (digest(token),),
            ).fetchone()
            if row and row[2] is None and row[5] is None and row[1] > now:
                self._conn.execute(
                    "UPDATE signin_refresh_tokens SET used_at = ? WHERE token_hash = ?",
                    (now, digest(token)),
                )
        if not row:
            return RefreshUse(Refresh.UNKNOWN)
        family_id, expires_at, used_at, user_id, client_id, revoked_at = row
        if revoked_at is not None:
            outcome = Refresh.REVOKED
        elif used_at is not None:
            outcome = Refresh.REUSED
        elif expires_at <= now:
            outcome = Refresh.EXPIRED
        else:
            outcome = Refresh.OK
        return RefreshUse(outcome, family_id, user_id, client_id)

    def family_of_session(self, session_hash: str) -> str | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT family_id FROM signin_family_sessions WHERE session_hash = ?",
                (session_hash,),
            ).fetchone()
        return str(row[0]) if row else None

    def family_of_refresh_token(self, token: str) -> str | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT family_id FROM signin_refresh_tokens WHERE token_hash = ?",
                (digest(token),),
            ).fetchone()
        return str(row[0]) if row else None

    def revoke_family(self, family_id: str) -> list[str]:
        """Revoke a family; the session hashes it issued, for the caller to end."""
        with self._transaction():
            self._conn.execute(
                "UPDATE signin_families SET revoked_at = ? WHERE id = ?"
                " AND revoked_at IS NULL",
                (time.time(), family_id),
            )
            rows = self._conn.execute(
                "SELECT session_hash FROM signin_family_sessions WHERE family_id = ?",
                (family_id,),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def family_revoked(self, family_id: str) -> bool:
        with self._lock:
            row = self._conn.execute(
                "SELECT revoked_at FROM signin_families WHERE id = ?", (family_id,)
            ).fetchone()
        return row is None or row[0] is not None

    def purge(self, now: float | None = None) -> None:
        """Forget expired requests and codes (refresh tokens stay, to recognise a reuse)."""
        now = time.time() if now is None else now
        self._write([
            ("DELETE FROM signin_requests WHERE expires_at <= ?", (now,)),
            ("DELETE FROM signin_codes WHERE expires_at <= ?", (now - 3600,)),
        ])
