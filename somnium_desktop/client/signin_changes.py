"""A marker file saying a shared sign-in changed, so other windows know when to look again."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path


def default_changes_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("somnium-desktop")) / "signin.changed"


def mark_changed(path: Path | None = None) -> None:
    """Say that a shared sign-in was written or cleared (the marker holds no secret): other
    windows look at the keyring only after it changed, never on a timer alone, since a look
    at a locked keyring asks the user to unlock it."""
    path = path or default_changes_path()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{os.getpid()} {time.time_ns()}\n", encoding="utf-8")


def last_change(path: Path | None = None) -> str:
    """What the marker says now ("" if there is none): compare it with the last one seen."""
    try:
        return (path or default_changes_path()).read_text(encoding="utf-8")
    except OSError:
        return ""
