"""The player's install: a wheel built from an sdist, installed into a fresh venv, works alone."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from somnium_desktop import __version__
from somnium_desktop.assets import APP_ID, SHIPPED_FOLDERS, deck_svg, icon_svg, shipped_files

from .test_smoke import isolated_env

ROOT = Path(__file__).resolve().parents[2]


def _run(*command: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    run = subprocess.run(
        [str(part) for part in command],
        capture_output=True, text=True, timeout=600, env=env, cwd=cwd,
    )
    assert run.returncode == 0, f"{command}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return run.stdout


def test_every_shipped_folder_ships_something() -> None:
    files = shipped_files(ROOT)
    for target in SHIPPED_FOLDERS.values():
        assert any(str(path).startswith(target) for _, path in files), target
    assert {str(path) for _, path in files} >= {
        "resources/cards/deck.svg",
        "resources/icons/somnium.svg",
        f"resources/desktop/{APP_ID}.desktop",
        f"resources/desktop/{APP_ID}.metainfo.xml",
    }
    assert not [path for _, path in files if path.name == "README.md"]


@pytest.mark.slow
def test_a_wheel_installed_in_a_fresh_venv_runs_and_finds_its_art(tmp_path: Path) -> None:
    # `python -m build` makes the sdist, then the wheel from the unpacked sdist: so both
    # MANIFEST.in and the build hook must carry the resources.
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "build", "--outdir", dist, ROOT)
    (wheel,) = dist.glob(f"somnium_desktop-{__version__}-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"somnium_desktop-{__version__}.dist-info"
        metadata = archive.read(f"{info}/METADATA").decode()
        licence = archive.read(f"{info}/licenses/LICENSE")
    assert licence == (ROOT / "LICENSE").read_bytes()
    assert "\nLicense-Expression: GPL-3.0-or-later\n" in metadata
    assert "\nLicense-File: LICENSE\n" in metadata
    assert "\nProject-URL: Issues, " in metadata and "\nClassifier: Typing :: Typed\n" in metadata
    for _, shipped in shipped_files(ROOT):
        assert f"somnium_desktop/{shipped}" in names
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"):
        assert f"somnium_server/api/docs_assets/swagger-ui/{asset}" in names  # /docs, offline

    # Nothing may come from this checkout, not even for pip (whose cache is kept).
    clean = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    env = isolated_env(tmp_path)
    env.pop("PYTHONPATH", None)
    outside = tmp_path / "elsewhere"  # the working folder: not the checkout, whose
    outside.mkdir()  # somnium_desktop `python -c` would import first

    # What `pipx install` does: a venv of its own, the wheel and its dependencies from the index.
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv, env=clean, cwd=outside)
    bin_dir = venv / "bin"
    _run(bin_dir / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         str(wheel), env=clean, cwd=outside)

    assert _run(bin_dir / "somnium", "--version", env=env).strip() == f"somnium {__version__}"
    assert _run(bin_dir / "somnium-server", "--version", env=env).strip() == (
        f"somnium-server {__version__}"
    )
    found = _run(
        bin_dir / "python", "-c",
        "import somnium_desktop.assets as a; print(a.deck_svg()); print(a.icon_svg())",
        env=env, cwd=outside,
    ).split()
    site = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    package = site / "site-packages" / "somnium_desktop"
    assert [Path(path) for path in found] == [
        package / "resources" / "cards" / "deck.svg",
        package / "resources" / "icons" / "somnium.svg",
    ]
    assert Path(found[0]).read_bytes() == deck_svg().read_bytes()
    assert Path(found[1]).read_bytes() == icon_svg().read_bytes()

    smoke = subprocess.run(
        [bin_dir / "somnium", "--smoke-test", "--no-log-file"],
        capture_output=True, text=True, timeout=120, env=env, cwd=outside,
    )
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert f"card art {package / 'resources' / 'cards' / 'deck.svg'}" in smoke.stdout

    _run(bin_dir / "somnium", "--install-desktop", env=env, cwd=outside)
    entry = Path(env["XDG_DATA_HOME"]) / "applications" / f"{APP_ID}.desktop"
    assert f"Exec={bin_dir / 'somnium'}\n" in entry.read_text(encoding="utf-8")
    assert os.access(bin_dir / "somnium", os.X_OK)
