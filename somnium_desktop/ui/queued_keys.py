"""A key the player pressed while the table was busy, kept to be played once it is ready."""

from __future__ import annotations

import time
from collections.abc import Sequence

from PySide6.QtCore import QKeyCombination, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence

KEPT_S = 2.0  # seconds: a key older than this when the table is ready again is let go


class QueuedKey:
    """One table key (draw, end turn, steal) pressed while a card was still flying or a move
    was on its way: its action is disabled then, and Qt would drop the key silently. The
    last such key is kept; the table plays it once it is ready, if that is still legal (it
    is let go if the turn passed meanwhile, or after KEPT_S)."""

    def __init__(self, actions: Sequence[QAction]) -> None:
        self.actions = list(actions)
        self.action: QAction | None = None
        self._at = 0.0

    @property
    def waiting(self) -> bool:
        return self.action is not None

    def offer(self, event: QKeyEvent) -> bool:
        """Keep the action whose shortcut `event` is; False if it is none of theirs. A key of
        the number pad counts as its twin of the main keyboard, as for Qt's own shortcuts."""
        if event.isAutoRepeat():
            return False
        keypad = Qt.KeyboardModifier.KeypadModifier
        pressed = [QKeySequence(event.keyCombination())]
        if event.modifiers() & keypad:
            plain = QKeyCombination(event.modifiers() & ~keypad, Qt.Key(event.key()))
            pressed.append(QKeySequence(plain))
        for action in self.actions:
            if any(key.matches(seq) == QKeySequence.SequenceMatch.ExactMatch
                   for key in action.shortcuts() for seq in pressed):
                self.action, self._at = action, time.monotonic()
                return True
        return False

    def take(self) -> QAction | None:
        """The action kept (None if none, or kept too long ago); nothing is kept after."""
        action, self.action = self.action, None
        if action is None or time.monotonic() - self._at > KEPT_S:
            return None
        return action

    def clear(self) -> None:
        self.action = None
