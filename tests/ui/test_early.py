"""The early start of the built-in server: it reads the app's own settings (QSettings, with
QtCore alone) and begins the server before Qt's widgets are loaded, unless another is set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from somnium_desktop.early import APPLICATION


def _in_child(code: str, home: Path) -> str:
    """Run `code` in a fresh interpreter whose settings and data live under `home`."""
    env = dict(os.environ, XDG_CONFIG_HOME=str(home / "config"),
               XDG_DATA_HOME=str(home / "data"))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True, timeout=60).stdout.strip()


SET_SERVER = ("from somnium_desktop.ui.settings import Settings; s = Settings(); "
              "s.server_url = {typed!r}; s.reduced_motion = True; s.sync(); ")
# an address the settings dialog refuses (a space), as an older release may have stored it
SET_RAW = ("from somnium_desktop.ui.settings import SERVER_KEY, Settings; s = Settings(); "
           "s.store.setValue(SERVER_KEY, {typed!r}); s.sync(); ")
CHECK = "from somnium_desktop import early; print(early.server_is_set())"


def test_a_server_set_in_the_settings_is_seen_before_the_app_starts(tmp_path: Path) -> None:
    assert _in_child(CHECK, tmp_path) == "False"  # no settings yet: the built-in server
    for typed in ("lobby.example.org", "127.0.0.1:8000", "https://a.example/x, y", ""):
        _in_child((SET_RAW if " " in typed else SET_SERVER).format(typed=typed), tmp_path)
        assert _in_child(CHECK, tmp_path) == str(bool(typed)), typed


BEGIN = """
import sys
from somnium_desktop import early
server = early.begin_built_in_server()
loaded = [name for name in ("PySide6.QtGui", "PySide6.QtWidgets") if name in sys.modules]
print(loaded, server is not None and server.ensure().startswith("http://127.0.0.1:"))
if server is not None:
    server.stop()
"""


def test_the_built_in_server_begins_before_the_widgets_load(tmp_path: Path) -> None:
    assert _in_child(BEGIN, tmp_path) == "[] True"
    data = tmp_path / "data" / APPLICATION / "local-server"
    assert (data / "somnium.sqlite3").is_file()  # the built-in server's, in the user's data
    _in_child(SET_SERVER.format(typed="lobby.example.org"), tmp_path)
    assert _in_child(BEGIN, tmp_path) == "[] False"  # another server is set: none begun
