"""What a software centre and a package index show: metainfo, desktop entry, Project-URLs."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from somnium_desktop.assets import desktop_file
from somnium_desktop.project import BUG_TRACKER, HOMEPAGE, RAW_BASE, REPOSITORY

from .scripts import packaging_module
from .test_smoke import isolated_env
from .validators import tool

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    return packaging_module("metainfo.py")


def test_the_metainfo_is_what_the_changelog_and_the_project_make() -> None:
    metainfo = desktop_file(".metainfo.xml").read_text(encoding="utf-8")
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert _generator().rewritten(metainfo, changelog) == metainfo, (
        "run packaging/metainfo.py"
    )
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d\d-\d\d)$", changelog, re.M)
    root = ET.fromstring(metainfo)
    assert [(r.get("version"), r.get("date")) for r in root.iterfind("releases/release")] == (
        released
    )
    for release in root.iterfind("releases/release"):
        assert release.findall("description/ul/li") or release.findall("description/p")


def test_the_metainfo_shows_the_real_screenshots_and_links() -> None:
    root = ET.parse(desktop_file(".metainfo.xml")).getroot()
    shots = root.findall("screenshots/screenshot")
    assert {path.name for path in (ROOT / "docs" / "screenshots").glob("*.png")} == {
        Path(shot.findtext("image", "")).name for shot in shots
    }
    for shot in shots:
        assert (shot.findtext("caption") or "").strip()
        address = shot.findtext("image", "")
        assert address.startswith(RAW_BASE) and (ROOT / address.removeprefix(RAW_BASE)).is_file()
    urls = {url.get("type"): url.text for url in root.iterfind("url")}
    assert urls == {"homepage": HOMEPAGE, "bugtracker": BUG_TRACKER, "vcs-browser": REPOSITORY}
    colours = root.findall("branding/color")
    assert {c.get("scheme_preference") for c in colours} == {"light", "dark"}
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c.text or "") for c in colours)


def test_the_metainfo_is_clean_under_the_pedantic_validator() -> None:
    run = subprocess.run(
        [tool("appstreamcli"), "validate", "--pedantic", "--no-net",
         str(desktop_file(".metainfo.xml"))],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # Not an info, not a pedantic hint: only the verdict.
    assert run.stdout.strip().splitlines() == ["✔ Validation was successful."], run.stdout


def test_the_wheels_link_to_the_same_places() -> None:
    for pyproject in (ROOT / "pyproject.toml", ROOT / "server" / "pyproject.toml"):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        assert project["urls"]["Homepage"] == HOMEPAGE
        assert project["urls"]["Issues"] == BUG_TRACKER
        assert all(url.startswith(REPOSITORY) for url in project["urls"].values())
        assert "Programming Language :: Python :: 3.11" in project["classifiers"]


@contextlib.contextmanager
def _xvfb() -> Iterator[str]:
    """A private X server; yields its DISPLAY."""
    binary = shutil.which("Xvfb")
    assert binary is not None, "Xvfb is missing: `apt-get install xvfb` (.ci/run does)"
    read, write = os.pipe()
    server = subprocess.Popen(
        [binary, "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as announced:
            number = announced.readline().strip()
        assert number.isascii() and number.isdigit(), "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def _wm_classes(display: str) -> list[str]:
    """The WM_CLASS of every top-level window on `display`."""
    env = dict(os.environ, DISPLAY=display)
    tree = subprocess.run([tool_x("xwininfo"), "-root", "-children"], capture_output=True,
                          text=True, env=env, timeout=30).stdout
    found: list[str] = []
    for window in re.findall(r"^\s+(0x[0-9a-f]+) ", tree, re.M):
        prop = subprocess.run([tool_x("xprop"), "-id", window, "WM_CLASS"], capture_output=True,
                              text=True, env=env, timeout=30).stdout
        if "=" in prop:
            found.append(prop.split("=", 1)[1].strip())
    return found


def tool_x(name: str) -> str:
    found = shutil.which(name)
    assert found is not None, f"{name} is missing: `apt-get install x11-utils` (.ci/run does)"
    return found


@pytest.mark.slow
def test_the_desktop_entry_names_the_windows_real_class(tmp_path: Path) -> None:
    # Docks match a window to its desktop entry by WM_CLASS: the entry's StartupWMClass must
    # be the class the running app's window really has (on X11, under Xvfb, read by xprop).
    entry = dict(line.split("=", 1) for line in
                 desktop_file(".desktop").read_text(encoding="utf-8").splitlines() if "=" in line)
    with _xvfb() as display:
        env = dict(isolated_env(tmp_path), QT_QPA_PLATFORM="xcb", DISPLAY=display)
        app = subprocess.Popen([sys.executable, "-m", "somnium_desktop", "--no-log-file"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while not (classes := _wm_classes(display)):
                assert app.poll() is None, app.stderr.read() if app.stderr else ""
                assert time.monotonic() < deadline, "no window appeared"
                time.sleep(0.2)
        finally:
            app.terminate()
            app.communicate(timeout=30)
    # WM_CLASS is (instance, class); the instance is the command's name, the class the app's.
    assert {re.findall(r'"([^"]*)"', found)[1] for found in classes} == {entry["StartupWMClass"]}
