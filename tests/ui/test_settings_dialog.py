"""The Settings dialog: the server's address is checked, and every part of it can be seen."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox, QStyle, QStyleOptionButton, QStyleOptionFrame
from pytestqt.qtbot import QtBot

from somnium_desktop.client.server_address import AddressError, checked_address
from somnium_desktop.ui.settings import Settings
from somnium_desktop.ui.settings_dialog import SERVER_PLACEHOLDER, SettingsDialog
from tests.ui.measure import strongest
from tests.ui.test_accessibility_tree import found


@pytest.fixture
def dialog(qtbot: QtBot, settings: Settings, app_style: None) -> Iterator[SettingsDialog]:
    shown = SettingsDialog(settings)
    qtbot.addWidget(shown)
    shown.show()
    qtbot.waitExposed(shown)
    yield shown
    shown.close()


def press_ok(dialog: SettingsDialog) -> None:
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert ok is not None
    QTest.mouseClick(ok, Qt.MouseButton.LeftButton)


@pytest.mark.parametrize("typed", ["not a url at all", "https://", "ftp://lobby.example.org",
                                   "https://lobby..example.org", "https://lobby.example.org:99999",
                                   "https://x.org/?q=1"])
def test_what_is_no_address_is_refused_and_not_stored(
    dialog: SettingsDialog, settings: Settings, typed: str
) -> None:
    dialog.server.setText(typed)
    press_ok(dialog)
    assert dialog.isVisible()  # still open, saying why
    assert dialog.problem.isVisible()
    assert f"“{typed}” is not a web address" in dialog.problem.text()  # as typed
    node = found(dialog, QAccessible.Role.StaticText, dialog.problem.text())
    assert node is not None  # a screen reader reads the problem, not what it is about
    assert node.text(QAccessible.Text.Description) == "Problem with the server address"
    assert settings.server_url == ""
    with pytest.raises(AddressError):
        settings.server_url = typed  # nor can it be stored another way
    assert settings.store.value("online/server", "") in ("", None)


def test_plain_http_is_for_this_computer_only(dialog: SettingsDialog, settings: Settings) -> None:
    dialog.server.setText("http://lobby.example.org")
    press_ok(dialog)
    assert dialog.isVisible()
    assert "plain http" in dialog.problem.text() and "https://" in dialog.problem.text()
    assert settings.server_url == ""
    dialog.server.setText("http://127.0.0.1:8000")  # typing again clears the problem
    QTest.keyClick(dialog.server, Qt.Key.Key_End)
    QTest.keyClicks(dialog.server, "/")
    assert not dialog.problem.isVisible()
    press_ok(dialog)
    assert not dialog.isVisible()
    assert settings.server_url == "http://127.0.0.1:8000"


def test_addresses_that_work() -> None:
    assert checked_address(" somnium.example.org/ ") == "https://somnium.example.org"
    assert checked_address("lobby.example.org:8443/somnium") == (
        "https://lobby.example.org:8443/somnium")
    assert checked_address("localhost:8000") == "http://localhost:8000"
    assert checked_address("[::1]:9") == "http://[::1]:9"
    assert checked_address("https://10.0.0.7") == "https://10.0.0.7"
    assert checked_address("") == ""
    with pytest.raises(AddressError, match="plain http"):
        checked_address("http://10.0.0.7:8000")


def test_the_placeholder_is_not_cut(dialog: SettingsDialog) -> None:
    field = dialog.server
    assert field.text() == "" and field.placeholderText() == SERVER_PLACEHOLDER
    option = QStyleOptionFrame()
    field.initStyleOption(option)
    inside = field.style().subElementRect(QStyle.SubElement.SE_LineEditContents, option, field)
    margins = field.textMargins()
    room = inside.width() - margins.left() - margins.right() - 4  # (Qt's 2-pixel side margins)
    assert room >= field.fontMetrics().horizontalAdvance(SERVER_PLACEHOLDER)


def test_an_unchecked_box_can_be_seen(dialog: SettingsDialog) -> None:
    box = dialog.reduced_motion
    for checked in (False, True):
        box.setChecked(checked)
        option = QStyleOptionButton()
        box.initStyleOption(option)
        indicator = box.style().subElementRect(
            QStyle.SubElement.SE_CheckBoxIndicator, option, box)
        assert indicator.width() >= 12
        image = box.grab().toImage()
        background = dialog.palette().window().color()
        assert strongest(image, indicator, background) >= 3.0, checked
