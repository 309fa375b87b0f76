"""Build hook: ships the top-level resources/ folder (card art, icons) inside the wheel.

pyproject.toml holds all the metadata; this only makes build_py copy resources/ to
somnium_desktop/resources/, where somnium_desktop.assets looks first in an installed app. A
checkout or an editable install reads resources/ in place.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RESOURCES = Path(__file__).resolve().parent / "resources"
SHIPPED = (".svg", ".ttf", ".otf", ".png", ".txt")


class BuildWithResources(build_py):
    """build_py, plus the card art copied into the somnium_desktop package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # the checkout's resources/ are read in place
            return
        target = Path(self.build_lib) / "somnium_desktop" / "resources"
        for source in RESOURCES.rglob("*"):
            if source.is_file() and source.suffix in SHIPPED:
                destination = target / source.relative_to(RESOURCES)
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, destination)


setup(cmdclass={"build_py": BuildWithResources})
