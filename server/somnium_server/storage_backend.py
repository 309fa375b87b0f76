"""Which storage a server opens: PostgreSQL when database_url is set, else the SQLite file."""

from __future__ import annotations

from .config import Settings
from .storage import Storage


def open_storage(settings: Settings) -> Storage:
    """The storage `settings` name, migrated; DatabaseUnavailable if PostgreSQL cannot be used."""
    if settings.database_url:
        from .postgres_storage import PostgresStorage  # psycopg loads only when it is used

        return PostgresStorage(settings.database_url)
    from .sqlite_storage import SQLiteStorage

    return SQLiteStorage(settings.database)
