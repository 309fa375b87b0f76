"""benchmarks/server_load.py, tiny, against a real server process: one table of sane figures."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks.loadgen.servers import BenchError, CpuSource, loopback_base

ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^\| (?!scenario|-)(.+?) \|$")


def run_bench(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'server'}"}
    return subprocess.run([sys.executable, "-m", "benchmarks.server_load", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=timeout)


def numbers(cell: str) -> list[float]:
    return [float(part) for part in cell.split(" / ")]


@dataclass
class Figures:
    """One row of the printed table."""

    rate: float
    trip: list[float]
    own: list[float]
    other: list[float]
    lost: int
    ended: float
    rematches: float
    errors: int
    late: float  # how late the load generator's own event loop ran, p99
    server_cpu: float

    @classmethod
    def of(cls, row: list[str]) -> Figures:
        ended, rematches = numbers(row[6])
        return cls(float(row[1]), numbers(row[2]), numbers(row[3]), numbers(row[4]),
                   int(row[5]), ended, rematches, int(row[7]), float(row[8]),
                   float(row[9].split(" / ")[0]))


def test_a_tiny_run_prints_one_table_of_sane_figures() -> None:
    done = run_bench("--games", "4", "--rate", "40", "--paced-seconds", "2",
                     "--saturation-seconds", "4", "--spread", "40", "--observers", "30",
                     "--observed-games", "2", "--observer-interval", "0.1",
                     "--observer-seconds", "2", "--lobby-streams")
    assert done.returncode == 0, done.stderr[-2000:]
    lobbies = re.search(r"^8 lobby streams received (\d+) events$", done.stdout, re.MULTILINE)
    assert lobbies and int(lobbies.group(1)) >= 8, done.stdout  # a snapshot each, and more
    rows = [[cell.strip() for cell in match.group(1).split(" | ")]
            for line in done.stdout.splitlines() if (match := ROW.match(line))]
    assert [row[0] for row in rows] == [
        "paced: 4 games at 40/s", "saturation: 4 games",
        "30 observers on 2 game(s), a move every 100 ms",
    ], done.stdout
    paced, saturation, watched = (Figures.of(row) for row in rows)
    assert 20 <= paced.rate <= 44  # paced to 40/s: never faster, and not far behind
    assert 10 <= watched.rate <= 22  # two games, a move every 100 ms each
    assert saturation.rate > paced.rate
    for row in (paced, saturation, watched):
        for figures in (row.trip, row.own, row.other):
            assert 0 < figures[0] <= figures[-1] < 10_000
            assert figures == sorted(figures)  # p50 <= p95 <= p99 <= max
        assert row.lost == 0 and row.errors == 0
        assert 0 <= row.late < figures[-1] + 1_000
        assert row.server_cpu > 0
    # games ended and rematches happened inside the windows (saturation plays them fast)
    assert saturation.ended >= 1 and saturation.rematches >= 1


def test_several_instances_on_one_sqlite_file_are_refused_with_the_reason() -> None:
    done = run_bench("--instances", "2", "--games", "2", timeout=60)
    assert done.returncode != 0
    assert "--database-url" in done.stderr and "SQLite" in done.stderr


def test_only_loopback_servers_are_loaded() -> None:
    assert loopback_base("http://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    assert loopback_base("http://[::1]:8000") == "http://[::1]:8000"
    for elsewhere in ("http://192.168.1.4:8000", "http://example.org:80", "https://127.0.0.1"):
        with pytest.raises(BenchError, match="loopback"):
            loopback_base(elsewhere)


def test_cpu_time_is_read_from_proc() -> None:
    own = CpuSource("this test", [os.getpid()])
    before = own.seconds()
    sum(n * n for n in range(3_000_000))
    assert own.seconds() > before


def test_a_database_counts_its_backends_ended_and_live() -> None:
    """Like a postmaster: the CPU of children it has waited for counts, and of live ones."""
    postmaster = CpuSource("database", [os.getpid()], with_children=True)
    before = postmaster.seconds()
    burn = "sum(n * n for n in range(3_000_000))"
    subprocess.run([sys.executable, "-c", burn], check=True, timeout=60)  # ended, waited for
    ended = postmaster.seconds()
    assert ended > before + 0.05
    live = subprocess.Popen([sys.executable, "-c", f"{burn}; import time; time.sleep(30)"])
    try:
        deadline = time.monotonic() + 30
        while postmaster.seconds() < ended + 0.05 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert postmaster.seconds() >= ended + 0.05
    finally:
        live.kill()
        live.wait()


def test_analyses_beside_the_paced_load_are_a_row_of_their_own() -> None:
    done = run_bench("--games", "4", "--rate", "200", "--paced-seconds", "3",
                     "--saturation-seconds", "0", "--spread", "40", "--observers", "0",
                     "--analyses-per-second", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [[cell.strip() for cell in match.group(1).split(" | ")]
            for line in done.stdout.splitlines() if (match := ROW.match(line))]
    assert [row[0] for row in rows] == [  # no saturation row for --saturation-seconds 0
        "paced: 4 games at 200/s", "paced, 2 analyses/s beside"], done.stdout
    beside = Figures.of(rows[1])
    assert beside.rate > 0 and beside.errors == 0 and beside.lost == 0
    asked = re.search(r"^analyses beside the paced load: (\d+) asked for \(2/s\), "
                      r"answered (\d+) x 200;", done.stdout, re.MULTILINE)
    assert asked, done.stdout
    assert int(asked.group(1)) >= 1 and asked.group(1) == asked.group(2)
