"""Programs outside the app get the player's own environment, not the bundle's loader's."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from somnium_desktop.client.outside import open_outside, outside_environment

BUNDLE = Path("/opt/somnium")
INTERNAL = BUNDLE / "_internal"
# As PyInstaller's bootloader and PySide6's run-time hook leave a bundled app's environment.
LOADED = {
    "HOME": "/home/ada",
    "PATH": "/usr/bin:/bin",
    "LD_LIBRARY_PATH": f"{INTERNAL}:/opt/mine/lib",
    "LD_LIBRARY_PATH_ORIG": "/opt/mine/lib",
    "_PYI_ARCHIVE_FILE": f"{BUNDLE}/somnium",
    "_PYI_PARENT_PROCESS_LEVEL": "1",
    "_PYI_LINUX_PROCESS_NAME": "somnium",
    "_MEIPASS2": str(INTERNAL),
    "QT_PLUGIN_PATH": f"{INTERNAL}/PySide6/Qt/plugins",
    "QML2_IMPORT_PATH": f"{INTERNAL}/PySide6/Qt/qml",
}


def test_the_players_library_path_comes_back_and_the_loaders_variables_go() -> None:
    assert outside_environment(LOADED, BUNDLE) == {
        "HOME": "/home/ada", "PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": "/opt/mine/lib",
    }


def test_without_a_library_path_of_the_players_own_there_is_none() -> None:
    loaded = {name: value for name, value in LOADED.items() if name != "LD_LIBRARY_PATH_ORIG"}
    assert outside_environment(loaded, BUNDLE) == {"HOME": "/home/ada", "PATH": "/usr/bin:/bin"}


def test_an_empty_library_path_of_the_players_own_stays_empty() -> None:
    loaded = dict(LOADED, LD_LIBRARY_PATH=str(INTERNAL), LD_LIBRARY_PATH_ORIG="")
    assert outside_environment(loaded, BUNDLE)["LD_LIBRARY_PATH"] == ""


def test_qt_paths_keep_what_is_outside_the_bundle() -> None:
    loaded = dict(LOADED, QT_PLUGIN_PATH=f"{INTERNAL}/PySide6/Qt/plugins:/usr/lib/qt6/plugins")
    outside = outside_environment(loaded, BUNDLE)
    assert outside["QT_PLUGIN_PATH"] == "/usr/lib/qt6/plugins"
    assert "QML2_IMPORT_PATH" not in outside


def test_not_frozen_the_environment_is_the_players_as_it_is() -> None:
    assert outside_environment(LOADED, None) == LOADED


def _fake_opener(folder: Path, name: str = "xdg-open") -> Path:
    """An opener `name` in `folder` that writes its name, its arguments and its environment
    to opened.txt (whole, by a rename) and ends; it needs nothing on PATH."""
    folder.mkdir(exist_ok=True)
    script = folder / name
    written = folder / "opened.txt"
    script.write_text(
        "#!/bin/sh\n"
        f'{{ printf "by=%s\\nargs=%s\\n" "${{0##*/}}" "$*"; /usr/bin/env; }} > "{written}.part"\n'
        f'/usr/bin/mv "{written}.part" "{written}"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return written


def _read_when_written(path: Path) -> dict[str, str]:
    deadline = time.monotonic() + 20
    while not path.exists():
        assert time.monotonic() < deadline, "no opener was run"
        time.sleep(0.05)
    lines = path.read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def _not_called(url: str) -> bool:
    raise AssertionError(f"the fallback opened {url}")


def test_from_the_bundle_xdg_open_sees_the_players_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = _fake_opener(tmp_path / "bin")
    bundle = tmp_path / "somnium"
    internal = bundle / "_internal"
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{internal}:/opt/mine/lib")
    monkeypatch.setenv("LD_LIBRARY_PATH_ORIG", "/opt/mine/lib")
    monkeypatch.setenv("_PYI_ARCHIVE_FILE", str(bundle / "somnium"))
    monkeypatch.setenv("_PYI_PARENT_PROCESS_LEVEL", "1")
    monkeypatch.setenv("QT_PLUGIN_PATH", f"{internal}/PySide6/Qt/plugins")
    url = "http://127.0.0.1:8123/auth/authorize?state=s&code_challenge=c"

    assert open_outside(url, bundle, _not_called) is True
    seen = _read_when_written(written)
    assert seen["args"] == url
    assert seen["LD_LIBRARY_PATH"] == "/opt/mine/lib"
    for gone in ("LD_LIBRARY_PATH_ORIG", "_PYI_ARCHIVE_FILE", "_PYI_PARENT_PROCESS_LEVEL",
                 "QT_PLUGIN_PATH"):
        assert gone not in seen, gone
    assert seen["HOME"] == os.environ["HOME"]  # the rest is the player's, as it was


def test_not_frozen_or_without_xdg_open_the_fallback_opens_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = _fake_opener(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    opened: list[str] = []

    def fallback(url: str) -> bool:
        opened.append(url)
        return True

    assert open_outside("http://127.0.0.1:1/a", None, fallback)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert not open_outside("http://127.0.0.1:1/b", tmp_path / "somnium", lambda url: False)
    assert opened == ["http://127.0.0.1:1/a"]
    time.sleep(0.3)
    assert not written.exists()  # (not run by the first)


def _bundle_environment(monkeypatch: pytest.MonkeyPatch, bundle: Path, path: Path) -> None:
    """This process's environment as the bundle's loader leaves it, with PATH just `path`."""
    monkeypatch.setenv("PATH", str(path))
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{bundle / '_internal'}:/opt/mine/lib")
    monkeypatch.setenv("LD_LIBRARY_PATH_ORIG", "/opt/mine/lib")
    monkeypatch.setenv("_PYI_ARCHIVE_FILE", str(bundle / "somnium"))


@pytest.mark.parametrize(("openers", "expected"), [
    (("gio", "sensible-browser", "x-www-browser"), "gio"),
    (("sensible-browser", "x-www-browser"), "sensible-browser"),
    (("x-www-browser",), "x-www-browser"),
])
def test_without_xdg_open_the_next_system_opener_sees_the_players_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openers: tuple[str, ...], expected: str
) -> None:
    """Only the player's PATH is searched: the system's own openers are not on it."""
    folder = tmp_path / "bin"
    for name in openers:
        written = _fake_opener(folder, name)
    _bundle_environment(monkeypatch, tmp_path / "somnium", folder)
    url = "http://127.0.0.1:8123/auth/authorize?state=s"

    assert open_outside(url, tmp_path / "somnium", _not_called) is True
    seen = _read_when_written(written)
    assert seen["by"] == expected  # the first in that order
    assert seen["args"] == ("open " if expected == "gio" else "") + url
    assert seen["LD_LIBRARY_PATH"] == "/opt/mine/lib"
    assert "_PYI_ARCHIVE_FILE" not in seen and "LD_LIBRARY_PATH_ORIG" not in seen

