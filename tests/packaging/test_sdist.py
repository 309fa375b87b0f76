"""The sdist is the whole source: every test, benchmark and script, and pytest runs from it."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path, PurePosixPath

import pytest

from somnium_desktop import __version__

ROOT = Path(__file__).resolve().parents[2]
# What a checkout holds that the sdist leaves out: git's and the test tools' own files.
NOT_SHIPPED = (".gitignore", ".schemathesis/")
# What runs and builds leave in a tree (in an unpacked sdist there is no git to ask).
LEFT_BY_TOOLS = {".venv", "build", "dist", "node_modules", "__pycache__", ".pytest_cache",
                 ".mypy_cache", ".ruff_cache", ".hypothesis", ".schemathesis"}


def _source() -> set[str]:
    """The source files: git's in a checkout, else (an unpacked sdist) those found here."""
    if (ROOT / ".git").exists():
        listing = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"],
                                 capture_output=True, check=True, timeout=60).stdout.decode()
        found = set(listing.split("\0")) - {""}
    else:
        found = {str(path.relative_to(ROOT)) for path in ROOT.rglob("*")
                 if path.is_file() and not LEFT_BY_TOOLS & set(path.relative_to(ROOT).parts)
                 and not any(part.endswith(".egg-info") for part in path.parts)}
        found -= {"PKG-INFO", "setup.cfg"}  # what the sdist's build wrote into it
    return {path for path in found if not path.startswith(NOT_SHIPPED)}


@pytest.mark.slow
def test_the_sdist_holds_the_whole_source_and_its_tests_run_from_it(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--outdir", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = tmp_path.glob(f"somnium_desktop-{__version__}.tar.gz")
    top = PurePosixPath(f"somnium_desktop-{__version__}")
    with tarfile.open(sdist) as archive:
        names = {str(PurePosixPath(name).relative_to(top)) for name in archive.getnames()
                 if PurePosixPath(name) != top}
        archive.extractall(tmp_path, filter="data")
    tracked = _source()
    missing = sorted(tracked - names)
    assert not missing, f"the sdist lacks {missing[:20]} (MANIFEST.in)"
    assert (tmp_path / str(top) / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
    assert "tests/oidc/package-lock.json" in names
    assert not [name for name in names if "__pycache__" in name or "node_modules" in name]

    # Every test module imports from the unpacked sdist alone: pytest collects them all.
    unpacked = tmp_path / str(top)
    env = dict(os.environ, PYTHONPATH=f"{unpacked}{os.pathsep}{unpacked / 'server'}")
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        capture_output=True, text=True, timeout=600, cwd=unpacked, env=env,
    )
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    modules = {line.split("::")[0] for line in collected.stdout.splitlines() if "::" in line}
    test_files = {path for path in tracked
                  if PurePosixPath(path).name.startswith("test_") and path.endswith(".py")}
    assert modules == test_files
