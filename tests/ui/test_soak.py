"""Soak: an animated 54-card table painted thousands of times keeps the process alive."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_an_animated_table_survives_thousands_of_paints() -> None:
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    # In a child process: a crash (none_dealloc aborts) must fail this test, not kill pytest.
    # It stops at 1,500 paints (the leak it guards against lost 181 references to None per 100
    # paints), given up to 100 s: the count, not the speed, is what is tested.
    run = subprocess.run(
        [sys.executable, "-m", "tests.ui.soak_table", "100", "1500"],
        capture_output=True, text=True, timeout=150, env=env, cwd=ROOT,
    )
    assert run.returncode == 0, f"the table died: {run.returncode}\n{run.stderr[-3000:]}"
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    assert figures["paints"] >= 1500, figures
    assert figures["none_low"] >= figures["none_start"] - 50, figures


@pytest.mark.slow
def test_animated_offline_games_play_to_the_end() -> None:
    """With motion on (the default), whole games through the app's window and event loop.
    Each move's animation group used to be freed inside its own `finished` signal: the app
    crashed (SIGSEGV) within a few turns of every game."""
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    run = subprocess.run(
        [sys.executable, "-m", "tests.ui.soak_game", "2", "8", "90"],
        capture_output=True, text=True, timeout=150, env=env, cwd=ROOT,
    )
    assert run.returncode == 0, f"the app died: {run.returncode}\n{run.stderr[-3000:]}"
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    assert figures["games"] == 2, figures
    assert figures["events"] >= 100, figures
