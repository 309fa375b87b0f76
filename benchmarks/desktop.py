"""Desktop app figures: cold start to the first painted window (beside a bare PySide6 table)
and to an interactive lobby, resident memory as a player runs the app, frame interval.

Run from a checkout:  .venv/bin/python -m benchmarks.desktop [--runs 9] [--seconds 8]

Each figure is measured in fresh child processes, offscreen and on a real X server (Xvfb, started
here on a free display; install the `xvfb` package first). Start-up runs `python -m somnium_desktop
--benchmark-startup`, which prints the moment the table was first painted; the time counts from
just before the child was spawned (interpreter start, imports, window, first paint); the app runs
again and again in one home (its settings and start-up pixmap cache kept, as for a user), and a few
runs start from an empty home. The bare PySide6 table of 54 SVG cards (benchmarks/bare_table.py)
is started the same way, in turns with the app, and the app's first window is reported as a
multiple of it. Taking turns with both, the app is also started as by default with no server set
(`--benchmark-lobby`, whose first paint is timed alike): it then starts the built-in server right
after its first paint (each such run waits for the server of the one before to leave), so that
first window is what a player waits for on such a start, and the same runs time the interactive
lobby with the app starting the server. The frame interval is the
time between the table's paints while all 54 cards fly (QPropertyAnimation). Children run with
fresh settings and with bytecode caching on, as an installed app would (this sandbox sets
PYTHONDONTWRITEBYTECODE; a first warm-up run fills the caches). The interactive lobby is the
moment the lobby panel is painted with the games of the
built-in server listed (`--benchmark-lobby`; online play, and the built-in server with it,
starts after the first paint, as in the app): with the app starting the server (the default
starts above, in turns with the others), and apart with the server already running (a second
window, or the app started again soon after closing).
The first frame is the app's window with its table; the right-hand column (lobby, offline
panel, log) is built right after it, and how long that takes is shown too.
Memory is read from outside (/proc/PID/smaps_rollup) while the app runs as a player runs it:
`python -m somnium_desktop --benchmark-memory` starts as usual (the built-in server begun after
the first paint, the online panel live), marks once the lobby has listed the server's games and
again after a whole game against the computer played through the table; at each mark the
resident memory of the app's process and, separately, of the built-in server's are read.
Targets (docs/targets.md): first window <= 1.25x the bare table's, interactive lobby with the app
starting the built-in server <= 1.5 s, frame interval p99 <= 20 ms, the app's RSS <= 120 MB
after start and after a game.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.ranks import percentile

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"start_ratio": 1.25, "lobby_cold_ms": 1500.0, "p99_ms": 20.0, "rss_mb": 120.0}


def child_env(platform: str, display: str | None, home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["QT_QPA_PLATFORM"] = platform
    if display:
        env["DISPLAY"] = display
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[name] = str(home / name.lower())
    return env


def last_json(output: str) -> dict[str, float]:
    line = next(line for line in reversed(output.splitlines()) if line.startswith("{"))
    figures: dict[str, float] = json.loads(line)
    return figures


def fresh_home(base: Path) -> Path:
    home = base / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir()
    return home


APP = [sys.executable, "-m", "somnium_desktop", "--benchmark-startup"]
BARE = [sys.executable, str(Path(__file__).resolve().parent / "bare_table.py")]
LOBBY = [sys.executable, "-m", "somnium_desktop", "--benchmark-lobby"]
SERVED = LOBBY  # a default start: no server set, the app starts the built-in one after its paint
MEMORY = [sys.executable, "-m", "somnium_desktop", "--benchmark-memory"]


def measure_startup(env: dict[str, str], runs: int, base: Path, first: bool,
                    commands: tuple[list[str], ...] = (APP,)) -> list[list[dict[str, float]]]:
    """Start-up figures per command, the commands taking turns so a changing load hits them
    alike. With `first`, each run starts with no settings and no caches (a first start ever);
    else every run reuses one home (the app started again, as usual). SERVED starts once the
    built-in server of the last run has left, so that it starts that server itself; its runs
    also time the lobby (`lobby_ms`)."""
    platform, display = env["QT_QPA_PLATFORM"], env.get("DISPLAY")
    home = fresh_home(base)
    results: list[list[dict[str, float]]] = [[] for _ in commands]
    for run in range(runs + 1):
        for command, figures_of in zip(commands, results, strict=True):
            if first:
                home = fresh_home(base)
            env = {**env, **child_env(platform, display, home)}
            if command is SERVED:
                wait_gone(built_in_dir(env))
            spawned = time.monotonic()
            done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True,
                                  timeout=60)
            if done.returncode != 0:
                raise RuntimeError(f"start-up run failed:\n{done.stderr[-2000:]}")
            figures = last_json(done.stdout)
            if run > 0:  # the first round only warms bytecode and font caches
                figures["start_ms"] = (figures["painted_at"] - spawned) * 1000
                if "lobby_at" in figures:
                    figures["lobby_ms"] = (figures["lobby_at"] - spawned) * 1000
                figures_of.append(figures)
    if SERVED in commands:
        wait_gone(built_in_dir(env))
    return results


def built_in_dir(env: dict[str, str]) -> Path:
    """Where the app run with `env` keeps its built-in server (its data directory)."""
    from somnium_desktop.client.local_server import data_dir_for
    from somnium_desktop.ui.settings import APPLICATION, ORGANIZATION

    saved = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = env["XDG_DATA_HOME"]
    try:
        return data_dir_for(APPLICATION, ORGANIZATION)
    finally:
        if saved is None:
            del os.environ["XDG_DATA_HOME"]
        else:
            os.environ["XDG_DATA_HOME"] = saved


def lobby_run(env: dict[str, str]) -> dict[str, float]:
    spawned = time.monotonic()
    done = subprocess.run(LOBBY, env=env, cwd=ROOT, capture_output=True, text=True, timeout=90)
    if done.returncode != 0:
        raise RuntimeError(f"lobby run failed:\n{done.stderr[-2000:]}")
    figures = last_json(done.stdout)
    figures["start_ms"] = (figures["painted_at"] - spawned) * 1000
    figures["lobby_ms"] = (figures["lobby_at"] - spawned) * 1000
    return figures


def wait_gone(data_dir: Path, timeout: float = 30.0) -> None:
    """Wait until the built-in server of `data_dir` has left (it does, once no app is left)."""
    deadline = time.monotonic() + timeout
    while (data_dir / "server.json").exists():
        if time.monotonic() > deadline:
            raise RuntimeError("the built-in server did not leave")
        time.sleep(0.1)


def measure_lobby(env: dict[str, str], runs: int, base: Path) -> list[dict[str, float]]:
    """Start-up to an interactive lobby, `runs` times with the built-in server running
    already (with the app starting it, the default starts of measure_startup time it)."""
    from somnium_desktop.client.local_server import LocalServer

    env = {**env, **child_env(env["QT_QPA_PLATFORM"], env.get("DISPLAY"), fresh_home(base))}
    data_dir = built_in_dir(env)
    wait_gone(data_dir)
    server = LocalServer(data_dir, idle=1.0)
    server.ensure()
    try:
        return [lobby_run(env) for _ in range(runs)]
    finally:
        server.stop()


def smaps_mb(pid: int) -> dict[str, float]:
    """Resident (Rss), proportional (Pss) and anonymous memory of a process, in MB."""
    found: dict[str, float] = {}
    with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
        for line in rollup:
            name, _, rest = line.partition(":")
            if name in ("Rss", "Pss", "Anonymous"):
                found[name.lower()] = int(rest.split()[0]) / 1024
    return found


def server_pid(data_dir: Path) -> int | None:
    """The built-in server's process, from the state file it writes."""
    try:
        return int(json.loads((data_dir / "server.json").read_text(encoding="utf-8"))["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def memory_run(env: dict[str, str], data_dir: Path, base: Path) -> dict[str, float]:
    """One start of the app as a player's: its memory and the server's at each mark."""
    figures: dict[str, float] = {}
    with open(base / "memory-stderr.txt", "w+", encoding="utf-8") as errors:
        child = subprocess.Popen(MEMORY, env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                 stderr=errors, text=True)
        assert child.stdout is not None
        watchdog = threading.Timer(300, child.kill)  # a run that hangs ends, and fails
        watchdog.start()
        try:
            for line in child.stdout:
                if not line.startswith('{"stage"'):
                    continue
                stage = json.loads(line)["stage"]
                for key, value in smaps_mb(child.pid).items():
                    figures[f"{stage}_{key}_mb"] = value
                pid = server_pid(data_dir)
                if pid is not None:
                    figures[f"{stage}_server_rss_mb"] = smaps_mb(pid)["rss"]
            status = child.wait(timeout=300)
        finally:
            watchdog.cancel()
            if child.poll() is None:
                child.kill()
                child.wait()
        if status != 0 or "game_rss_mb" not in figures:
            errors.seek(0)
            raise RuntimeError(f"memory run failed ({status}):\n{errors.read()[-2000:]}")
    return figures


def measure_memory(env: dict[str, str], runs: int, base: Path) -> list[dict[str, float]]:
    """The app started `runs` times in one home, each time starting the built-in server."""
    env = {**env, **child_env(env["QT_QPA_PLATFORM"], env.get("DISPLAY"), fresh_home(base))}
    data_dir = built_in_dir(env)
    results = []
    for run in range(runs + 1):
        wait_gone(data_dir)
        figures = memory_run(env, data_dir, base)
        if run > 0:  # the first run compiles bytecode and fills the caches
            results.append(figures)
    wait_gone(data_dir)
    return results


def measure_frames(env: dict[str, str], seconds: float, base: Path) -> dict[str, float]:
    env = {**env, **child_env(env["QT_QPA_PLATFORM"], env.get("DISPLAY"), fresh_home(base))}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.desktop", "--child-frames", str(seconds)],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120 + seconds,
    )
    if done.returncode != 0:
        raise RuntimeError(f"frame run failed:\n{done.stderr[-2000:]}")
    return last_json(done.stdout)


def child_frames(seconds: float) -> None:
    """In a child: the real main window, all 54 cards dancing; print frame interval figures."""
    from PySide6.QtCore import QEvent, QObject, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from somnium_desktop.ui.demo import dance
    from somnium_desktop.ui.main_window import MainWindow
    from somnium_desktop.ui.settings import Settings
    from somnium_desktop.ui.startup_probe import rss_kb
    from somnium_desktop.ui.style import apply_style

    app = QApplication(sys.argv[:1])
    apply_style(app)
    store = QSettings(str(Path(tempfile.mkdtemp()) / "bench.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Settings(store))
    window.resize(1280, 800)
    window.show()
    stamps: list[float] = []

    class Paints(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                stamps.append(time.perf_counter())
            return False

    paints = Paints()
    viewport = window.table.view.viewport()
    viewport.installEventFilter(paints)
    animation = dance(window.table.scene)
    warm_up = 0.6
    QTimer.singleShot(int(warm_up * 1000), stamps.clear)
    QTimer.singleShot(int((warm_up + seconds) * 1000), app.quit)
    animation.start()
    app.exec()
    animation.stop()
    intervals = sorted((b - a) * 1000 for a, b in itertools.pairwise(stamps))
    viewport.removeEventFilter(paints)
    window.close()

    print(json.dumps({
        "frames": len(stamps),
        "fps": round(len(stamps) / seconds, 1),
        "p50_ms": round(percentile(intervals, 0.50), 2),
        "p90_ms": round(percentile(intervals, 0.90), 2),
        "p99_ms": round(percentile(intervals, 0.99), 2),
        "max_ms": round(intervals[-1], 2),
        "rss_mb": round(rss_kb() / 1024, 1),
        "view": f"{viewport.width()}x{viewport.height()}",
    }), flush=True)


@contextmanager
def xvfb(screen: str = "1920x1080") -> Iterator[str]:
    """A private Xvfb of `screen`'s size on a free display number, stopped afterwards."""
    binary = shutil.which("Xvfb")
    if binary is None:
        raise RuntimeError("Xvfb is not installed (apt-get install -y xvfb)")
    number = next(n for n in range(90, 400)
                  if not Path(f"/tmp/.X{n}-lock").exists()
                  and not Path(f"/tmp/.X11-unix/X{n}").exists())
    server = subprocess.Popen(
        [binary, f":{number}", "-screen", "0", f"{screen}x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while not Path(f"/tmp/.X11-unix/X{number}").exists():
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("Xvfb did not start")
            time.sleep(0.05)
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def bench(platform: str, display: str | None, runs: int, seconds: float,
          only: str = "all") -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="somnium-bench-") as scratch:
        base = Path(scratch)
        env = child_env(platform, display, fresh_home(base))
        figures: dict[str, float] = {}
        if only in ("all", "startup"):
            figures.update(bench_startup(env, runs, base))
        if only in ("all", "memory"):
            memory = measure_memory(env, max(3, runs // 3), base)
            figures["memory_runs"] = len(memory)
            for key in memory[0]:
                figures[key] = median(memory, key)
                figures[f"{key.removesuffix('_mb')}_max_mb"] = max(run[key] for run in memory)
        if only == "all":
            figures.update(measure_frames(env, seconds, base))
    return figures


def bench_startup(env: dict[str, str], runs: int, base: Path) -> dict[str, float]:
    again, served, bare = measure_startup(env, runs, base, first=False,
                                          commands=(APP, SERVED, BARE))
    (first,) = measure_startup(env, max(3, runs // 2), base, first=True)
    warm = measure_lobby(env, runs, base)
    figures = {
        "start_ms": median(again, "start_ms"),
        "start_min_ms": min(run["start_ms"] for run in again),
        "start_max_ms": max(run["start_ms"] for run in again),
        "start_cpu_ms": median(again, "cpu_ms"),
        "start_rss_mb": median(again, "rss_kb") / 1024,
        "first_start_ms": median(first, "start_ms"),
        "served_ms": median(served, "start_ms"),
        "served_min_ms": min(run["start_ms"] for run in served),
        "served_max_ms": max(run["start_ms"] for run in served),
        "bare_ms": median(bare, "start_ms"),
        "bare_min_ms": min(run["start_ms"] for run in bare),
        "bare_max_ms": max(run["start_ms"] for run in bare),
        "bare_cpu_ms": median(bare, "cpu_ms"),
        "column_ms": median(again, "column_ms"),
        "lobby_ms": median(warm, "lobby_ms"),
        "lobby_max_ms": max(run["lobby_ms"] for run in warm),
        "lobby_after_paint_ms": statistics.median(
            run["lobby_ms"] - run["start_ms"] for run in warm),
        "lobby_cold_ms": median(served, "lobby_ms"),  # the default starts' own lobby
        "lobby_cold_max_ms": max(run["lobby_ms"] for run in served),
    }
    figures["start_ratio"] = figures["start_ms"] / figures["bare_ms"]
    figures["served_ratio"] = figures["served_ms"] / figures["bare_ms"]
    return figures


def report(name: str, figures: dict[str, float]) -> None:
    def mark(value: float, target: str) -> str:
        return "ok" if value <= TARGETS[target] else "OVER"

    print(f"\n== {name}")
    if "start_ms" in figures:
        report_startup(figures, mark)
    if "memory_runs" in figures:
        report_memory(figures, mark)
    if "p99_ms" in figures:
        report_frames(figures, mark)


def report_startup(figures: dict[str, float], mark: Callable[[float, str], str]) -> None:
    print(f"first window painted: the app median {figures['start_ms']:.0f} ms "
          f"(min {figures['start_min_ms']:.0f}, max {figures['start_max_ms']:.0f}); "
          f"a bare PySide6 table of 54 SVG cards (benchmarks/bare_table.py), started alike in "
          f"turns with it: median {figures['bare_ms']:.0f} ms (min {figures['bare_min_ms']:.0f}, "
          f"max {figures['bare_max_ms']:.0f}); the app/bare = {figures['start_ratio']:.2f}x "
          f"[target <= 1.25x: {mark(figures['start_ratio'], 'start_ratio')}]")
    print(f"first window painted on a default start (no server set: the app starts the "
          f"built-in server after this paint; in turns with the two above): median "
          f"{figures['served_ms']:.0f} ms (min {figures['served_min_ms']:.0f}, max "
          f"{figures['served_max_ms']:.0f}); /bare = {figures['served_ratio']:.2f}x")
    print(f"the very first start (no settings, no caches): {figures['first_start_ms']:.0f} ms")
    print(f"interactive lobby (painted with the built-in server's games listed), with the app "
          f"starting the server (the default starts above): median "
          f"{figures['lobby_cold_ms']:.0f} ms (max {figures['lobby_cold_max_ms']:.0f}) "
          f"[target <= 1500: {mark(figures['lobby_cold_ms'], 'lobby_cold_ms')}]; "
          f"the server running already: median {figures['lobby_ms']:.0f} ms "
          f"(max {figures['lobby_max_ms']:.0f}; "
          f"{figures['lobby_after_paint_ms']:.0f} ms after the first paint)")
    print(f"CPU time of the app to its first paint: median {figures['start_cpu_ms']:.0f} ms "
          f"(from the process's start; less inflated by other processes); the bare table's: "
          f"median {figures['bare_cpu_ms']:.0f} ms")
    print(f"the right-hand column (lobby, offline panel, log), built just after the first "
          f"paint: median {figures['column_ms']:.0f} ms")
    print(f"RSS at first paint (read inside, mid-start): {figures['start_rss_mb']:.1f} MB")


def report_memory(figures: dict[str, float], mark: Callable[[float, str], str]) -> None:
    for stage, label in (("lobby", "started, the lobby listed"),
                         ("game", "after a whole game on the table")):
        rss = figures[f"{stage}_rss_mb"]
        print(f"memory as a player runs it, {label} (median of {figures['memory_runs']:.0f}): "
              f"the app RSS {rss:.1f} MB (max {figures[f'{stage}_rss_max_mb']:.1f}; "
              f"PSS {figures[f'{stage}_pss_mb']:.1f}, anonymous "
              f"{figures[f'{stage}_anonymous_mb']:.1f}) [target <= 120: {mark(rss, 'rss_mb')}]; "
              f"the built-in server RSS {figures.get(f'{stage}_server_rss_mb', 0.0):.1f} MB")


def report_frames(figures: dict[str, float], mark: Callable[[float, str], str]) -> None:
    print(f"frame interval, 54 cards flying ({figures['view']}, {figures['frames']} frames): "
          f"p50 {figures['p50_ms']:.1f} ms, p90 {figures['p90_ms']:.1f} ms, "
          f"p99 {figures['p99_ms']:.1f} ms, max {figures['max_ms']:.1f} ms "
          f"[target p99 <= 20: {mark(figures['p99_ms'], 'p99_ms')}]")
    print(f"RSS with every face rendered (the frame run, no online play): "
          f"{figures['rss_mb']:.1f} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="start-up runs per platform")
    parser.add_argument("--seconds", type=float, default=8.0, help="animation time measured")
    parser.add_argument("--platforms", default="offscreen,xvfb")
    parser.add_argument("--only", choices=("all", "startup", "memory"), default="all",
                        help="measure only start-up (first window and lobby) or only memory")
    parser.add_argument("--child-frames", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_frames:
        child_frames(args.child_frames)
        return 0
    load = os.getloadavg()
    print(f"{os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"Python {sys.version.split()[0]}")
    for platform in args.platforms.split(","):
        if platform == "xvfb":
            with xvfb() as display:
                report(f"Xvfb ({display}, xcb)", bench("xcb", display, args.runs, args.seconds,
                                                           args.only))
        else:
            report(platform, bench(platform, None, args.runs, args.seconds, args.only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
