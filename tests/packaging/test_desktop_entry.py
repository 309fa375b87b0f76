"""`somnium --install-desktop`: a valid desktop entry, icons and metainfo for this user."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from somnium_desktop.assets import APP_ID, desktop_file, icon_svg
from somnium_desktop.desktop_entry import (
    FORMER_APP_ID,
    ICON_SIZES,
    data_home,
    desktop_entry_text,
    exec_value,
    install,
    installed_paths,
    uninstall,
)

from .validators import validate_desktop_entry, validate_metainfo

ROOT = Path(__file__).resolve().parents[2]


def _somnium(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(home), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-m", "somnium_desktop", *args],
        capture_output=True, text=True, timeout=120, env=env,
    )


def _entry(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if "=" in line)


def test_the_packaged_files_pass_the_freedesktop_validators() -> None:
    assert desktop_file(".desktop") == ROOT / "packaging" / "desktop" / f"{APP_ID}.desktop"
    validate_desktop_entry(desktop_file(".desktop"))
    report = validate_metainfo(desktop_file(".metainfo.xml"))
    assert "Validation was successful" in report


def test_install_desktop_writes_a_valid_entry_that_starts_this_install(tmp_path: Path) -> None:
    home = tmp_path / "share"
    run = _somnium("--install-desktop", home=home)
    assert run.returncode == 0, run.stderr
    written = installed_paths(home)
    assert all(path.is_file() for path in written)
    assert [str(path) for path in written] == [
        line.strip() for line in run.stdout.splitlines()[1:]
    ]

    entry_path = home / "applications" / f"{APP_ID}.desktop"
    validate_desktop_entry(entry_path)
    entry = _entry(entry_path)
    # This checkout's venv has the `somnium` script beside its python.
    script = Path(sys.executable).absolute().parent / "somnium"
    assert script.is_file()
    assert entry["Exec"] == entry["TryExec"] == str(script)
    assert entry["Icon"] == APP_ID
    assert entry["Name"] == "Somnium"

    icons = home / "icons" / "hicolor"
    svg = icons / "scalable" / "apps" / f"{APP_ID}.svg"
    assert svg.read_bytes() == icon_svg().read_bytes()
    for size in ICON_SIZES:
        image = QImage(str(icons / f"{size}x{size}" / "apps" / f"{APP_ID}.png"))
        assert (image.width(), image.height()) == (size, size)
        assert image.hasAlphaChannel()
        assert image.pixelColor(0, 0).alpha() == 0  # the rounded corner stays transparent
        assert image.pixelColor(size // 2, size // 2).alpha() == 255  # the picture is drawn
    metainfo = home / "metainfo" / f"{APP_ID}.metainfo.xml"
    assert metainfo.read_bytes() == desktop_file(".metainfo.xml").read_bytes()

    again = _somnium("--install-desktop", home=home)  # installing twice just rewrites
    assert again.returncode == 0, again.stderr

    removed = _somnium("--uninstall-desktop", home=home)
    assert removed.returncode == 0, removed.stderr
    assert not [path for path in home.rglob("*") if path.is_file()]
    nothing = _somnium("--uninstall-desktop", home=home)
    assert nothing.stdout.strip() == "Nothing to remove."


def test_the_former_app_ids_files_give_way(qapp: QApplication, tmp_path: Path) -> None:
    # 0.1.0 installed io.github.somnium_desktop.Somnium.*: installing replaces them (one menu
    # entry, not two) and uninstalling removes them too.
    home = tmp_path / "share"
    for path in installed_paths(home, FORMER_APP_ID):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("from 0.1.0", encoding="utf-8")
    install(home, ["/usr/bin/somnium"])  # renders the icons with the tests' application
    assert not [path for path in installed_paths(home, FORMER_APP_ID) if path.exists()]
    assert all(path.is_file() for path in installed_paths(home))
    for path in installed_paths(home, FORMER_APP_ID)[:2]:
        path.write_text("from 0.1.0", encoding="utf-8")
    assert len(uninstall(home)) == len(installed_paths(home)) + 2
    assert not [path for path in home.rglob("*") if path.is_file()]


def test_exec_quotes_paths_the_way_the_specification_says(tmp_path: Path) -> None:
    assert exec_value(["/usr/bin/somnium"]) == "/usr/bin/somnium"
    assert exec_value(["/opt/My Games/python", "-m", "somnium_desktop"]) == (
        '"/opt/My Games/python" -m somnium_desktop'
    )
    assert exec_value(["/opt/100%/somnium"]) == "/opt/100%%/somnium"
    # A quote and a dollar are escaped inside the quotes, and the backslashes once more.
    assert exec_value(['/opt/"odd"$/somnium']) == '"/opt/\\\\"odd\\\\"\\\\$/somnium"'
    odd = tmp_path / "odd entry.desktop"
    odd.write_text(
        desktop_entry_text(["/opt/My Games/python", "-m", "somnium_desktop"]), encoding="utf-8"
    )
    validate_desktop_entry(odd)


def test_the_data_home_follows_xdg_and_ignores_relative_paths(tmp_path: Path) -> None:
    assert data_home({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path
    default = Path.home() / ".local" / "share"
    assert data_home({"XDG_DATA_HOME": "relative/share"}) == default
    assert data_home({}) == default


def test_an_unwritable_data_home_is_reported_not_raised(tmp_path: Path) -> None:
    blocker = tmp_path / "share"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    with pytest.raises(OSError):
        install(blocker, ["/usr/bin/somnium"])
    run = _somnium("--install-desktop", home=blocker)
    assert run.returncode == 1
    assert run.stderr.startswith("somnium: ")
