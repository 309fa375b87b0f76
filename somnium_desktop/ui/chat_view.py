"""The chat of an online table, in the side column under the log: lines (they stay put while
the player reads further up, a button saying how many new ones are below; scrolled up to the
oldest, the ones before it come from the server), a field to write in, a box to hide
watchers' messages, a way to block a message's author (and to unblock), and their page (a
double-click on a message).

Every message is plain text: the lines are list items, which Qt draws as plain text, never
as rich text or HTML. A long run without a space (a link, "aaaa…") wraps inside the panel
(see `wrappable`), and so does its tooltip, the message escaped as rich text (`wrapped_tip`);
copying a line (Ctrl+C, or its menu) gives its text as written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..client.source import TableSource
from .chat_wrap import wrappable, wrapped_tip

# Online play's modules load with the first online game (the column is built at start-up).
if TYPE_CHECKING:
    from ..client.table_chat import ChatLine, TableChat

LINE = Qt.ItemDataRole.UserRole  # the item's ChatLine
LONGEST = 500  # characters the server takes in one message


def line_of(item: QListWidgetItem | None) -> ChatLine | None:
    """The message an item of the list shows."""
    line: ChatLine | None = item.data(LINE) if item is not None else None
    return line


def line_text(line: ChatLine) -> str:
    """How a message reads in the list (and to a screen reader)."""
    who = line.name if line.role == "player" else f"{line.name} (watching)"
    return f"{who}: {line.text}"


class ChatView(QFrame):
    """Shows the chat of the online game on the table; hidden for offline games."""

    player_page_requested = Signal(str)  # a message's author: their user id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatView")
        self.chat: TableChat | None = None
        # how to sign in, then carry on (set by the window once online play starts)
        self.ask_sign_in: Callable[[Callable[[], None]], None] | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(6)
        title = QLabel("Chat")
        title.setObjectName("panelTitle")
        self.hide_watchers = QCheckBox("Hide watchers' messages")
        self.hide_watchers.setAccessibleName("Hide the messages of people watching this table")
        self.hide_watchers.toggled.connect(self._apply_filter)
        self.lines = QListWidget()
        self.lines.setAccessibleName("Chat messages")
        self.lines.setWordWrap(True)
        # lines laid out again whenever the list's width changes (a scroll bar coming too)
        self.lines.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.lines.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.lines.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.lines.customContextMenuRequested.connect(self._menu)
        self.lines.currentItemChanged.connect(lambda *_: self._enable())
        self.lines.setMinimumHeight(3 * self.lines.fontMetrics().lineSpacing() + 12)
        # The list shows a line with breaks in its long runs: copying gives the line as written.
        self.copy_action = QAction("Copy message", self.lines)
        self.copy_action.setShortcut(QKeySequence.StandardKey.Copy)
        self.copy_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.copy_action.triggered.connect(self.copy_chosen)
        self.lines.addAction(self.copy_action)
        self.field = QLineEdit()
        self.field.setMaxLength(LONGEST)
        self.field.setPlaceholderText("Write to the table…")
        self.field.setAccessibleName("Chat message")
        self.field.returnPressed.connect(self.send)
        self.send_button = QPushButton("Send")
        self.send_button.setAccessibleName("Send the chat message")
        self.send_button.clicked.connect(self.send)
        self.block_button = QPushButton("Block author")
        self.block_button.setAccessibleName("Block the author of the chosen message")
        self.block_button.clicked.connect(self.block_chosen)
        # ----- the blocked players (Unblock), and an author's page -----
        self.blocked_button = QPushButton("Blocked…")
        self.blocked_button.setAccessibleName("Blocked players: unblock")
        self.blocked_button.clicked.connect(self.open_blocked)
        self.lines.itemDoubleClicked.connect(self._page_of)
        self.lines.itemActivated.connect(self._page_of)
        self.blocked_dialog: QWidget | None = None
        self.status = QLabel("")
        self.status.setObjectName("panelHint")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        # Lines that came while the player reads further up: the list stays where it is, and
        # this says how many are below (a click goes down to them).
        self.unread = 0
        self._follow = True  # the list shows the newest line, and keeps showing it
        self.new_button = QPushButton()
        self.new_button.setObjectName("tableButton")
        self.new_button.clicked.connect(self.lines.scrollToBottom)
        self.new_button.hide()
        bar = self.lines.verticalScrollBar()
        bar.valueChanged.connect(lambda _: self._scrolled())
        bar.rangeChanged.connect(lambda *_: self._resized())
        top_row = QHBoxLayout()
        top_row.addWidget(self.hide_watchers, 1)
        top_row.addWidget(self.new_button)
        row = QHBoxLayout()
        row.addWidget(self.field, 1)
        row.addWidget(self.send_button)
        layout.addWidget(title)
        layout.addLayout(top_row)
        layout.addWidget(self.lines, 1)
        layout.addLayout(row)
        block_row = QHBoxLayout()
        block_row.addWidget(self.block_button, 1)
        block_row.addWidget(self.blocked_button)
        layout.addLayout(block_row)
        layout.addWidget(self.status)
        self.setVisible(False)
        self._enable()

    def show_chat_of(self, source: object) -> None:
        """Follow the chat of the game now on the table (none for an offline game)."""
        if self.chat is not None and source is self.chat.game:
            return
        if self.chat is not None:
            self.chat.close()
            self.chat.deleteLater()
            self.chat = None
        self.lines.clear()
        self._follow = True
        self._set_unread(0)
        self.status.setText("")
        self.hide_watchers.setChecked(False)  # (each table its own choice)
        # (asked of the source first: an offline game imports no network client here, which
        # cost the window 20 MB and 100 ms just after its first paint)
        if isinstance(source, TableSource) and source.has_chat:
            from ..client.online_follow import FollowedGame
            from ..client.table_chat import TableChat

            assert isinstance(source, FollowedGame)

            chat = self.chat = TableChat(source, self)
            chat.line_added.connect(self._add)
            chat.blocked.connect(self._drop)
            chat.reloaded.connect(self._reload)
            chat.earlier_added.connect(self._add_earlier)
            chat.failed.connect(self.status.setText)
            chat.sent.connect(self._sent)
            chat.sign_in_needed.connect(self._sign_in)
        self.setVisible(self.chat is not None)
        self._enable()

    def send(self) -> None:
        """Send what was typed; it stays in the box until the server took it (a message
        refused, or a server out of reach, loses nothing typed)."""
        if self.chat is not None and self.chat.say(self.field.text()):
            self.status.setText("")

    def _sent(self, text: str) -> None:
        if self.field.text().strip() == text:  # (else typed on meanwhile: kept)
            self.field.clear()

    def _sign_in(self, then: Callable[[], None]) -> None:
        if self.ask_sign_in is None:
            self.status.setText("Sign in to write in the chat.")
        else:
            self.ask_sign_in(then)

    def block_chosen(self) -> None:
        line = self._chosen()
        if self.chat is not None and line is not None:
            self.chat.block(line.user_id)

    def copy_chosen(self) -> None:
        """The chosen message, as it was written, to the clipboard."""
        line = self._chosen()
        if line is not None:
            QGuiApplication.clipboard().setText(line_text(line))

    def _chosen(self) -> ChatLine | None:
        return line_of(self.lines.currentItem())

    def _mine(self, line: ChatLine) -> bool:
        return self.chat is not None and line.user_id == self.chat.game.user_id

    def _add(self, line: ChatLine) -> None:
        """A new line at the bottom. The list follows it when it showed the bottom already
        (or the line is the player's own); else it stays on the lines being read."""
        following = self._follow
        item = self._item(line)
        self.lines.addItem(item)
        item.setHidden(self._hidden(line))
        if following or self._mine(line):
            self.lines.scrollToBottom()
        elif not item.isHidden():
            self._set_unread(self.unread + 1)

    def _item(self, line: ChatLine) -> QListWidgetItem:
        text = line_text(line)
        item = QListWidgetItem(wrappable(text))
        item.setData(LINE, line)
        item.setData(Qt.ItemDataRole.AccessibleTextRole, text)  # (read as written)
        item.setToolTip(wrapped_tip(line.text))  # (wraps; copying gives line_text)
        return item

    def _add_earlier(self, lines: list[ChatLine]) -> None:
        """Older lines on top (paged back): the lines being read stay where they are."""
        top = self.lines.itemAt(QPoint(0, 0))
        for row, line in enumerate(lines):
            item = self._item(line)
            self.lines.insertItem(row, item)
            item.setHidden(self._hidden(line))
        if top is not None:
            self.lines.scrollToItem(top, QAbstractItemView.ScrollHint.PositionAtTop)

    def _at_bottom(self) -> bool:
        bar = self.lines.verticalScrollBar()
        return bar.value() >= bar.maximum()

    def _scrolled(self) -> None:
        """Scrolled up, the list stays put as lines come; down to the newest line, it follows
        them again, and nothing is left unread; up to the oldest, the earlier ones come."""
        self._follow = self._at_bottom()
        if self._follow and self.unread:
            self._set_unread(0)
        bar = self.lines.verticalScrollBar()
        if bar.value() == 0 and bar.maximum() > 0 and self.chat is not None:
            self.chat.page_back()  # up at the oldest line: the ones before it

    def _resized(self) -> None:
        """Lines added, or the list resized: a list following the newest line still shows it."""
        if self._follow and not self._at_bottom():
            self.lines.scrollToBottom()

    def _set_unread(self, count: int) -> None:
        self.unread = count
        text = f"{count} new message{'s' if count > 1 else ''} ↓"
        self.new_button.setText(text)
        self.new_button.setAccessibleName(f"{text[:-2]} below: show them")
        self.new_button.setVisible(count > 0)

    def _hidden(self, line: ChatLine) -> bool:
        return self.hide_watchers.isChecked() and line.role == "watcher"

    def _apply_filter(self) -> None:
        for row in range(self.lines.count()):
            item = self.lines.item(row)
            line = line_of(item)
            if line is not None:
                item.setHidden(self._hidden(line))

    def _drop(self, user_id: str) -> None:
        for row in reversed(range(self.lines.count())):
            line = line_of(self.lines.item(row))
            if line is not None and line.user_id == user_id:
                self.lines.takeItem(row)
        self.status.setText("Blocked: their messages no longer reach you.")
        self._enable()

    def _reload(self, lines: list[ChatLine]) -> None:
        """Every line again (an author was unblocked: theirs are back, in their places)."""
        self.lines.clear()
        for line in lines:
            self._add(line)
        self.status.setText("Unblocked: their messages reach you again.")
        self._enable()

    def _page_of(self, item: QListWidgetItem) -> None:
        line = line_of(item)
        if line is not None:
            self.player_page_requested.emit(line.user_id)

    def open_blocked(self) -> None:
        """The "Blocked players" dialog, with Unblock."""
        if self.chat is None:
            return
        from .blocked_dialog import BlockedDialog

        dialog = BlockedDialog(self.chat, self.window())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.blocked_dialog = dialog
        dialog.show()

    def _menu(self, at: QPoint) -> None:
        item = self.lines.itemAt(at)
        line = line_of(item)
        if item is None or line is None or self.chat is None:
            return
        self.lines.setCurrentItem(item)
        menu = QMenu(self)
        chat = self.chat
        menu.addAction(f"{line.name}'s page",
                       lambda: self.player_page_requested.emit(line.user_id))
        if not self._mine(line):
            menu.addAction(f"Block {line.name}", lambda: chat.block(line.user_id))
        menu.addAction("Blocked players…", self.open_blocked)
        menu.addSeparator()
        menu.addAction(self.copy_action)  # (the line clicked: it becomes the chosen one)
        menu.exec(self.lines.viewport().mapToGlobal(at))

    def _enable(self) -> None:
        line = self._chosen()
        self.block_button.setEnabled(line is not None and not self._mine(line))
