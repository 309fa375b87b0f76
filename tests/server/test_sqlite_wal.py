"""The SQLite file's WAL stays bounded while writes keep coming without a pause."""

from __future__ import annotations

import os
import time
from pathlib import Path

from somnium_server.storage.sqlite_file import Checkpointer, connect

LIMIT = 256  # frames


def wal_peak(path: Path, limit: int, seconds: float = 2.0) -> int:
    """The most frames the WAL file held while one writer committed a transaction every half
    millisecond (as a busy server does, one per event-loop round), `limit` given to the
    checkpointer (which runs every 20 ms)."""
    conn = connect(path)
    conn.execute("CREATE TABLE filler (n INTEGER PRIMARY KEY, data BLOB)")
    checkpointer = Checkpointer(path, interval=0.02, limit=limit)
    checkpointer.start()
    wal = Path(f"{path}-wal")
    peak = 0
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            conn.execute("BEGIN IMMEDIATE")
            for _ in range(4):
                conn.execute("INSERT INTO filler (data) VALUES (?)", (os.urandom(3000),))
            conn.execute("COMMIT")
            peak = max(peak, wal.stat().st_size // 4096)
            time.sleep(0.0005)
    finally:
        checkpointer.stop()
        conn.close()
    return peak


def test_the_wal_is_started_over_under_writes_without_a_pause(tmp_path: Path) -> None:
    # with passive checkpoints alone the WAL grew to 10,000-30,000 frames here (40-120 MB
    # in two seconds): SQLite starts it over only when a write finds every frame copied
    assert wal_peak(tmp_path / "db.sqlite3", LIMIT) < 8 * LIMIT
