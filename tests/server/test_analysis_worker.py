"""The analyses' worker process of a real server process: it loads the judging, not the
server, and takes only idle cores."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from somnium_server.play.worker import NICENESS

from .helpers import analyse_a_game, free_port, parent_of

# Shared objects the server's HTTP stack loads (FastAPI's pydantic, uvicorn's parser) and the
# judging never needs: found in a worker's memory map, it imported the server again.
SERVER_ONLY = ("pydantic_core", "httptools")


def _children(pid: int) -> dict[int, list[bytes]]:
    """The processes whose parent is `pid`, with their command lines."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not (entry.name.isascii() and entry.name.isdigit()):
            continue
        try:
            if parent_of(int(entry.name)) == pid:
                found[int(entry.name)] = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # gone meanwhile
            continue
    return found


@contextlib.contextmanager
def _serving(command: list[str], tmp_path: Path) -> Iterator[tuple[int, str, Path]]:
    """A server process started with `command`: its pid, address and SQLite file."""
    port, database = free_port(), tmp_path / "worker.sqlite3"
    server = subprocess.Popen(
        [*command, "--port", str(port), "--database", str(database), "--access-log", "false",
         "--rate-act", "1000/1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            try:
                requests.get(f"http://127.0.0.1:{port}/health", timeout=5)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
        yield server.pid, f"http://127.0.0.1:{port}", database
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate(timeout=10)
            raise


def _workers(pid: int) -> list[int]:
    return [child for child, args in _children(pid).items() if b"--multiprocessing-fork" in args]


@pytest.mark.parametrize("started_as", ["python -m somnium_server", "somnium-server"])
def test_the_worker_loads_the_judging_only_and_yields(started_as: str, tmp_path: Path) -> None:
    command = ([sys.executable, "-m", "somnium_server"] if started_as.startswith("python")
               else [str(Path(sys.executable).with_name("somnium-server"))])
    with _serving(command, tmp_path) as (pid, base, database):
        analyse_a_game(base, database)
        workers = _workers(pid)
        assert len(workers) == 1
        worker_map = Path(f"/proc/{workers[0]}/maps").read_text()
        server_map = Path(f"/proc/{pid}/maps").read_text()
        for name in SERVER_ONLY:
            assert name in server_map  # (so its absence below says something)
            assert name not in worker_map, f"the worker imported the server ({name})"
        niceness = os.getpriority(os.PRIO_PROCESS, workers[0])
        assert niceness == min(19, os.getpriority(os.PRIO_PROCESS, pid) + NICENESS)
        assert os.sched_getscheduler(workers[0]) == os.SCHED_IDLE


def test_a_worker_killed_while_idle_costs_no_analysis(tmp_path: Path) -> None:
    """The worker is killed between two analyses (as the kernel's out-of-memory killer
    might): the next analysis is judged by a new one, not answered 503."""
    with _serving([sys.executable, "-m", "somnium_server"], tmp_path) as (pid, base, database):
        analyse_a_game(base, database)
        (worker,) = _workers(pid)
        os.kill(worker, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while worker in _workers(pid):  # (until the server's pool has reaped it)
            assert time.monotonic() < deadline, "the killed worker was never reaped"
            time.sleep(0.05)
        analyse_a_game(base, database)
        assert len(_workers(pid)) == 1
