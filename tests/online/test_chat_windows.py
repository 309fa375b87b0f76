"""Chat at an online table between app windows and a real server: two players, a watching
window, and a watcher writing through the API; reading back up a long chat."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QGuiApplication, QHelpEvent, QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QListWidget, QScrollBar, QToolTip
from pytestqt.qtbot import QtBot

from somnium_desktop.client.online import OnlineGame
from somnium_desktop.ui.chat_wrap import BREAK, wrappable
from somnium_desktop.ui.lobby_games import NAME
from somnium_desktop.ui.main_window import MainWindow
from somnium_server.config import RateLimit
from somnium_server.play import games
from tests.server.helpers import LiveServer, server_settings
from tests.ui.driver import activate

from .helpers import click_cell, close_windows, lobby_row, open_window, short_game
from .test_presence_window import create_signed_in


@pytest.fixture
def chatty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    """The lobby of conftest.py, whose chat takes any number of messages."""
    monkeypatch.setattr(games, "new_game", lambda seed: short_game())
    running = LiveServer(server_settings(tmp_path / "lobby.sqlite3", local_accounts=True,
                                         rate_chat=RateLimit(100_000, 1)))
    try:
        yield running
    finally:
        running.stop()


MARKUP = "hello <b>x</b><img src=https://example.invalid/a.png> &lt; &amp;"


def shown(window: MainWindow) -> list[str]:
    """The chat lines a window shows (hidden ones left out), as their literal text (without
    the invisible breaks that let long runs wrap)."""
    lines = window.chat_view.lines
    return [lines.item(n).text().replace(BREAK, "") for n in range(lines.count())
            if not lines.item(n).isHidden()]


def test_chat_reaches_both_players_and_a_watcher_as_plain_text(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    bea = open_window(qtbot, tmp_path, "Bea", lobby.base)
    cy = open_window(qtbot, tmp_path, "Cy", lobby.base)
    try:
        assert not ada.chat_view.isVisible()  # no online game on the table yet
        game = create_signed_in(qtbot, ada)
        qtbot.waitUntil(lambda: lobby_row(bea, game.game_id) >= 0, timeout=5000)
        activate(qtbot, bea)
        click_cell(bea, lobby_row(bea, game.game_id), 2)  # Join (signs in first)
        qtbot.waitUntil(lambda: isinstance(bea.source, OnlineGame), timeout=15000)
        bea.browser.join()  # type: ignore[attr-defined]
        qtbot.waitUntil(lambda: lobby_row(cy, game.game_id) >= 0, timeout=5000)
        click_cell(cy, lobby_row(cy, game.game_id), NAME)  # Cy watches, not signed in
        qtbot.waitUntil(lambda: isinstance(cy.source, OnlineGame), timeout=5000)
        qtbot.waitUntil(lambda: all(w.table.shown is not None for w in (ada, bea, cy)),
                        timeout=5000)
        assert ada.chat_view.isVisible() and cy.chat_view.isVisible()

        # Ada writes a message full of markup: everyone reads it as she typed it.
        activate(qtbot, ada)
        ada.chat_view.field.setFocus()
        ada.chat_view.field.setText(MARKUP)
        QTest.keyClick(ada.chat_view.field, Qt.Key.Key_Return)
        line = f"Ada: {MARKUP}"
        for window in (ada, bea, cy):
            qtbot.waitUntil(lambda w=window: shown(w) == [line], timeout=5000)  # type: ignore[misc]
        assert ada.chat_view.field.text() == ""
        item = cy.chat_view.lines.item(0)
        assert item.data(Qt.ItemDataRole.DisplayRole) == wrappable(line)  # plain, never HTML
        assert ada.table.shown is not None and not ada.table.shown.over  # the game goes on

        # A signed-in watcher writes; Ada hides watchers at her table, and shows them again.
        dan = lobby.player("Dan")
        assert dan.post(f"/games/{game.game_id}/chat", {"text": "nice draw"}).status_code == 201
        watched = "Dan (watching): nice draw"
        for window in (ada, bea, cy):
            qtbot.waitUntil(lambda w=window: watched in shown(w), timeout=5000)  # type: ignore[misc]
        ada.chat_view.hide_watchers.setChecked(True)
        assert shown(ada) == [line]
        assert watched in shown(bea)  # her own table's choice, not Bea's
        dan.post(f"/games/{game.game_id}/chat", {"text": "still here"})
        qtbot.waitUntil(lambda: "Dan (watching): still here" in shown(bea), timeout=5000)
        assert shown(ada) == [line]
        ada.chat_view.hide_watchers.setChecked(False)
        assert shown(ada) == [line, watched, "Dan (watching): still here"]

        # Bea blocks Dan: his lines leave her table and his next ones never reach it.
        lines = bea.chat_view.lines
        lines.setCurrentRow(1)
        assert bea.chat_view.block_button.isEnabled()
        QTest.mouseClick(bea.chat_view.block_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: shown(bea) == [line], timeout=5000)
        dan.post(f"/games/{game.game_id}/chat", {"text": "hello?"})
        ada.chat_view.field.setText("after")
        QTest.mouseClick(ada.chat_view.send_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "Dan (watching): hello?" in shown(cy), timeout=5000)
        qtbot.waitUntil(lambda: "Ada: after" in shown(bea), timeout=5000)
        assert shown(bea) == [line, "Ada: after"]
        ada.chat_view.lines.setCurrentRow(0)  # her own message: nobody to block
        assert not ada.chat_view.block_button.isEnabled()

        # Cy watches without a sign-in: writing signs him in first, then sends.
        assert cy.online is not None and cy.online.account is None
        cy.chat_view.field.setText("hi from Cy")
        QTest.mouseClick(cy.chat_view.send_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: cy.online is not None and cy.online.account is not None,
                        timeout=15000)
        cy.browser.join()  # type: ignore[attr-defined]
        # (each window hears it on its own stream: Cy's, opened again signed in, may be later)
        said = "Cy (watching): hi from Cy"
        for window in (ada, cy):
            qtbot.waitUntil(lambda w=window: said in shown(w), timeout=5000)  # type: ignore[misc]
        assert shown(cy)[-1] == said
    finally:
        close_windows(qtbot, ada, bea, cy)


def test_a_message_not_sent_stays_in_the_box(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    try:
        create_signed_in(qtbot, ada)
        qtbot.waitUntil(ada.chat_view.isVisible, timeout=5000)
        activate(qtbot, ada)
        view = ada.chat_view
        refused = "\u202e\u202e"  # (the server refuses it: nothing readable once cleaned)
        view.field.setText(refused)
        QTest.keyClick(view.field, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: view.status.text().startswith("Refused"), timeout=5000)
        assert view.field.text() == refused
        view.field.setText("good luck")
        QTest.keyClick(view.field, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: shown(ada) == ["Ada: good luck"], timeout=5000)
        assert view.field.text() == "" and view.status.text() == ""
        lobby.stop()  # out of reach: a long message typed is kept for another try
        typed = "a long message I typed carefully"
        view.field.setText(typed)
        QTest.mouseClick(view.send_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "cannot be reached" in view.status.text(), timeout=15000)
        assert view.field.text() == typed
    finally:
        close_windows(qtbot, ada)


def test_reading_back_up_the_chat_is_not_interrupted_by_new_lines(
    qtbot: QtBot, tmp_path: Path, chatty: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", chatty.base)
    try:
        game = create_signed_in(qtbot, ada)
        qtbot.waitUntil(ada.chat_view.isVisible, timeout=5000)
        view, dan = ada.chat_view, chatty.player("Dan")

        def say(text: str) -> None:
            assert dan.post(f"/games/{game.game_id}/chat", {"text": text}).status_code == 201

        for n in range(40):
            say(f"line {n}")
        lines, bar = view.lines, view.lines.verticalScrollBar()
        qtbot.waitUntil(lambda: lines.count() == 40, timeout=5000)
        assert bar.maximum() > 0 and bar.value() == bar.maximum()  # the newest line shown
        # Ada pages back up to the first lines and reads on.
        activate(qtbot, ada)
        while bar.value() > 0:
            bar.triggerAction(QScrollBar.SliderAction.SliderPageStepSub)
        assert not view.new_button.isVisible()
        say("one more")
        say("and another")
        qtbot.waitUntil(lambda: lines.count() == 42, timeout=5000)
        qtbot.wait(50)  # (a layout put off until the event loop runs)
        assert bar.value() == 0  # still where she reads
        assert view.new_button.isVisible() and view.new_button.text() == "2 new messages ↓"
        # The button takes her down to them; then the list follows new lines again.
        QTest.mouseClick(view.new_button, Qt.MouseButton.LeftButton)
        assert bar.value() == bar.maximum() and not view.new_button.isVisible()
        say("last")
        qtbot.waitUntil(lambda: lines.count() == 43, timeout=5000)
        qtbot.wait(50)
        assert bar.value() == bar.maximum() and not view.new_button.isVisible()
        assert lines.visualItemRect(lines.item(42)).intersects(lines.viewport().rect())
    finally:
        close_windows(qtbot, ada)


def test_scrolling_up_to_the_oldest_line_brings_the_earlier_ones(
    qtbot: QtBot, tmp_path: Path, chatty: LiveServer
) -> None:
    """A watcher opening a game with a long chat gets its newest lines; scrolled up to the
    oldest, the ones before it come, page by page, the line being read staying in view."""
    dan, ben = chatty.player("Dan"), chatty.player("Ben")
    game_id = dan.create()["id"]
    for n in range(120):
        assert dan.post(f"/games/{game_id}/chat", {"text": f"line {n}"}).status_code == 201
    cy = open_window(qtbot, tmp_path, "Cy", chatty.base)
    try:
        qtbot.waitUntil(lambda: lobby_row(cy, game_id) >= 0, timeout=5000)
        click_cell(cy, lobby_row(cy, game_id), NAME)
        lines, bar = cy.chat_view.lines, cy.chat_view.lines.verticalScrollBar()
        qtbot.waitUntil(lambda: lines.count() == 50, timeout=5000)  # the stream's newest 50
        assert shown(cy)[0] == "Dan: line 70" and bar.value() == bar.maximum()
        for oldest in (20, 0):
            activate(qtbot, cy)
            while bar.value() > 0:
                bar.triggerAction(QScrollBar.SliderAction.SliderPageStepSub)
            top = lines.itemAt(0, 0)
            qtbot.waitUntil(lambda o=oldest: shown(cy)[0] == f"Dan: line {o}",  # type: ignore[misc]
                            timeout=5000)
            assert top is not None and lines.itemAt(0, 0) is top  # the line she was reading
        assert shown(cy) == [f"Dan: line {n}" for n in range(120)]
        # The start of the chat: nothing more is asked for, and new lines still come.
        while bar.value() > 0:
            bar.triggerAction(QScrollBar.SliderAction.SliderPageStepSub)
        assert ben.post(f"/games/{game_id}/chat", {"text": "hello"}).status_code == 201
        qtbot.waitUntil(lambda: lines.count() == 121, timeout=5000)
        assert shown(cy)[-1] == "Ben (watching): hello" and cy.chat_view.status.text() == ""
    finally:
        close_windows(qtbot, cy)


def hovered_tip(qtbot: QtBot, lines: QListWidget, row: int) -> QLabel:
    """The tooltip Qt shows over a line of the chat, as a pointer resting on it asks."""
    QToolTip.hideText()
    at = lines.visualItemRect(lines.item(row)).center()
    QApplication.sendEvent(lines.viewport(), QHelpEvent(
        QEvent.Type.ToolTip, at, lines.viewport().mapToGlobal(at)))
    qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
    tips = [widget for widget in QApplication.topLevelWidgets()
            if isinstance(widget, QLabel) and widget.isVisible()
            and widget.text() == QToolTip.text()]
    assert len(tips) == 1
    return tips[0]


def tip_words(tip: QLabel) -> str:
    """What a tooltip reads, as plain text without the invisible breaks."""
    document = QTextDocument()
    document.setHtml(tip.text())
    return document.toPlainText().replace(BREAK, "")


def test_a_long_word_wraps_inside_the_panel_and_copies_as_written(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    """A message with a 300-character word, or a long link, wraps inside the chat panel, at
    the window's least width as at a wide one: no sideways scrolling, every character shown;
    Ctrl+C on it copies it as it was written. Its tooltip wraps too (it was one line 2,000
    pixels wide), and shows a message's markup as written."""
    dan = lobby.player("Dan")
    game_id = dan.create()["id"]
    word, link = "a" * 300, "https://example.invalid/" + "x" * 120
    for text in (word, f"see {link} ok", MARKUP):
        assert dan.post(f"/games/{game_id}/chat", {"text": text}).status_code == 201
    cy = open_window(qtbot, tmp_path, "Cy", lobby.base)
    try:
        qtbot.waitUntil(lambda: lobby_row(cy, game_id) >= 0, timeout=5000)
        click_cell(cy, lobby_row(cy, game_id), NAME)
        lines = cy.chat_view.lines
        qtbot.waitUntil(lambda: lines.count() == 3, timeout=5000)
        assert shown(cy) == [f"Dan: {word}", f"Dan: see {link} ok", f"Dan: {MARKUP}"]
        spacing = lines.fontMetrics().lineSpacing()
        widths = []
        for size in (cy.minimumSize(), cy.size()):
            cy.resize(size)
            # (the list lays its items out again once the event loop runs)
            qtbot.waitUntil(lambda: lines.horizontalScrollBar().maximum() == 0, timeout=2000)
            room = lines.viewport().width()
            widths.append(lines.width())
            for row, least in ((0, 300 * lines.fontMetrics().horizontalAdvance("a") // room),
                               (1, 2)):
                rect = lines.visualItemRect(lines.item(row))
                assert rect.width() <= room and rect.height() >= least * spacing, (size, row)
        assert widths[0] <= 320 < widths[1]  # (the least window's chat: about 300 pixels)
        activate(qtbot, cy)
        lines.setFocus()
        lines.setCurrentRow(0)
        QTest.keyClick(lines, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
        assert QGuiApplication.clipboard().text() == f"Dan: {word}"
        for row, text in enumerate((word, f"see {link} ok", MARKUP)):
            tip = hovered_tip(qtbot, lines, row)
            assert tip_words(tip) == text  # (the markup as written, not bold)
            assert tip.width() <= 600 and tip.height() < 20 * tip.fontMetrics().height()
        QToolTip.hideText()
    finally:
        close_windows(qtbot, cy)
