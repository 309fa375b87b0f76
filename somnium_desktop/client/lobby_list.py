"""The lobby's list of games, kept up to date from the lobby's event stream."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .lobby_records import GameSummary
from .sse import ServerEvent

GAME_EVENTS = ("game_created", "seat_taken", "seat_left", "turn_passed", "game_finished",
               "game_closed", "presence", "game_changed")


@dataclass(frozen=True, slots=True)
class LobbyChange:
    """What one lobby event changed: its kind and the game (None for a snapshot)."""

    kind: str
    game: GameSummary | None = None


class LobbyList:
    """The games a lobby shows, newest first. Closed tables (never started) drop out."""

    def __init__(self) -> None:
        self.games: dict[str, GameSummary] = {}
        self.loaded = False
        # game id -> the newest version of its line seen (closed games too): a line of an
        # older version (a server's lobby events may come out of a game's order) is stale
        self.versions: dict[str, int] = {}

    def newest_first(self) -> list[GameSummary]:
        return sorted(self.games.values(), key=lambda game: game.created_at, reverse=True)

    def apply(self, event: ServerEvent) -> LobbyChange | None:
        """Take one event of the lobby stream in; what it changed, or None."""
        try:
            data: dict[str, Any] = event.json()
        except ValueError:
            return None
        if event.event == "snapshot":
            before, self.games = self.games, {}
            for line in data.get("games", []):
                game = GameSummary.from_dict(line)
                if self._newer(line):
                    self.games[game.id] = game
                elif game.id in before:  # (a newer line was seen: it stays)
                    self.games[game.id] = before[game.id]
            self.loaded = True
            return LobbyChange("snapshot")
        if event.event in GAME_EVENTS and isinstance(data.get("game"), dict):
            if not self._newer(data["game"]):
                return None
            game = GameSummary.from_dict(data["game"])
            if event.event == "game_closed":
                self.games.pop(game.id, None)
            else:
                self.games[game.id] = game
            return LobbyChange(event.event, game)
        if event.event == "observers" and data.get("game_id") in self.games:
            known = self.games[str(data["game_id"])]
            game = replace(known, observers=int(data.get("observers", 0)))
            self.games[game.id] = game
            return LobbyChange("observers", game)
        return None

    def _newer(self, line: dict[str, Any]) -> bool:
        """Note a game line's version; False if a newer line of that game was seen (a line
        without a version, from an older server, is taken as it comes)."""
        version = line.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            return True
        game_id = str(line.get("id"))
        if version < self.versions.get(game_id, version):
            return False
        self.versions[game_id] = version
        return True
