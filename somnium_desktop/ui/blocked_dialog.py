"""The "Blocked players" dialog of the table's chat: who is blocked, and Unblock."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from .dialog_scale import in_window_text_size

if TYPE_CHECKING:
    from ..client.table_chat import TableChat

USER = Qt.ItemDataRole.UserRole  # an item's user id


class BlockedDialog(QDialog):
    """The users this account blocked; Unblock brings their chat messages back."""

    def __init__(self, chat: TableChat, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Blocked players")
        self.setObjectName("blocked-dialog")
        self.chat = chat
        self.note = QLabel("Loading…")
        self.note.setWordWrap(True)
        self.users = QListWidget()
        self.users.setAccessibleName("Blocked players")
        self.users.currentItemChanged.connect(lambda *_: self._enable())
        self.unblock_button = QPushButton("&Unblock")
        self.unblock_button.setAccessibleName("Unblock the chosen player")
        self.unblock_button.clicked.connect(self.unblock_chosen)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.note, self.users, self.unblock_button, buttons):
            layout.addWidget(widget)
        chat.blocks_listed.connect(self.show_users)
        chat.failed.connect(self.note.setText)
        self.resize(320, 300)
        in_window_text_size(self)
        self._enable()
        chat.list_blocks()

    def show_users(self, users: list[Any]) -> None:
        self.users.clear()
        for user in users:
            item = QListWidgetItem(str(user.display_name))
            item.setData(USER, str(user.id))
            self.users.addItem(item)
        self.note.setText("Their chat messages do not reach you, in any game." if users
                          else "You have blocked nobody.")
        if users:
            self.users.setCurrentRow(0)
        self._enable()

    def unblock_chosen(self) -> None:
        item = self.users.currentItem()
        if item is not None:
            self.unblock_button.setEnabled(False)
            self.note.setText(f"Unblocking {item.text()}…")
            self.chat.unblock(str(item.data(USER)))

    def _enable(self) -> None:
        self.unblock_button.setEnabled(self.users.currentItem() is not None)
