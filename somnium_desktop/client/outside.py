"""Programs outside the app (the system browser): started with the player's own environment.

In the PyInstaller bundle the bootloader puts the bundle's folder first on LD_LIBRARY_PATH
(keeping the player's own in LD_LIBRARY_PATH_ORIG), adds variables of its own (`_PYI_...`) and
PySide6's run-time hook points Qt's plugin and QML paths into the bundle. The app's own
children (the built-in server, its analysis worker) are the bundle again and need all that; a
program of the system does not: with the bundle's libraries before its own, xdg-open or a
browser can fail to start on a newer system than the build machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import webbrowser
from collections.abc import Callable, Mapping
from pathlib import Path

LIBRARY_PATH = "LD_LIBRARY_PATH"
SAVED_LIBRARY_PATH = "LD_LIBRARY_PATH_ORIG"  # the bootloader's copy of the player's own
LOADER_PREFIXES = ("_PYI_", "_MEIPASS")  # the bootloader's own (older ones: _MEIPASS2)
BUNDLE_PATH_LISTS = ("QT_PLUGIN_PATH", "QML2_IMPORT_PATH")  # set by PySide6's run-time hook
# the system's openers, tried in this order on the player's own PATH: each command line is
# followed by the address
OPENERS: tuple[tuple[str, ...], ...] = (
    ("xdg-open",), ("gio", "open"), ("sensible-browser",), ("x-www-browser",))


def running_bundle() -> Path | None:
    """The folder of the PyInstaller bundle this app runs from (None: not frozen)."""
    if getattr(sys, "frozen", False):
        return Path(sys.executable).parent
    return None


def outside_environment(environ: Mapping[str, str], bundle: Path | None) -> dict[str, str]:
    """The environment for a program outside the app: `environ` without what the bundle
    (its folder `bundle`; None when the app is not frozen) added to it."""
    outside = dict(environ)
    if bundle is None:
        return outside
    saved = outside.pop(SAVED_LIBRARY_PATH, None)
    if saved is None:
        outside.pop(LIBRARY_PATH, None)
    else:
        outside[LIBRARY_PATH] = saved
    for name in [name for name in outside if name.startswith(LOADER_PREFIXES)]:
        del outside[name]
    for name in BUNDLE_PATH_LISTS:
        if name in outside:
            kept = [part for part in outside[name].split(os.pathsep)
                    if part and not Path(part).is_relative_to(bundle)]
            if kept:
                outside[name] = os.pathsep.join(kept)
            else:
                del outside[name]
    return outside


def open_outside(url: str, bundle: Path | None, fallback: Callable[[str], object]) -> bool:
    """Open `url` in the system browser; True if it was handed on.

    From a bundle (`bundle`, its folder) through the first of OPENERS found on the player's
    own PATH, with the player's own environment; not frozen, or where there is none of them,
    through `fallback` (Qt's or Python's opener, which start it with this process's
    environment)."""
    if bundle is not None:
        environment = outside_environment(os.environ, bundle)
        path = environment.get("PATH", os.defpath)
        for name, *words in OPENERS:
            opener = shutil.which(name, path=path)
            if opener is not None and _start(name, [opener, *words, url], environment):
                return True
    return bool(fallback(url))


def _start(name: str, command: list[str], environment: dict[str, str]) -> bool:
    """Start an opener, detached; False if it could not be started."""
    try:
        child = subprocess.Popen(command, env=environment, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
    except OSError:
        return False
    # an opener may wait for the browser it starts: reap it whenever it ends.
    threading.Thread(target=child.wait, name=name, daemon=True).start()
    return True


def system_browser(url: str) -> bool:
    """Open `url` in the system browser, as the running app (frozen or not) should."""
    return open_outside(url, running_bundle(), webbrowser.open)
