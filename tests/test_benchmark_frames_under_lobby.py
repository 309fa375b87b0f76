"""benchmarks/frames_under_lobby.py, tiny, on a real server: sane frame figures, events counted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_table_is_timed_with_and_without_lobby_events() -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'server'}",
           "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.frames_under_lobby", "--seconds", "1.5",
         "--games", "4", "--rate", "8"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert any(line.startswith("54 cards flying, no lobby events (anchor): ") for line in lines)
    assert any(line.startswith("54 cards flying, lobby events streaming: ") for line in lines)
    figures = json.loads(lines[-1])
    for name in ("anchor", "lobby"):
        run = figures[name]
        assert run["frames"] >= 10, run  # 1.5 s of an animation paced at 60 Hz
        assert 1 < run["p50_ms"] <= run["p95_ms"] <= run["p99_ms"] <= run["max_ms"] < 1500, run
    assert figures["anchor"]["events"] == 0
    assert figures["lobby"]["events"] >= 1  # games created, seats taken, turns passed
