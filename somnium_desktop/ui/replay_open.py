"""Where replays open on the window's table: the result panel's Replay and leaving one."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .main_window import MainWindow


def wire_replays(window: MainWindow) -> None:
    """The table's Replay (a finished game again, from the start) and Leave replay."""
    window.table.replaying.asked.connect(lambda: replay_shown_game(window))
    window.table.replaying.left.connect(lambda: window.open_replay(None))


def replay_shown_game(window: MainWindow) -> None:
    """Replay the finished game on the table: offline from what the app holds, online from
    its server (the replay opens once it has come)."""
    source = window.source
    if source is None or not source.can_replay:
        return
    local = source.local_replay()
    if local is not None:
        window.open_replay(local, offline=True)
    elif window.online is not None:
        window.online.open_replay(source.game_id)
