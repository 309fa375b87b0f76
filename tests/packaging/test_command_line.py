"""Both commands refuse what they do not know, with their usage, and pass Qt's options to Qt."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .test_smoke import isolated_env

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "argv",
    [["--smoke-tset"], ["--smoke-test", "stray"], ["-platform"], ["-qwindowtitle"], ["-bogus"]],
)
def test_somnium_refuses_an_unknown_argument_with_its_usage(
    argv: list[str], tmp_path: Path
) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "somnium_desktop", *argv],
        capture_output=True, text=True, timeout=60, env=isolated_env(tmp_path),
    )
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.startswith("usage: somnium ")
    assert "error: unrecognized arguments:" in run.stderr
    assert not list(tmp_path.rglob("*"))  # it started nothing and wrote nothing


def test_somnium_passes_qt_options_on_to_qt(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    del env["QT_QPA_PLATFORM"]  # the platform comes from the command line instead
    run = subprocess.run(
        [sys.executable, "-m", "somnium_desktop", "--smoke-test", "--no-log-file",
         "-platform", "offscreen", "-style=fusion", "-reverse"],
        capture_output=True, text=True, timeout=120, env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "painted on offscreen" in run.stdout


def test_somnium_server_refuses_an_unknown_option_with_its_usage() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "somnium_server", "--prot", "8000"],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2
    assert run.stderr.startswith("usage: somnium-server ")
    assert "error: unrecognized arguments: --prot 8000" in run.stderr


def test_scripts_run_passes_its_arguments_to_the_app() -> None:
    # The checkout's .venv is made or refreshed first, as on a fresh machine.
    run = subprocess.run(
        [str(ROOT / "scripts" / "run"), "--version"],
        capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("somnium ")
