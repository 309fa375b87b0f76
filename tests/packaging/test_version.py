"""One version everywhere: pyproject, both packages, the commands, the changelog, the metainfo."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import somnium_server
from somnium_desktop import __version__
from somnium_desktop.assets import desktop_file

ROOT = Path(__file__).resolve().parents[2]


def test_the_packages_and_pyproject_agree() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    assert project["version"] == __version__ == somnium_server.__version__


def test_the_changelog_and_the_metainfo_name_this_release() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d\d-\d\d)$", changelog, re.M)
    assert releases, "CHANGELOG.md has no release headings"
    assert releases[0][0] == __version__
    newest = ET.parse(desktop_file(".metainfo.xml")).getroot().find("releases/release")
    assert newest is not None
    assert (newest.get("version"), newest.get("date")) == releases[0]


def test_both_commands_print_the_version_without_starting_anything() -> None:
    probe = (
        "import sys, runpy\n"
        "sys.argv = [sys.argv[1], '--version']\n"
        "try:\n"
        "    runpy.run_module(sys.argv[0], run_name='__main__')\n"
        "except SystemExit as end:\n"
        "    assert end.code in (0, None), end.code\n"
        "print('Qt loaded' if 'PySide6' in sys.modules else 'no Qt')\n"
    )
    desktop = subprocess.run(
        [sys.executable, "-c", probe, "somnium_desktop"],
        capture_output=True, text=True, timeout=60, check=True,
    )
    assert desktop.stdout.splitlines() == [f"somnium {__version__}", "no Qt"]
    server = subprocess.run(
        [sys.executable, "-m", "somnium_server", "--version"],
        capture_output=True, text=True, timeout=60, check=True,
    )
    assert server.stdout.strip() == f"somnium-server {__version__}"
