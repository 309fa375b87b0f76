"""The built-in server's boot: spawn to listening, to the lobby's snapshot, to the full API.

Run from a checkout:  .venv/bin/python benchmarks/embedded_boot.py [--runs 9]

Each run spawns `python -m somnium_server.embedded` on one data directory (as the app does,
bytecode caching on), waits for the port it announces, at once opens
`GET /lobby/events` (what the app's lobby asks first) and reads until the snapshot, then asks
`GET /levels` (answered by the full app only). Times count from just before the spawn.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMAND = [sys.executable, "-m", "somnium_server.embedded"]


def request(port: int, path: str) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=30)
    connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return connection


def read_until(connection: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = connection.recv(65536)
        if not chunk:
            raise RuntimeError(f"the answer ended before {marker!r}: {data[-300:]!r}")
        data += chunk
    return data


def one_run(data_dir: Path, env: dict[str, str]) -> dict[str, float]:
    spawned = time.monotonic()
    child = subprocess.Popen([*COMMAND, "--data-dir", str(data_dir), "--idle", "0.5"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert child.stdout is not None and child.stdin is not None
    try:
        line = child.stdout.readline()
        listening = time.monotonic()
        port = int(line.split(b":")[1].strip(b" }\n"))
        with request(port, "/lobby/events") as lobby:
            read_until(lobby, b"event: snapshot")
            lobby_at = time.monotonic()
            with request(port, "/levels") as levels:
                read_until(levels, b"]")
                full_at = time.monotonic()
    finally:
        child.stdin.close()
        child.wait(30)
        child.stdout.close()
    return {"listen_ms": (listening - spawned) * 1000, "lobby_ms": (lobby_at - spawned) * 1000,
            "full_ms": (full_at - spawned) * 1000}



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    base = Path(tempfile.mkdtemp(prefix="somnium-boot-"))
    try:
        figures: list[dict[str, float]] = []
        for run in range(args.runs + 1):
            figures_now = one_run(base, env)  # one data directory, as for a user
            if run > 0:  # the first run compiles the bytecode
                figures.append(figures_now)
        for key in ("listen_ms", "lobby_ms", "full_ms"):
            values = sorted(f[key] for f in figures)
            print(f"{key:10} median {statistics.median(values):6.0f}  "
                  f"min {values[0]:6.0f}  max {values[-1]:6.0f}")
        print("load:", os.getloadavg())
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
