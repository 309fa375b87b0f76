#!/usr/bin/env python3
"""Builds the one-folder PyInstaller bundle of the desktop app: <dist>/somnium/somnium.

Run it with the project's environment, which needs the `bundle` extra (scripts/test's .venv has
it through `dev`):

    .venv/bin/python packaging/build_bundle.py [--dist dist] [--work build/bundle] [--clean]

The bundle carries Python, PySide6 (Qt and its plugins), the app and its resources (card art,
icon, desktop entry) and the lobby server (`somnium -m somnium_server ...` runs it); see
README.md for the system libraries it still needs. Then check it with
`dist/somnium/somnium --smoke-test` (offscreen: QT_QPA_PLATFORM=offscreen).
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "somnium"
SPEC = ROOT / "packaging" / "bundle" / f"{NAME}.spec"


def pyinstaller_command(dist: Path, work: Path, clean: bool = False) -> list[str]:
    """The PyInstaller command line for the bundle (its recipe: packaging/bundle/somnium.spec)."""
    command = [sys.executable, "-m", "PyInstaller", str(SPEC), "--noconfirm",
               "--log-level", "WARN", "--distpath", str(dist), "--workpath", str(work)]
    if clean:
        command.append("--clean")
    return command


def build(dist: Path, work: Path, clean: bool = False) -> Path:
    """Build the bundle, with the licence beside its executable; returns the executable's path."""
    if importlib.util.find_spec("PyInstaller") is None:
        raise SystemExit(
            "PyInstaller is missing: pip install -e '.[bundle]' (or scripts/test's .venv)"
        )
    # packaging/bundle/libraries.py reads the libraries' needs, then tidies them (the spec)
    for tool, provider in (("readelf", "binutils"), ("strip", "binutils"),
                           ("patchelf", "patchelf")):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is missing: apt-get install {provider}")
    subprocess.run(pyinstaller_command(dist, work, clean), check=True, cwd=ROOT)
    executable = dist / NAME / (NAME + (".exe" if sys.platform == "win32" else ""))
    if not executable.is_file():
        raise SystemExit(f"PyInstaller made no {executable}")
    shutil.copyfile(ROOT / "LICENSE", executable.parent / "LICENSE")
    return executable


def size_of(folder: Path) -> int:
    """The bytes of the files in `folder` (symbolic links not counted twice)."""
    return sum(path.stat().st_size for path in folder.rglob("*")
               if path.is_file() and not path.is_symlink())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "bundle",
                        help="PyInstaller's work folder")
    parser.add_argument("--clean", action="store_true", help="empty PyInstaller's caches first")
    args = parser.parse_args()
    executable = build(args.dist.resolve(), args.work.resolve(), args.clean)
    folder = executable.parent
    print(f"Built {folder} ({size_of(folder) / 2**20:.0f} MiB); run {executable}")


if __name__ == "__main__":
    main()
