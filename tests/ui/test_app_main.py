"""`python -m somnium_desktop` starts the real app; its log goes to the platform's log folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def start_up(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """The app run to its first paint, with its XDG folders under `tmp_path`."""
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    return subprocess.run(
        [sys.executable, "-m", "somnium_desktop", "--benchmark-startup"],
        capture_output=True, text=True, timeout=60, env=env,
    )


def test_the_app_starts_shows_its_window_and_logs(tmp_path: Path) -> None:
    run = start_up(tmp_path)
    assert run.returncode == 0, run.stderr
    figures = json.loads(next(line for line in run.stdout.splitlines() if line.startswith("{")))
    assert figures["platform"] == "offscreen"
    assert figures["since_module_start_ms"] > 0 and figures["rss_kb"] > 0
    (log,) = (tmp_path / "state").rglob("somnium.log")
    assert "Somnium Desktop started" in log.read_text(encoding="utf-8")
    assert list((tmp_path / "config").rglob("*.conf"))  # the window's geometry was saved
    assert list((tmp_path / "cache").rglob("back-*.png"))  # and what it showed first


def test_a_log_folder_that_cannot_be_written_leaves_the_app_without_a_log_file(
    tmp_path: Path,
) -> None:
    """As with a read-only state folder: a file stands where the log folder must be made. The
    app starts as usual, says once on stderr that it has no log file, and shows no error."""
    (tmp_path / "state").write_text("")
    run = start_up(tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Unhandled exception" not in run.stderr  # (and so no error dialog)
    said = [line for line in run.stderr.splitlines() if "no log file" in line]
    assert said == [f"Somnium: no log file, {tmp_path / 'state'}/Somnium Desktop/log cannot "
                    "be written: Not a directory."], run.stderr
