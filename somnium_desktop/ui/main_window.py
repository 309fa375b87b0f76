"""The main window: the card table in the middle, the lobby and side panel on the right, menus."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QMainWindow, QWidget

from ..client.source import TableSource
from ..game.bots import Level
from .cards import CardDeck
from .column_part import Column, ColumnPart
from .players_hooks import open_leaderboard, wire_player_pages
from .replay_open import Replays
from .settings import Settings
from .table import TableWidget, new_action
from .table_scale import chrome_sheet
from .window_chrome import MenuScale, WindowBody
from .window_split import (
    COLUMN_WIDTH,
    TableSplitter,
    game_room,
    kept_width,
    lobby_and_log,
    lobby_height,
)

# Imported once the table is on screen: online play (see start_online), offline play, the
# column's panels and notifications (their Qt classes cost start-up time to load).
if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox

    from ..client.offline import OfflineGame
    from ..client.online import OnlineGame
    from .chat_view import ChatView
    from .lobby_panel import LobbyPanel
    from .notify import Notifier
    from .online_options import OnlineOptions
    from .online_play import OnlinePlay
    from .panel import SidePanel
    from .players_dialog import PlayerPage

COLUMN_KEY = "window/column"  # where the lobby ends and the log begins, as last dragged
COLUMN_WIDTH_KEY = "window/column-width"  # the right-hand column's, as last dragged
FIRST_SIZE = QSize(1280, 800)  # the window at first start, on a screen with room for it
SCREEN_SHARE = 0.9  # else at most this share of the screen's room (its frame fits around)


def first_geometry(available: QRect, least: QSize, wanted: QSize = FIRST_SIZE) -> QRect:
    """Where the window goes at first start: `wanted`, or SCREEN_SHARE of the screen's
    `available` room if that is less (yet never below `least`, its minimum), in the middle."""
    room = QSize(int(available.width() * SCREEN_SHARE), int(available.height() * SCREEN_SHARE))
    place = QRect(QPoint(0, 0), wanted.boundedTo(room).expandedTo(least))
    place.moveCenter(available.center())
    return place


class MainWindow(QMainWindow):
    """The app's one window: the table, the lobby for online play, and offline games.

    With `column_after_paint`, the right-hand column (the lobby and offline panels, the log)
    is left empty until complete_column() fills it: the app calls that right after the table's
    first paint, so the first frame is the table alone (its widgets, and the Qt classes behind
    them, cost a tenth of the start-up's CPU). The table keeps its size when the column fills.
    """

    panel: SidePanel
    lobby_panel: LobbyPanel
    chat_view: ChatView
    player_page: PlayerPage | None = None  # the last player page opened
    replay_requested = Signal(str)  # a finished game's id, from a player page's Replay

    def __init__(
        self,
        settings: Settings | None = None,
        bot_levels: Sequence[Level] | None = None,
        deck: CardDeck | None = None,
        parent: QWidget | None = None,
        *,
        online: OnlineOptions | None = None,
        column_after_paint: bool = False,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Somnium")
        self.settings = settings if settings is not None else Settings()
        self.table = TableWidget(deck, log_inside=False)
        self.table.scene.settled.connect(lambda _view: self._retitle())  # (after the table's)
        self.table.source_changed.connect(self._retitle)
        self._bot_levels = bot_levels
        self.online_options = online
        self.online: OnlinePlay | None = None
        self._notifier: Notifier | None = None
        self.column = Column()  # (its parts scroll on a short window)
        splitter = TableSplitter(kept_width(self.settings.store.value(COLUMN_WIDTH_KEY)))
        splitter.addWidget(self.table)
        splitter.addWidget(self.column)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 0)  # (a wider window widens the table)
        splitter.setCollapsible(0, False)
        splitter.setSizes([840, COLUMN_WIDTH])
        splitter.splitterMoved.connect(  # (after the splitter took the new width)
            lambda _pos, _index: self.settings.store.setValue(COLUMN_WIDTH_KEY,
                                                              splitter.column_width))
        self.splitter = splitter
        body = WindowBody(splitter)
        self.setCentralWidget(body)
        self.source: TableSource | None = None
        self._make_menus()
        self.menu_scale = MenuScale(self.menuBar(), self.table, body)
        self.replays = Replays(self, self._replace_source)
        self.apply_settings()
        geometry = self.settings.store.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self._place_first()
        self.column_complete = False
        self.table.view.setFocus()  # D and E typed at once play, not fill a lobby field
        self.confirm_new: QMessageBox | None = None
        if not column_after_paint:
            self.complete_column()

    def _place_first(self) -> None:
        """Size and place the window as at first start, in its screen's room."""
        place = first_geometry(self.screen().availableGeometry(), self.minimumSizeHint())
        self.resize(place.size())
        self.move(place.topLeft())  # (where the frame goes: the window's title stays on screen)

    def complete_column(self) -> None:
        """Build the right-hand column: the lobby panel over the offline panel and the log."""
        if self.column_complete:
            return
        self.column_complete = True
        from ..game.bots import levels  # (the computer players register as they load)
        from .lobby_panel import LobbyPanel
        from .panel import SidePanel

        levels_offered = levels() if self._bot_levels is None else self._bot_levels
        self.panel = SidePanel(levels_offered, self.settings.level)
        self.panel.add_log(self.table.log)
        from .chat_view import ChatView

        self.chat_view = ChatView()
        self.panel.add_chat(self.chat_view)
        self.chat_view.show_chat_of(self.source)
        self.panel.play_requested.connect(self.ask_new_game)
        self.lobby_panel = LobbyPanel()
        lobby = self.lobby_panel
        self.lobby_part = ColumnPart(lobby, lambda: lobby_height(lobby))
        self.game_part = ColumnPart(self.panel, lambda: game_room(  # (in front: see game_room)
            self.column, lobby, self.panel, self.table.log))
        self.column.addWidget(self.lobby_part)
        self.column.addWidget(self.game_part)
        wire_player_pages(self)
        front = self.lobby_part if self.source is None else self.game_part
        kept = self.settings.store.value(COLUMN_KEY)
        if isinstance(kept, QByteArray) and self.column.restoreState(kept):
            self.column.front, self.column.dragged = front, True  # (the player's split)
        else:
            self.column.setSizes(lobby_and_log(self.lobby_panel, self.height()))
            self.column.serve(front)
        self.column.splitterMoved.connect(
            lambda _pos, _index: self.settings.store.setValue(COLUMN_KEY,
                                                              self.column.saveState()))
        from .typing_guard import TypingGuard, guard_typing

        self.typing_guard = TypingGuard(self)
        guard_typing(self.column, self.typing_guard)
        self.splitter.fill()
        self.column.settle()
        focus = self.focusWidget()
        if focus is None or self.column.isAncestorOf(focus):  # (the keys are the table's)
            self.table.view.setFocus()
        self.new_game_action.setEnabled(bool(self.panel.levels))

    def _make_menus(self) -> None:
        game = self.game_menu = self.menuBar().addMenu("&Game")
        self.new_game_action = new_action("&New offline game", self)
        self.new_game_action.setShortcut(QKeySequence.StandardKey.New)
        self.new_game_action.triggered.connect(lambda: self.ask_new_game())
        self.new_game_action.setEnabled(False)  # until the offline panel lists the levels
        game.addAction(self.new_game_action)
        game.addSeparator()
        for action in (self.table.draw_action, self.table.end_turn_action,
                       self.table.rematch_action, self.table.concede_action,
                       self.table.claim_action, self.table.replaying.open_action):
            game.addAction(action)
        game.addSeparator()
        self.lobby_action = new_action("Go to the &lobby", self)
        self.lobby_action.setShortcut(QKeySequence("Ctrl+L"))
        self.lobby_action.triggered.connect(lambda: self._lobby().focus_games())
        self.join_action = new_action("&Join a game by id", self)
        self.join_action.setShortcut(QKeySequence("Ctrl+J"))
        self.join_action.triggered.connect(lambda: self._lobby().focus_join())
        game.addAction(self.lobby_action)
        game.addAction(self.join_action)
        self.players_action = new_action("&Players…", self)
        self.players_action.triggered.connect(lambda: open_leaderboard(self))
        game.addAction(self.players_action)
        game.addSeparator()
        self.settings_action = new_action("&Settings…", self)
        self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        self.settings_action.triggered.connect(self.open_settings)
        game.addAction(self.settings_action)
        game.addSeparator()
        self.quit_action = new_action("&Quit", self)
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(self.close)
        game.addAction(self.quit_action)
        help_menu = self.menuBar().addMenu("&Help")
        self.keys_action = new_action("&Keyboard shortcuts", self)
        self.keys_action.setShortcut(QKeySequence.StandardKey.HelpContents)
        self.keys_action.triggered.connect(self.show_shortcuts)
        help_menu.addAction(self.keys_action)

    # ----- offline play -----
    def ask_new_game(self, level: str | None = None) -> None:
        """A new offline game (Ctrl+N, Play), after asking if one is in play on the table."""
        source = self.source
        view = source.view if source is not None else None
        if source is None or view is None or view.over or source.my_seat is None \
                or source.read_only:
            self.start_offline(level)
            return
        from PySide6.QtWidgets import QMessageBox  # (lazy: only when asked)

        from ..client.offline import OfflineGame

        if isinstance(source, OfflineGame):
            text = "Abandon the game in play and deal a new one against the computer?"
        else:
            text = (f"Leave “{source.game_name}” for a new game against the computer? It "
                    "goes on on the server: the lobby takes you back to it.")
        box = QMessageBox(QMessageBox.Icon.Question, "Deal a new game?", text,
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setStyleSheet(chrome_sheet(self.table.text_scale))  # (in the table's text size)
        box.finished.connect(lambda result: self._new_game_answered(result, source, level))
        self.confirm_new = box
        box.open()

    def _new_game_answered(self, result: int, asked: TableSource, level: str | None) -> None:
        from PySide6.QtWidgets import QMessageBox

        self.confirm_new = None
        if result == QMessageBox.StandardButton.Yes and self.source is asked:
            self.start_offline(level)

    def start_offline(
        self, level: str | None = None, seed: int | None = None
    ) -> OfflineGame | None:
        """Start a new game against the computer at `level` (the panel's pick by default)."""
        self.complete_column()
        key = level or self.panel.level_key()
        chosen = next((entry for entry in self.panel.levels if entry.key == key), None)
        if chosen is None:
            return None
        from ..client.offline import OfflineGame
        from .source_lines import forget_source_lines

        forget_source_lines()  # of offline play's modules (the first game imports them)
        self.settings.level = chosen.key
        game = OfflineGame(chosen.make, level_label=chosen.label, seed=seed, pace_ms=self._pace())
        self._replace_source(game)
        game.start()
        self.table.view.setFocus()
        return game

    # ----- online play -----
    def _lobby(self) -> LobbyPanel:
        self.complete_column()
        return self.lobby_panel

    def start_online(self) -> OnlinePlay:
        """Connect the lobby to its server (called once the window is up)."""
        self.complete_column()
        if self.online is None:
            from .online_options import OnlineOptions, begin_built_in

            options = self.online_options or OnlineOptions()
            if not self.settings.server_url:
                begin_built_in(options)  # it boots while online play is being imported
            from .online_play import OnlinePlay

            self.online = OnlinePlay(self.settings, self.lobby_panel, self, options)
            self.online.game_opened.connect(self._open_online)
            self.online.replay_opened.connect(self.replays.open)
            self.online.attention.connect(self.notifier.notify)
            self.online.left_server.connect(self._left_server)
            self.online.table_free = lambda: self.source is None
            self.online.leave_table = lambda why, then: self.replays.leave_then(
                then, "Leave the game in play?", why)
            online = self.online
            self.chat_view.ask_sign_in = lambda then: online.sign_in(
                then, ": the message was not sent")
            self.online.start()
        return self.online

    def _open_online(self, game: OnlineGame) -> None:
        self._replace_source(game)
        game.your_turn.connect(lambda: self._your_turn(game))
        game.start()
        self.table.view.setFocus()

    def _your_turn(self, game: OnlineGame) -> None:
        if not game.turn_came_with_opponent:  # (then the lobby says it: one notice, not two)
            self.notifier.notify("Your turn", f"It is your turn in “{game.game_name}”.")

    def _left_server(self, game: OnlineGame | None, server: str) -> None:
        """The lobby moved to another server: the game on the table from the old one closes."""
        if game is None or self.source is not game:
            return
        again = "watch" if game.my_seat is None else "play"
        self._replace_source(None)
        text = (f"You left the server {server}. “{game.game_name}” goes on there: switch "
                f"back to {again} it again.")
        self.table.status.setText(text)
        self.table.announce(text)

    def _retitle(self) -> None:
        from .title import window_title

        self.setWindowTitle(window_title(self.table.source, self.table.shown))

    def _replace_source(self, source: TableSource | None) -> None:
        old, self.source = self.source, source
        self.table.set_source(source)
        if self.column_complete:  # (the column serves first the lobby, or the game's panel)
            self.chat_view.show_chat_of(source)
            self.column.serve(self.lobby_part if source is None else self.game_part)
        if old is not None:
            old.close()
            old.deleteLater()

    def _pace(self) -> int:
        from ..client.offline import BOT_PACE_MS

        return round(BOT_PACE_MS / self.settings.animation_speed)

    @property
    def notifier(self) -> Notifier:
        """Desktop notifications (made when first needed)."""
        if self._notifier is None:
            from .notify import Notifier

            self._notifier = Notifier(self)
        return self._notifier

    # ----- settings -----
    def apply_settings(self) -> None:
        self.table.scene.set_motion(self.settings.reduced_motion, self.settings.animation_speed)
        self.table.coach.set_practice_odds(self.settings.practice_odds)
        if self.source is not None:
            from ..client.offline import OfflineGame

            if isinstance(self.source, OfflineGame):
                self.source.set_pace(self._pace())
        if self.online is not None:
            self.online.set_server(self.settings.server_url)

    def open_settings(self) -> None:
        from .settings_dialog import SettingsDialog  # (lazy: not needed at start-up)

        dialog = SettingsDialog(self.settings, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(self.apply_settings)
        self.settings_dialog = dialog
        dialog.open()

    def show_shortcuts(self) -> None:
        from PySide6.QtWidgets import QMessageBox  # (lazy: only when asked)

        from .keyboard_help import shortcuts_help

        box = QMessageBox(QMessageBox.Icon.Information, "Keyboard shortcuts",
                          shortcuts_help(self), QMessageBox.StandardButton.Close, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setStyleSheet(chrome_sheet(self.table.text_scale))
        box.open()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.settings.store.setValue("window/geometry", self.saveGeometry())
        self.settings.sync()
        self.table.deck.save_start_up_pixmaps()
        self._replace_source(None)
        if self.online is not None:
            self.online.close()
        super().closeEvent(event)
