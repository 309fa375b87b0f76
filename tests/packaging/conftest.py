"""The one-folder bundle, built once for the tests that need it (the bundle's, the package's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundle's folder (holding the `somnium` executable), from packaging/build_bundle.py."""
    base = tmp_path_factory.mktemp("bundle")
    build = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build_bundle.py"),
         "--dist", str(base / "dist"), "--work", str(base / "work")],
        capture_output=True, text=True, timeout=900,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    folder = base / "dist" / "somnium"
    assert build.stdout.strip().endswith(f"run {folder / 'somnium'}")
    return folder
