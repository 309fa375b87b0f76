"""Adds Somnium to this user's application menu: desktop entry, icons, AppStream metainfo.

Wheels (and so pipx) cannot place files in ~/.local/share, so `somnium --install-desktop` does
it: the desktop entry from packaging/desktop/ with an absolute Exec, the SVG icon plus PNG sizes
rendered from it with QtSvg, and the metainfo; `--uninstall-desktop` takes them out again.
Everything goes under $XDG_DATA_HOME (by default ~/.local/share).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from .assets import APP_ID, desktop_file, icon_svg

#: PNG sizes rendered from the SVG icon, for menus and docks that do not draw SVG.
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)
# Characters that make a desktop entry's Exec argument need quoting (Desktop Entry Spec, Exec).
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def data_home(environ: dict[str, str] | None = None) -> Path:
    """$XDG_DATA_HOME when set to an absolute path, else ~/.local/share (XDG Base Directory)."""
    value = (os.environ if environ is None else environ).get("XDG_DATA_HOME", "")
    return Path(value) if os.path.isabs(value) else Path.home() / ".local" / "share"


def launch_command() -> list[str]:
    """The absolute command that starts this very installation of Somnium."""
    if getattr(sys, "frozen", False):  # a PyInstaller bundle: its executable
        return [str(Path(sys.executable).absolute())]
    # pipx and pip put the `somnium` script beside the environment's python (not resolved:
    # a venv's python is a symlink out of the venv).
    script = Path(sys.executable).absolute().parent / (
        "somnium.exe" if sys.platform == "win32" else "somnium"
    )
    if script.is_file():
        return [str(script)]
    return [str(Path(sys.executable).absolute()), "-m", "somnium_desktop"]


def exec_value(command: Sequence[str]) -> str:
    """The command as a desktop entry's Exec value: quoted, escaped, % doubled."""
    words = []
    for word in command:
        word = word.replace("%", "%%")
        if _RESERVED & set(word):
            inner = "".join("\\" + c if c in '"`$\\' else c for c in word)
            word = f'"{inner}"'
        words.append(word)
    # The value is itself a string value: its backslashes are escaped once more.
    return " ".join(words).replace("\\", "\\\\")


#: The app id of releases up to 0.1.0, whose files --install-desktop replaces and
#: --uninstall-desktop removes too.
FORMER_APP_ID = "io.github.somnium_desktop.Somnium"


def installed_paths(home: Path, app_id: str = APP_ID) -> list[Path]:
    """Every file --install-desktop writes under the data home `home`."""
    hicolor = home / "icons" / "hicolor"
    return [
        home / "applications" / f"{app_id}.desktop",
        home / "metainfo" / f"{app_id}.metainfo.xml",
        hicolor / "scalable" / "apps" / f"{app_id}.svg",
        *(hicolor / f"{size}x{size}" / "apps" / f"{app_id}.png" for size in ICON_SIZES),
    ]


def _remove(paths: list[Path]) -> list[Path]:
    """Remove those of `paths` that are files; returns them."""
    removed = []
    for path in paths:
        if path.is_file():
            path.unlink()
            removed.append(path)
    return removed


def desktop_entry_text(command: Sequence[str]) -> str:
    """The packaged desktop entry with Exec (and TryExec) pointing at `command`."""
    lines = []
    for line in desktop_file(".desktop").read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            lines.append(f"TryExec={exec_value(command[:1])}")
            line = f"Exec={exec_value(command)}"
        elif line.startswith("TryExec="):
            continue
        lines.append(line)
    return "\n".join(lines) + "\n"


def _gui() -> object:
    """The running Qt application, or a new one with no display (nothing is shown)."""
    from PySide6.QtGui import QGuiApplication

    return QGuiApplication.instance() or QGuiApplication(["somnium", "-platform", "offscreen"])


def render_icon(svg: Path, size: int, target: Path) -> None:
    """Render the SVG icon to a square PNG of `size` pixels with a transparent background."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise OSError(f"cannot read the icon {svg}")
    renderer.setAspectRatioMode(Qt.AspectRatioMode.KeepAspectRatio)
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    if not image.save(str(target)):  # a PNG, by the suffix
        raise OSError(f"cannot write {target}")


def install(home: Path | None = None, command: Sequence[str] | None = None) -> list[Path]:
    """Write the desktop entry, icons and metainfo under `home`; returns the files written."""
    home = data_home() if home is None else home
    command = launch_command() if command is None else command
    _remove(installed_paths(home, FORMER_APP_ID))  # one entry in the menu, not two
    entry, metainfo, scalable, *pngs = installed_paths(home)
    for path in (entry, metainfo, scalable, *pngs):
        path.parent.mkdir(parents=True, exist_ok=True)
    entry.write_text(desktop_entry_text(command), encoding="utf-8")
    shutil.copyfile(desktop_file(".metainfo.xml"), metainfo)
    shutil.copyfile(icon_svg(), scalable)
    app = _gui()  # kept until the icons are rendered (fonts need an application)
    for size, png in zip(ICON_SIZES, pngs, strict=True):
        render_icon(icon_svg(), size, png)
    del app
    return [entry, metainfo, scalable, *pngs]


def uninstall(home: Path | None = None) -> list[Path]:
    """Remove what install() wrote under `home`; returns the files removed."""
    home = data_home() if home is None else home
    return _remove(installed_paths(home) + installed_paths(home, FORMER_APP_ID))


def main(remove: bool) -> int:
    """`somnium --install-desktop` / `--uninstall-desktop`: do it and say what was done."""
    try:
        if remove:
            paths = uninstall()
            print(f"Removed {len(paths)} files:" if paths else "Nothing to remove.")
        else:
            paths = install()
            print(f"Somnium is in the application menu ({len(paths)} files written):")
    except OSError as error:
        print(f"somnium: {error}", file=sys.stderr)
        return 1
    for path in paths:
        print(f"  {path}")
    return 0
