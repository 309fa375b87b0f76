"""Frame intervals of the animated table while lobby events stream in, beside an anchor without.

Run from a checkout:  QT_QPA_PLATFORM=offscreen .venv/bin/python -m benchmarks.frames_under_lobby

It starts this checkout's `somnium-server` on 127.0.0.1 (a fresh SQLite file, local accounts, the
limits raised, as benchmarks/server_load.py starts it) and, in this process, the app's real main
window (1280x800, a fresh home) with the lobby connected to that server (the settings name it)
and all 54 cards flying (`ui/demo.py`, as the frame figure of benchmarks/desktop.py). Once the
lobby has listed the server's games, the time between the table's paints (Paint events on its
viewport) is recorded for --seconds with no lobby events: the anchor. Then a second process,
`python -m benchmarks.server_load --server ...`, signs players in who create, join and play
--games games at --rate actions a second in all (each mover acting once its own stream shows the
previous action, a rematch at each game's end), so that lobby events stream in: games created,
seats taken, turns passed, games finished. From the first lobby event the window takes in, the
intervals are recorded again for --seconds. Both are printed (p50, p95, p99, max) with the lobby
events the window took in meanwhile; the last line is the same as JSON. QT_QPA_PLATFORM picks
the platform (offscreen unless set; `xcb` with DISPLAY for an X server).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.loadgen.servers import ROOT, ServerProcesses
from benchmarks.ranks import percentile

QUANTILES = {"p50_ms": 0.50, "p95_ms": 0.95, "p99_ms": 0.99, "max_ms": 1.0}
WARM_UP_S = 1.0  # after the lobby is listed, before the anchor: the column's first work done
FIRST_EVENT_S = 60.0  # the load's first lobby event must come within this


def figures_of(stamps: list[float], events: int, seconds: float) -> dict[str, float]:
    """Frame interval quantiles (ms) of paint times, with the frames and lobby events counted."""
    intervals = [(later - earlier) * 1000 for earlier, later in itertools.pairwise(stamps)]
    figures = {name: round(percentile(intervals, q), 2) for name, q in QUANTILES.items()}
    return {"frames": len(stamps), **figures, "events": events,
            "events_per_s": round(events / seconds, 1)}


def load_command(base: str, pid: int, games: int, rate: float, seconds: float) -> list[str]:
    """The second process: players creating, joining and playing games on the server."""
    return [sys.executable, "-m", "benchmarks.server_load", "--server", base,
            "--server-pid", str(pid), "--games", str(games), "--rate", str(rate),
            "--paced-seconds", str(seconds + FIRST_EVENT_S), "--saturation-seconds", "0",
            "--observers", "0", "--spread", "0"]


def measure(base: str, load: list[str], seconds: float, scratch: Path) -> dict[str, dict[str,
                                                                                       float]]:
    """The window animating with its lobby on `base`: the anchor, then under `load`."""
    from PySide6.QtCore import QEvent, QObject, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from somnium_desktop.ui.demo import dance
    from somnium_desktop.ui.main_window import MainWindow
    from somnium_desktop.ui.settings import Settings
    from somnium_desktop.ui.style import apply_style

    app = QApplication(sys.argv[:1])
    apply_style(app)
    settings = Settings(QSettings(str(scratch / "app.ini"), QSettings.Format.IniFormat))
    settings.server_url = base
    window = MainWindow(settings)
    window.resize(1280, 800)
    window.show()
    results: dict[str, dict[str, float]] = {}
    failure: list[str] = []
    log = open(scratch / "load.txt", "w+", encoding="utf-8")  # noqa: SIM115 (closed below)
    generator: list[subprocess.Popen[str]] = []

    class Recorder(QObject):
        """The table's paint times and the lobby events taken in, while recording."""

        def __init__(self) -> None:
            super().__init__(window)
            self.stamps: list[float] = []
            self.events = 0
            self.recording = False
            self.waiting_for_event = False

        def begin(self) -> None:
            self.stamps, self.events, self.recording = [], 0, True

        def end(self, name: str) -> None:
            self.recording = False
            results[name] = figures_of(self.stamps, self.events, seconds)

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if self.recording and event.type() == QEvent.Type.Paint:
                self.stamps.append(time.perf_counter())
            return False

        def lobby_changed(self, kind: str) -> None:
            if self.waiting_for_event:  # the load's first event opens the window
                self.waiting_for_event = False
                self.begin()
                QTimer.singleShot(int(seconds * 1000), finish)
            if self.recording:
                self.events += 1

    recorder = Recorder()
    viewport = window.table.view.viewport()
    viewport.installEventFilter(recorder)

    def listed() -> None:
        online.lobby_loaded.disconnect(listed)
        QTimer.singleShot(int(WARM_UP_S * 1000), anchor)

    def anchor() -> None:
        recorder.begin()
        QTimer.singleShot(int(seconds * 1000), loaded)

    def loaded() -> None:
        recorder.end("anchor")
        recorder.waiting_for_event = True
        generator.append(subprocess.Popen(load, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                          text=True))
        QTimer.singleShot(int(FIRST_EVENT_S * 1000), no_events)

    def no_events() -> None:
        if recorder.waiting_for_event:
            failure.append("no lobby event came from the load")
            app.quit()

    def finish() -> None:
        recorder.end("lobby")
        app.quit()

    def too_long() -> None:
        failure.append("the lobby never listed the server's games")
        app.quit()

    animation = dance(window.table.scene)
    animation.start()
    online = window.start_online()
    online.lobby_loaded.connect(listed)
    online.lobby_changed.connect(recorder.lobby_changed)
    QTimer.singleShot(int((2 * seconds + 2 * FIRST_EVENT_S) * 1000), too_long)
    app.exec()
    animation.stop()
    viewport.removeEventFilter(recorder)
    window.close()
    for process in generator:
        process.terminate()
        process.wait(timeout=30)
    log.seek(0)
    tail = log.read()[-2000:]
    log.close()
    if failure or "lobby" not in results:
        raise RuntimeError(f"{', '.join(failure) or 'the run ended early'}; the load:\n{tail}")
    return results


def line(name: str, figures: dict[str, float]) -> str:
    return (f"{name}: {figures['frames']:.0f} frames, interval p50 {figures['p50_ms']:.1f} ms, "
            f"p95 {figures['p95_ms']:.1f} ms, p99 {figures['p99_ms']:.1f} ms, "
            f"max {figures['max_ms']:.1f} ms; lobby events taken in: {figures['events']:.0f} "
            f"({figures['events_per_s']:.1f}/s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="each window measured")
    parser.add_argument("--games", type=int, default=40, help="games the load plays at once")
    parser.add_argument("--rate", type=float, default=20.0,
                        help="the load's actions a second over all its games")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    load = os.getloadavg()
    print(f"{os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"Python {sys.version.split()[0]}; {os.environ['QT_QPA_PLATFORM']}; "
          f"{args.games} games at {args.rate:g} actions/s", flush=True)
    with tempfile.TemporaryDirectory(prefix="somnium-frames-") as name:
        scratch = Path(name)
        for variable in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
            os.environ[variable] = str(scratch / variable.lower())  # a fresh home
        server = ServerProcesses(1, scratch / "lobby.sqlite3", None)
        try:
            wait_listening(server)
            (process,) = server.processes
            command = load_command(server.bases[0], process.pid, args.games, args.rate,
                                   args.seconds)
            results = measure(server.bases[0], command, args.seconds, scratch)
        finally:
            server.stop()
    print(line("54 cards flying, no lobby events (anchor)", results["anchor"]))
    print(line("54 cards flying, lobby events streaming", results["lobby"]))
    print(json.dumps(results), flush=True)
    return 0


def wait_listening(server: ServerProcesses, timeout: float = 60.0) -> None:
    """Wait until the server answers its health check."""
    from somnium_desktop.client.local_server import is_alive

    deadline = time.monotonic() + timeout
    while not is_alive(server.bases[0]):
        server.check_alive()
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not start listening")
        time.sleep(0.1)


if __name__ == "__main__":
    sys.exit(main())
