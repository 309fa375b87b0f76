"""The app's start (its main, a real window offscreen): the table is painted and offline play
begins before the built-in server answers; the lobby says it is starting, then lists."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject, QSettings, QStandardPaths, QTimer
from PySide6.QtWidgets import QApplication, QGraphicsView
from pytestqt.qtbot import QtBot

from somnium_desktop.__main__ import main
from somnium_desktop.client.local_server import LOG_FILE, STATE_FILE, data_dir_for
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.online_base import BUILT_IN
from somnium_desktop.ui.settings import APPLICATION, ORGANIZATION
from somnium_server.embedded import LOCK_FILE
from tests.ui.driver import wait_for_input

LISTED_WITHIN_MS = 60_000  # the server's boot, after the lock is let go (a loaded machine)


class FirstPaint(QObject):
    """Watches the whole app for the main window's first paint of its table, and notes then
    whether the built-in server had been started (its log file is made when it is)."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__()
        self.data_dir = data_dir
        self.window: MainWindow | None = None
        self.server_started_before = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self.window is None and event.type() == QEvent.Type.Paint:
            view = watched.parent()
            window = view.window() if isinstance(view, QGraphicsView) else None
            if isinstance(window, MainWindow) and view is window.table.view:
                self.window = window
                self.server_started_before = (self.data_dir / LOG_FILE).exists()
        return False


@pytest.fixture
def app_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The app's settings, data and caches under `tmp_path`; the test app's names kept."""
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    names = (app.organizationName(), app.applicationName(), app.applicationDisplayName())
    sheet, palette = app.styleSheet(), app.palette()
    config = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericConfigLocation)
    user = (QSettings.Format.NativeFormat, QSettings.Scope.UserScope)
    QSettings.setPath(*user, str(tmp_path / "xdg_config_home"))
    try:
        yield tmp_path
    finally:
        QSettings.setPath(*user, config)
        app.setOrganizationName(names[0])
        app.setApplicationName(names[1])
        app.setApplicationDisplayName(names[2])
        app.setStyleSheet(sheet)
        app.setPalette(palette)


def test_the_table_is_painted_and_played_before_the_built_in_server_answers(
    qtbot: QtBot, app_home: Path,
) -> None:
    data_dir = data_dir_for(APPLICATION, ORGANIZATION)
    assert str(data_dir).startswith(str(app_home))
    data_dir.mkdir(mode=0o700, parents=True)
    # Held here, the real server's lock: a server the app starts gives up at once (as when
    # another one is starting), so the built-in server cannot answer until it is let go.
    held = (data_dir / LOCK_FILE).open("a+b")
    fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    app = QApplication.instance()
    assert app is not None
    painted = FirstPaint(data_dir)
    app.installEventFilter(painted)
    seen: dict[str, object] = {}
    failed: list[BaseException] = []

    def play() -> None:
        """Once the table is painted, inside the app's own event loop."""
        window = painted.window
        assert window is not None
        try:
            seen["shown"] = window.isVisible()
            qtbot.waitUntil(lambda: window.online is not None)  # (begun after the paint)
            online = window.online
            assert online is not None
            seen["server"] = window.lobby_panel.server.text()
            game = window.start_offline("easy", seed=5)
            wait_for_input(qtbot, window.table)
            seen["offline"] = window.source is game and window.table.my_turn()
            seen["answered_meanwhile"] = (data_dir / STATE_FILE).exists()
            with qtbot.waitSignal(online.lobby_loaded, timeout=LISTED_WITHIN_MS):
                held.close()  # the server may start now: the lobby lists its games
            seen["listed_server"] = window.lobby_panel.server.text()
            seen["create"] = window.lobby_panel.create_button.isEnabled()
            local = online.local
            assert local is not None
            local.stop()
        except BaseException as error:  # (raised again once the app is closed)
            failed.append(error)
        finally:
            window.close()

    def once_painted() -> None:
        if painted.window is not None:
            watch.stop()
            play()

    watch = QTimer()  # (main runs the event loop: this looks for the paint from inside it)
    watch.setInterval(20)
    watch.timeout.connect(once_painted)
    watch.start()
    stuck = QTimer()  # a start that never paints ends the loop, and the test fails
    stuck.setSingleShot(True)
    stuck.timeout.connect(app.quit)
    stuck.start(2 * LISTED_WITHIN_MS)
    try:
        status = main(["--no-log-file"])
    finally:
        watch.stop()
        stuck.stop()
        app.removeEventFilter(painted)
        held.close()
    if failed:
        raise failed[0]
    assert status == 0 and painted.window is not None, "the window was never painted"
    assert not painted.server_started_before, "the built-in server began before the paint"
    assert seen["shown"] and seen["offline"], seen
    assert seen["server"] == f"Server: {BUILT_IN} (starting…)", seen
    assert not seen["answered_meanwhile"], seen
    assert seen["listed_server"] == f"Server: {BUILT_IN}" and seen["create"], seen
