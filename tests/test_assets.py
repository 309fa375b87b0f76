"""The app finds its card art from a checkout and from an installed wheel."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from somnium_desktop.assets import deck_svg, resource_path

ROOT = Path(__file__).resolve().parent.parent


def test_the_checkout_finds_the_deck() -> None:
    assert deck_svg() == ROOT / "resources" / "cards" / "deck.svg"
    assert deck_svg().is_file()
    assert resource_path("icons", "somnium.svg").is_file()


@pytest.mark.slow
def test_an_installed_wheel_carries_and_finds_the_deck(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for folder in ("somnium_desktop", "server", "resources"):
        shutil.copytree(ROOT / folder, source / folder, ignore=ignore)
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(source), "-w", str(wheels)],
        capture_output=True, text=True, timeout=300,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = wheels.glob("somnium_desktop-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert "somnium_desktop/resources/cards/deck.svg" in archive.namelist()
        site = tmp_path / "site"
        archive.extractall(site)
    # A bare interpreter (-S: no site-packages, so not this checkout) imports the unpacked wheel.
    found = subprocess.run(
        [sys.executable, "-S", "-c",
         "import sys; sys.path.insert(0, sys.argv[1]);"
         "from somnium_desktop.assets import deck_svg; print(deck_svg())", str(site)],
        capture_output=True, text=True, timeout=60, check=True,
    )
    path = Path(found.stdout.strip())
    assert path == site / "somnium_desktop" / "resources" / "cards" / "deck.svg"
    assert path.read_bytes() == deck_svg().read_bytes()
