"""Which storage a server opens: PostgreSQL when database_url is set, else the SQLite file."""

from __future__ import annotations

from somnium_server.config import Settings
from somnium_server.storage import Storage


def open_storage(settings: Settings) -> Storage:
    """The storage `settings` name, migrated; DatabaseUnavailable if PostgreSQL cannot be used."""
    if settings.database_url:
        from somnium_server.storage.postgres import (
            PostgresStorage,  # psycopg loads only when it is used
        )

        return PostgresStorage(settings.database_url)
    from somnium_server.storage.sqlite import SQLiteStorage

    return SQLiteStorage(settings.database)
