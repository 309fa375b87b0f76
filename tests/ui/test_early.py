"""The early start of the built-in server: it reads the settings file QSettings writes, rightly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from somnium_desktop.early import APPLICATION, ORGANIZATION, server_is_set, settings_file
from somnium_desktop.ui.settings import Settings


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the INI file is Linux's")
def test_the_settings_file_is_where_qsettings_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    qt_says = subprocess.run(
        [sys.executable, "-c", "from PySide6.QtCore import QSettings; "
         f"print(QSettings({ORGANIZATION!r}, {APPLICATION!r}).fileName())"],
        env=os.environ, capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert settings_file() == Path(qt_says)


def test_a_server_set_in_settings_is_seen_without_qt(tmp_path: Path) -> None:
    path = tmp_path / "Somnium Desktop.conf"
    assert not server_is_set(path)  # no settings yet: the built-in server
    store = QSettings(str(path), QSettings.Format.IniFormat)
    settings = Settings(store)
    settings.reduced_motion = True
    settings.sync()
    assert not server_is_set(path)
    for typed in ("lobby.example.org", "127.0.0.1:8000", "https://a.example/x, y"):
        settings.server_url = typed
        settings.sync()
        assert server_is_set(path), typed
    settings.server_url = ""
    settings.sync()
    assert not server_is_set(path)
