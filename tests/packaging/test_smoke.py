"""`somnium --smoke-test`: passes on a good install and names what is wrong on a broken one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QIcon
from pytestqt.qtbot import QtBot

from somnium_desktop.assets import deck_svg, icon_svg
from somnium_desktop.ui.cards import CardDeck
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.settings import Settings
from somnium_desktop.ui.smoke import problems


def isolated_env(tmp_path: Path) -> dict[str, str]:
    """The environment for a run of the app that keeps its files under tmp_path."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for name in ("STATE", "CONFIG", "DATA", "CACHE"):
        env[f"XDG_{name}_HOME"] = str(tmp_path / name.lower())
    return env


def test_the_smoke_test_passes_from_the_checkout(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "somnium_desktop", "--smoke-test", "--no-log-file"],
        capture_output=True, text=True, timeout=120, env=isolated_env(tmp_path),
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (line,) = [line for line in run.stdout.splitlines() if line.startswith("smoke test:")]
    assert "painted on offscreen" in line and line.endswith(f"card art {deck_svg()}")


def _window(qtbot: QtBot, tmp_path: Path, deck: CardDeck) -> MainWindow:
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(settings=settings, deck=deck)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_missing_art_and_icon_are_named(qtbot: QtBot, tmp_path: Path) -> None:
    window = _window(qtbot, tmp_path, CardDeck(path=tmp_path / "nowhere.svg"))
    window.setWindowIcon(QIcon(str(tmp_path / "nowhere.svg")))
    assert problems(window, window.table.deck) == [
        f"the card art is missing: {tmp_path / 'nowhere.svg'}",
        "the window icon does not render",
    ]
    window.close()


def test_art_without_every_card_is_named(qtbot: QtBot, tmp_path: Path) -> None:
    partial = tmp_path / "deck.svg"
    partial.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
        '<rect id="back" width="10" height="10"/></svg>', encoding="utf-8"
    )
    window = _window(qtbot, tmp_path, CardDeck(path=partial))
    window.setWindowIcon(QIcon(str(icon_svg())))
    assert problems(window, window.table.deck) == [
        "the card art lacks 62 elements, e.g. angels_3"
    ]
    window.close()
