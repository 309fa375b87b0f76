"""The table at the window's least size: the odds over the deck, the piles' counts and the
coach's answer are shown whole, and nothing is drawn over the cards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QGraphicsSimpleTextItem
from pytestqt.qtbot import QtBot

from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.scene import SLOTS, TableScene
from somnium_desktop.ui.settings import Settings
from tests.ui.conftest import offline_window
from tests.ui.odds_shown import counted

WIDEST_ODDS = ["Odds", "Bust 100%", "Death 100%", "Fools left 3"]


@pytest.fixture
def least(qtbot: QtBot, settings: Settings) -> Iterator[MainWindow]:
    """A window at its least size, an offline game on its table, the odds on."""
    settings.practice_odds = True
    settings.reduced_motion = True
    with offline_window(qtbot, settings) as window:
        window.resize(window.minimumSize())
        qtbot.waitUntil(lambda: window.size() == window.minimumSize(), timeout=2000)
        qtbot.wait(50)  # (the scene lays itself out again once the event loop runs)
        yield window


def shown_odds(scene: TableScene) -> list[QGraphicsSimpleTextItem]:
    return [label for label in scene.odds_labels if label.isVisible()]


def test_the_odds_are_shown_whole_beside_the_table(least: MainWindow) -> None:
    table = least.table
    assert table.view.width() < 420  # (where "Fools left 3" was cut to "Fools le…")
    view = table.shown
    assert view is not None
    scene = table.scene
    geometry = scene.geometry
    edge = geometry.bank_x - 0.1 * geometry.card_w  # (the band around the table row)
    for lines in (["Odds", *counted(view)], WIDEST_ODDS):
        scene.set_odds(lines)
        labels = shown_odds(scene)
        assert " ".join(label.text() for label in labels) == " ".join(lines)  # no "…"
        for label in labels:
            rect = label.sceneBoundingRect()
            assert rect.left() >= 0 and rect.top() >= 0, (label.text(), rect)
            assert rect.right() <= edge, (label.text(), rect)  # clear of the table's row
        assert labels[-1].sceneBoundingRect().bottom() <= geometry.row_y  # over the deck


def shown_labels(scene: TableScene) -> list[QGraphicsSimpleTextItem]:
    return [item for item in scene.items()
            if isinstance(item, QGraphicsSimpleTextItem) and item.isVisible() and item.text()]


def assert_labels_whole_and_apart(scene: TableScene) -> None:
    """Every label of the scene in full, inside it, over no other and clear of the table's
    row (the band around it)."""
    geometry = scene.geometry
    row = geometry.table_pos(0).x() - 0.1 * geometry.card_w, \
        geometry.table_pos(SLOTS - 1).x() + 1.1 * geometry.card_w
    labels = shown_labels(scene)
    for n, label in enumerate(labels):
        rect = label.sceneBoundingRect()
        assert "…" not in label.text(), label.text()
        assert scene.sceneRect().contains(rect), (label.text(), rect)
        assert rect.right() <= row[0] or rect.left() >= row[1], (label.text(), rect, row)
        for other in labels[n + 1:]:
            assert not rect.intersects(other.sceneBoundingRect()), (label.text(), other.text())


def discard_words(scene: TableScene) -> str:
    labels = [scene.discard_label, scene.discard_count]
    return " ".join(label.text() for label in labels if label.isVisible())


@pytest.mark.parametrize("discarded", [10, 50])
def test_the_piles_counts_are_shown_whole(least: MainWindow, discarded: int) -> None:
    scene = least.table.scene
    scene.set_odds(WIDEST_ODDS)
    scene.discard_pile.extend(scene.deck_pile[:discarded])  # ("Discard 10" was "Discar…")
    scene.set_deck_info(54, 3, True)
    assert_labels_whole_and_apart(scene)
    # (the computer may have discarded a bust of its own already: "Discard 12")
    assert len(scene.discard_pile) >= discarded
    assert discard_words(scene) == f"Discard {len(scene.discard_pile)}"
    # (about 36 pixels right of the table row here: the count goes under its word)
    assert scene.discard_count.isVisible()
    assert scene.discard_count.sceneBoundingRect().top() \
        >= scene.discard_label.sceneBoundingRect().bottom()


def test_the_coach_answer_has_its_lines_and_covers_no_cards(
    qtbot: QtBot, least: MainWindow
) -> None:
    table = least.table
    answer = table.coach.answer
    table.coach.ask()
    qtbot.waitUntil(lambda: answer.text().startswith("The expert would"), timeout=10000)
    qtbot.wait(50)  # (the layout settles once the event loop runs)
    assert answer.heightForWidth(answer.width()) <= answer.height()  # every line shown
    view = table.view
    assert view.height() >= view.minimumHeight()
    assert view.geometry().bottom() < table.me.geometry().top()  # the player's strip under it
