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
    for typed in ("lobby.example.org", "127.0.0.1:8000"):
        settings.server_url = typed
        settings.sync()
        assert server_is_set(path), typed
    store.setValue("online/server", "https://a.example/x, y")  # (INI quoting; the app would
    settings.sync()                                            # refuse it: a space)
    assert server_is_set(path)
    settings.server_url = ""
    settings.sync()
    assert not server_is_set(path)


def _in_child(code: str, home: Path) -> str:
    """Run `code` in a fresh interpreter whose settings and data live under `home`."""
    env = dict(os.environ, XDG_CONFIG_HOME=str(home / "config"),
               XDG_DATA_HOME=str(home / "data"))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True, timeout=60).stdout.strip()


SET_SERVER = ("from somnium_desktop.ui.settings import Settings; s = Settings(); "
              "s.server_url = {typed!r}; s.sync(); ")


def test_after_qt_the_setting_reads_as_it_does_without_qt(tmp_path: Path) -> None:
    check = "from somnium_desktop import early; print(early.server_set_in_qt())"
    assert _in_child(check, tmp_path) == "False"  # no settings yet
    for typed in ("lobby.example.org", ""):
        _in_child(SET_SERVER.format(typed=typed), tmp_path)
        assert _in_child(check, tmp_path) == str(bool(typed))
        if sys.platform.startswith("linux"):
            path = tmp_path / "config" / ORGANIZATION / f"{APPLICATION}.conf"
            assert server_is_set(path) == bool(typed)


def test_where_only_qt_can_read_the_settings_the_server_begins_after_qt(tmp_path: Path) -> None:
    # As on Windows or macOS: no settings file to read before Qt (platformdirs imported
    # first, so that the server's data still goes under this test's XDG_DATA_HOME).
    begin = ("import sys, platformdirs; sys.platform = 'darwin'; "
             "from somnium_desktop import early; "
             "assert early.begin_built_in_server() is None; server = early.begin_after_qt(); "
             "print(server is not None and server.ensure().startswith('http://127.0.0.1:')); "
             "server and server.stop()")
    data = tmp_path / "data" / APPLICATION / "local-server"
    assert _in_child(begin, tmp_path) == "True"
    assert (data / "somnium.sqlite3").is_file()  # the built-in server's, in the user's data
    _in_child(SET_SERVER.format(typed="lobby.example.org"), tmp_path)
    assert _in_child(begin, tmp_path) == "False"  # another server is set: none begun
