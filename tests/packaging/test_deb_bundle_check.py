"""build_deb.py packages only a bundle folder, and only one of this checkout's release."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from somnium_desktop import __version__

ROOT = Path(__file__).resolve().parents[2]


def _build_deb(bundle: Path, out: Path) -> subprocess.CompletedProcess[str]:
    assert shutil.which("dpkg-deb"), "dpkg-deb is missing (.ci/run installs it)"
    return subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build_deb.py"), "--bundle", str(bundle),
         "--out", str(out)], capture_output=True, text=True, timeout=300,
    )


def _fake_bundle(folder: Path, says: str) -> Path:
    """A folder laid out as a bundle whose executable prints `says` for --version."""
    (folder / "_internal").mkdir(parents=True)
    executable = folder / "somnium"
    executable.write_text(f"#!/bin/sh\necho '{says}'\n", encoding="utf-8")
    executable.chmod(0o755)
    return folder


def test_a_folder_that_is_no_bundle_is_refused(tmp_path: Path) -> None:
    # dist/ given for dist/somnium/: the package would install /usr/lib/somnium/somnium/ as
    # a folder, and /usr/games/somnium would point at it.
    dist = tmp_path / "dist"
    _fake_bundle(dist / "somnium", f"somnium {__version__}")
    built = _build_deb(dist, tmp_path / "out")
    assert built.returncode != 0
    assert f"{dist} is not a bundle folder" in built.stderr
    assert not list(tmp_path.rglob("*.deb"))


@pytest.mark.parametrize("says", ["somnium 0.0.1", "Python 3.11.7"])
def test_a_bundle_of_another_release_is_refused(tmp_path: Path, says: str) -> None:
    bundle = _fake_bundle(tmp_path / "somnium", says)
    built = _build_deb(bundle, tmp_path / "out")
    assert built.returncode != 0
    if says.startswith("somnium"):
        assert f"holds somnium 0.0.1, but this checkout is {__version__}" in built.stderr
    else:
        assert "--version failed" in built.stderr and says in built.stderr
    assert not list(tmp_path.rglob("*.deb"))
