"""benchmarks/desktop.py, tiny, offscreen: the first window with and without the built-in server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRST = re.compile(r"^first window painted: the app median (\d+) ms .* median (\d+) ms ", re.M)
SERVED = re.compile(r"^first window painted on a default start .*: "
                    r"median (\d+) ms \(min (\d+), max (\d+)\); /bare = ([\d.]+)x$", re.M)
LOBBY = re.compile(r"^interactive lobby .*the default starts above\): median (\d+) ms "
                   r"\(max (\d+)\)", re.M)


def test_the_first_window_is_timed_as_a_default_start_too() -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'server'}"}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.desktop", "--platforms", "offscreen", "--runs", "1",
         "--only", "startup"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    first, served = FIRST.search(done.stdout), SERVED.search(done.stdout)
    lobby = LOBBY.search(done.stdout)
    assert first is not None and served is not None and lobby is not None, done.stdout
    app_ms, bare_ms = int(first.group(1)), int(first.group(2))
    served_ms, low, high, ratio = (float(group) for group in served.groups())
    assert 0 < low <= served_ms <= high < 30_000
    assert 0 < app_ms < 30_000
    assert abs(ratio - served_ms / bare_ms) < 0.05
    # One run (of --runs 1) both paints first and lists the lobby later: the same start.
    assert served_ms < int(lobby.group(1)) == int(lobby.group(2)) < 30_000
