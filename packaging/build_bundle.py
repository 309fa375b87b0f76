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
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "somnium"
# Development tools that pydantic's optional plugins would drag in from the build environment.
EXCLUDED = ("mypy", "hypothesis", "rich", "pygments", "markdown_it", "pytest", "_pytest",
            "tkinter")
# The checkout's package, whether or not it is installed (an editable install's import hook
# is invisible to PyInstaller's analysis, which would then leave the app out).
sys.path.insert(0, str(ROOT))

from somnium_desktop.assets import shipped_files  # noqa: E402


def pyinstaller_command(dist: Path, work: Path, clean: bool = False) -> list[str]:
    """The PyInstaller command line for the bundle."""
    command = [
        sys.executable, "-m", "PyInstaller", str(ROOT / "packaging" / "bundle" / "entry.py"),
        "--name", NAME, "--onedir", "--windowed", "--noconfirm", "--log-level", "WARN",
        "--distpath", str(dist), "--workpath", str(work), "--specpath", str(work),
        "--paths", str(ROOT), "--paths", str(ROOT / "server"),
        # Every module of the app, also those only reached through a later-loaded window, and
        # the lobby server, which the app can run as a child (`somnium -m somnium_server...`).
        "--collect-submodules", "somnium_desktop",
        "--collect-submodules", "somnium_server",
        "--collect-data", "somnium_server",  # its /docs assets
    ]
    for source, target in shipped_files(ROOT):
        command += ["--add-data", f"{source}{os.pathsep}somnium_desktop/{target.parent}"]
    for module in EXCLUDED:
        command += ["--exclude-module", module]
    if clean:
        command.append("--clean")
    return command


def build(dist: Path, work: Path, clean: bool = False) -> Path:
    """Build the bundle; returns the path of its executable."""
    if importlib.util.find_spec("PyInstaller") is None:
        raise SystemExit(
            "PyInstaller is missing: pip install -e '.[bundle]' (or scripts/test's .venv)"
        )
    subprocess.run(pyinstaller_command(dist, work, clean), check=True, cwd=ROOT)
    executable = dist / NAME / (NAME + (".exe" if sys.platform == "win32" else ""))
    if not executable.is_file():
        raise SystemExit(f"PyInstaller made no {executable}")
    return executable


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "bundle",
                        help="PyInstaller's work folder")
    parser.add_argument("--clean", action="store_true", help="empty PyInstaller's caches first")
    args = parser.parse_args()
    executable = build(args.dist.resolve(), args.work.resolve(), args.clean)
    folder = executable.parent
    size = sum(
        path.stat().st_size
        for path in folder.rglob("*")
        if path.is_file() and not path.is_symlink()
    )
    print(f"Built {folder} ({size / 2**20:.0f} MiB); run {executable}")


if __name__ == "__main__":
    main()
