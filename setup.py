"""Build hook: ships the checkout's resources (card art, icon, desktop entry) inside the wheel.

pyproject.toml holds all the metadata; this only makes build_py copy the folders listed in
somnium_desktop/assets.py (SHIPPED_FOLDERS) under somnium_desktop/, where the installed app
looks first. A checkout or an editable install reads them in place.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _assets() -> ModuleType:
    """somnium_desktop/assets.py, loaded by path: the package itself is not importable here."""
    path = ROOT / "somnium_desktop" / "assets.py"
    spec = importlib.util.spec_from_file_location("_somnium_assets", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildWithResources(build_py):
    """build_py, plus the shipped resources copied into the somnium_desktop package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # the checkout's folders are read in place
            return
        package = Path(self.build_lib) / "somnium_desktop"
        for source, target in _assets().shipped_files(ROOT):
            destination = package.joinpath(*target.parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)


setup(cmdclass={"build_py": BuildWithResources})
