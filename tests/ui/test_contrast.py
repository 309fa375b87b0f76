"""Colours a player can tell apart: text 4.5:1, icons 3:1, focus unlike whose turn it is,
and dialog buttons in the app's look (no icons from the desktop's theme)."""

from __future__ import annotations

import statistics
from collections.abc import Iterator

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QApplication,
    QDialogButtonBox,
    QMessageBox,
    QProxyStyle,
    QStyle,
    QStyleFactory,
    QWidget,
)
from pytestqt.qtbot import QtBot

from somnium_desktop.game import Suit
from somnium_desktop.ui import style
from somnium_desktop.ui.table import TableWidget
from tests.ui.driver import wait_for_input
from tests.ui.measure import contrast
from tests.ui.test_table import start

pytestmark = pytest.mark.usefixtures("qapp", "app_style")

TEXT_ON = [  # (text colour, background) as the style sheet and the palette pair them
    (style.TEXT, style.WINDOW), (style.TEXT, style.PANEL), (style.TEXT, style.BASE),
    (style.MUTED, style.WINDOW), (style.MUTED, style.PANEL), (style.MUTED, style.BASE),
    (style.ACCENT, style.PANEL), (style.ACCENT, style.WINDOW), (style.ACCENT, "#262151"),
    (style.ACCENT_TEXT, style.ACCENT), (style.TEXT, "#2b2659"), (style.ERROR, style.PANEL),
    (style.TEXT, "#141229"),
]


@pytest.mark.parametrize(("ink", "paper"), TEXT_ON)
def test_text_has_a_contrast_of_4_5(ink: str, paper: str) -> None:
    assert contrast(QColor(ink), QColor(paper)) >= 4.5


def test_the_palettes_text_roles_have_a_contrast_of_4_5() -> None:
    palette = QApplication.palette()
    pairs = [(palette.windowText(), palette.window()), (palette.text(), palette.base()),
             (palette.buttonText(), palette.button()), (palette.placeholderText(), palette.base()),
             (palette.highlightedText(), palette.highlight()), (palette.link(), palette.base()),
             (palette.toolTipText(), palette.toolTipBase())]
    for ink, paper in pairs:
        assert contrast(ink.color(), paper.color()) >= 4.5, (ink.color().name(), paper.color())


def test_empty_slots_emblems_have_a_contrast_of_3(qtbot: QtBot, table: TableWidget) -> None:
    table.resize(1280, 800)
    qtbot.wait(30)
    image = table.view.grab().toImage()
    scene = table.scene
    for row in (0, 1):
        for suit in Suit:
            emblem = scene._emblems[row][suit]  # (the empty slot's emblem, as drawn)
            ink = emblem.pixmap().toImage()
            slot = scene._counting_rect(suit, row == 0)
            paper = image.pixelColor(int(slot.left()) + 4, int(slot.top()) + 4)
            x0, y0 = int(emblem.pos().x()), int(emblem.pos().y())
            seen = [contrast(image.pixelColor(x0 + x, y0 + y), paper)
                    for y in range(ink.height()) for x in range(ink.width())
                    if ink.pixelColor(x, y).alphaF() > 0.5]
            assert statistics.median(seen) >= 3.0, (suit.label, statistics.median(seen))


def hue_apart(a: QColor, b: QColor) -> int:
    apart = abs(a.hslHue() - b.hslHue()) % 360
    return min(apart, 360 - apart)


def test_focus_and_turn_have_colours_of_their_own(qtbot: QtBot, table: TableWidget) -> None:
    start(table)
    wait_for_input(qtbot, table)
    table.view.setFocus()
    qtbot.waitUntil(table.view.hasFocus)
    qtbot.wait(30)
    ring = table.view.grab().toImage().pixelColor(0, table.view.height() // 2)
    strip = table.me if table.me.property("active") else table.opponent
    turn = strip.grab().toImage().pixelColor(1, strip.height() // 2)
    assert turn == QColor(style.ACCENT) and ring == QColor(style.FOCUS)
    assert hue_apart(ring, turn) >= 90  # gold and sky blue, not one accent for both
    felt = QColor(style.WINDOW)
    assert contrast(ring, felt) >= 3.0 and contrast(turn, felt) >= 3.0


class ThemedIcons(QProxyStyle):
    """Fusion asked by a desktop theme (GTK's, say) to put icons on dialog buttons."""

    def styleHint(self, hint: QStyle.StyleHint, option: object = None,
                  widget: QWidget | None = None, returnData: object = None) -> int:
        if hint == QStyle.StyleHint.SH_DialogButtonBox_ButtonsHaveIcons:
            return 1
        return super().styleHint(hint, option, widget, returnData)  # type: ignore[arg-type]


@pytest.fixture
def themed() -> Iterator[None]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = app.style().name()
    fusion = QStyleFactory.create("Fusion")
    app.setStyle(ThemedIcons(fusion))
    try:
        yield
    finally:
        app.setStyle(before)


@pytest.mark.usefixtures("themed")
def test_dialog_buttons_carry_no_theme_icons(qtbot: QtBot) -> None:
    plain = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok)
    qtbot.addWidget(plain)
    box = QMessageBox(QMessageBox.Icon.Question, "Concede the game?", "Concede?",
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
    qtbot.addWidget(box)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                               | QDialogButtonBox.StandardButton.Cancel)
    qtbot.addWidget(buttons)
    for button in [*box.buttons(), *buttons.buttons()]:
        assert button.icon().isNull(), button.text()
