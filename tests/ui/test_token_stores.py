"""The app's token stores: with no sign-in ever kept on the computer, looking for one loads no
keyring; once one is kept (through the keyring), the next start finds it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LOOK = """
import sys
from PySide6.QtCore import QSettings
from somnium_desktop.ui.token_stores import SystemTokenStores
from somnium_desktop.ui.settings import Settings

store = QSettings(sys.argv[1], QSettings.Format.IniFormat)
found = SystemTokenStores(Settings(store)).existing("http://127.0.0.1:9")
print(found.load() if found is not None else None, "keyring" in sys.modules)
"""

KEEP = """
from somnium_desktop.client.credentials import store_for
store_for("http://127.0.0.1:9").save("kept-token")
"""


def _run(code: str, home: Path) -> str:
    env = dict(os.environ, XDG_CACHE_HOME=str(home / "cache"), XDG_DATA_HOME=str(home / "data"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               PYTHON_KEYRING_BACKEND="tests.signin.helpers.TrustedFileKeyring")
    return subprocess.run([sys.executable, "-c", code, str(home / "settings.ini")], env=env,
                          cwd=ROOT, capture_output=True, text=True, check=True,
                          timeout=60).stdout.strip()


def test_no_sign_in_ever_kept_loads_no_keyring(tmp_path: Path) -> None:
    assert _run(LOOK, tmp_path) == "None False"
    _run(KEEP, tmp_path)  # a sign-in kept in the (secure) keyring, as signing in does
    assert _run(LOOK, tmp_path) == "kept-token True"
