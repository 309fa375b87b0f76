"""Chat at an online table: the messages the game's stream brings, writing and blocking."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from .errors import LobbyError, SignedOut
from .online_follow import FollowedGame
from .tasks import Operations

PAGE = 50  # messages asked for at a time, paging back


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One message: who wrote it, as a player or a watcher, and the text (plain text)."""

    id: int
    user_id: str
    name: str
    role: str  # "player" or "watcher"
    text: str

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChatLine:
        return cls(int(data["id"]), str(data["user_id"]), str(data["name"]),
                   str(data["role"]), str(data["text"]))


class TableChat(QObject):
    """The chat of the game on the table: every line heard once, the blocked left out."""

    line_added = Signal(object)  # a ChatLine
    blocked = Signal(str)  # a user id: their lines are gone
    reloaded = Signal(object)  # every line again, oldest first (someone was unblocked)
    earlier_added = Signal(object)  # lines older than any heard, oldest first (paged back)
    blocks_listed = Signal(object)  # the Accounts this account blocked
    failed = Signal(str)  # a sentence for the player (not sent, not blocked)
    sent = Signal(str)  # the text of a message the server took
    sign_in_needed = Signal(object)  # what to do once signed in (a watcher writing first)

    def __init__(self, game: FollowedGame, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.lines: list[ChatLine] = []
        self.blocked_ids: set[str] = set()
        self._ids: set[int] = set()
        self.all_earlier = False  # every message before the first line is here (paged back)
        self._ops = Operations(self)
        game.chat_said.connect(self._heard)

    def _heard(self, data: dict[str, Any]) -> None:
        try:
            line = ChatLine.from_dict(data)
        except (KeyError, TypeError, ValueError):
            return  # (not a message this app can read: left out)
        if line.id in self._ids or line.user_id in self.blocked_ids:
            return  # (a resumed stream may bring one again)
        self._ids.add(line.id)
        self.lines.append(line)
        self.line_added.emit(line)

    def page_back(self) -> bool:
        """Ask for the PAGE messages before the oldest line here (a stream brings only the
        newest); `earlier_added` brings them. False when there are none left or a page is on
        its way already."""
        if self.all_earlier or not self._ids:
            return False
        client, game_id = self.game.client, self.game.game_id
        before = min(self._ids)

        def done(found: list[dict[str, Any]]) -> None:
            lines: list[ChatLine] = []
            for data in found:
                try:
                    line = ChatLine.from_dict(data)
                except (KeyError, TypeError, ValueError):
                    continue
                if line.id not in self._ids and line.user_id not in self.blocked_ids \
                        and line.id < before:
                    lines.append(line)
            # (not a short page: a page of a signed-in player leaves out those they blocked)
            self.all_earlier = not found
            lines.sort(key=lambda line: line.id)
            self._ids.update(line.id for line in lines)
            self.lines = sorted([*lines, *self.lines], key=lambda line: line.id)
            self.earlier_added.emit(lines)

        return self._ops.run(lambda: client.chat(game_id, limit=PAGE, before=before), done,
                             self._refused, quiet=True, exclusive="page_back")

    def say(self, text: str) -> bool:
        """Send a message; False when there is nothing to send. `sent` says when the server
        took it (`failed` when not); what it stored comes back on the stream like everyone's."""
        text = text.strip()
        if not text:
            return False
        client, game_id = self.game.client, self.game.game_id

        def refused(error: object) -> None:
            if isinstance(error, SignedOut):
                self.sign_in_needed.emit(lambda: self.say(text))
            else:
                self._refused(error)

        self._ops.run(lambda: client.say(game_id, text), lambda _m: self.sent.emit(text),
                      refused, quiet=True)
        return True

    def block(self, user_id: str) -> None:
        """Block the author of a message: their lines go, here and in every game."""
        if user_id == self.game.user_id:
            return
        client = self.game.client

        def done(_: object) -> None:
            self.blocked_ids.add(user_id)
            self.lines = [line for line in self.lines if line.user_id != user_id]
            self.blocked.emit(user_id)

        self._ops.run(lambda: client.block(user_id), done, self._refused, quiet=True)

    def list_blocks(self) -> None:
        """Ask for the users blocked (`blocks_listed` answers)."""
        client = self.game.client
        self._ops.run(client.blocks, self.blocks_listed.emit, self._refused, quiet=True)

    def unblock(self, user_id: str) -> None:
        """Unblock a user: their messages come back, here and in every game."""
        client, game_id = self.game.client, self.game.game_id

        def unblocked() -> list[ChatLine]:
            client.unblock(user_id)
            return [ChatLine.from_dict(m) for m in client.chat(game_id)]

        def done(lines: list[ChatLine]) -> None:
            self.blocked_ids.discard(user_id)
            known = {line.id for line in self.lines}
            self.lines = sorted([*self.lines, *(m for m in lines if m.id not in known)],
                                key=lambda line: line.id)
            self._ids = {line.id for line in self.lines}
            self.reloaded.emit(list(self.lines))
            self.list_blocks()

        self._ops.run(unblocked, done, self._refused, quiet=True)

    def _refused(self, error: object) -> None:
        self.failed.emit(str(error) if isinstance(error, LobbyError) else
                         f"The message could not be sent ({error}).")

    def close(self) -> None:
        self.game.chat_said.disconnect(self._heard)
        self._ops.close()
