"""The servers under load: started as real `somnium-server` processes, or found; their CPU time.

CPU time is read from /proc/<pid>/stat: user + system time of each server process, and of a
PostgreSQL server (its postmaster, its live backends, and through the postmaster's
children's times, the backends that have already ended).
"""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent.parent
CLK_TCK = os.sysconf("SC_CLK_TCK")
# Limits far above what the benchmark does: it measures the server, not its rate limits.
GENEROUS = ["--max-streams", "1000000", "--rate-act", "1000000/1", "--rate-create", "1000000/1",
            "--rate-join", "1000000/1", "--rate-signin", "1000000/1",
            "--rate-analysis", "1000000/1"]


class BenchError(Exception):
    """The benchmark cannot run as asked; the message says why and what to do."""


def loopback_base(url: str) -> str:
    """The URL without a trailing slash, if it is http:// on a loopback address; else an error."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if parts.scheme != "http" or not loopback or parts.port is None:
        raise BenchError(f"--server {url!r}: give http://127.0.0.1:PORT (loopback addresses only; "
                         "this benchmark never sends load elsewhere)")
    return f"http://{parts.netloc}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def process_ticks(pid: int, children_too: bool = False) -> int:
    """Clock ticks of user + system time of a process (and of its ended, waited-for children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    used = int(fields[11]) + int(fields[12])  # utime, stime
    if children_too:
        used += int(fields[13]) + int(fields[14])  # cutime, cstime
    return used


def children_of(parent: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isascii() or not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
            found.append(int(entry))
    return found


def listening_pid(port: int) -> int | None:
    """The process listening on 127.0.0.1:`port` (or any address), if this user can see it."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{cols[9]}]")
    for entry in os.listdir("/proc"):
        if not entry.isascii() or not entry.isdigit():
            continue
        try:
            for fd in os.listdir(f"/proc/{entry}/fd"):
                if os.readlink(f"/proc/{entry}/fd/{fd}") in inodes:
                    return int(entry)
        except OSError:
            continue
    return None


@dataclass
class CpuSource:
    """Processes whose CPU time counts as one part (the servers, or the database)."""

    name: str
    pids: list[int]
    with_children: bool = False  # a postmaster: its backends, live and ended, count too

    def seconds(self) -> float:
        ticks = 0
        for pid in self.pids:
            try:
                ticks += process_ticks(pid, self.with_children)
                if self.with_children:
                    ticks += sum(_ticks_or_zero(child) for child in children_of(pid))
            except OSError:
                continue  # a process gone: what it used is no longer to be read
        return ticks / CLK_TCK


def _ticks_or_zero(pid: int) -> int:
    try:
        return process_ticks(pid)
    except OSError:
        return 0


def peak_memory_mb(pids: list[int]) -> float:
    """The peak resident memory of processes, summed, in MB (0 for those gone)."""
    total = 0.0
    for pid in pids:
        try:
            lines = Path(f"/proc/{pid}/status").read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            if line.startswith("VmHWM:"):
                total += int(line.split()[1]) / 1024
    return total


def own_cpu_seconds() -> float:
    """User + system CPU time of this process so far (the load generator's)."""
    times = os.times()
    return times.user + times.system


def postgres_pid(pid: int | None, cluster: Path | None) -> int | None:
    """The postmaster's pid: given, or the first line of the cluster's postmaster.pid."""
    if pid is not None or cluster is None:
        return pid
    try:
        return int((cluster / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError) as error:
        raise BenchError(f"--database-cluster {cluster}: no running postmaster ({error})") from None


class ServerProcesses:
    """`somnium-server` instances started by the benchmark, each on its own port of 127.0.0.1.

    They run this checkout's server (its `server/` directory first on the import path), with
    local accounts (the benchmark's players sign in with a name) and limits out of the way.
    """

    def __init__(self, count: int, database: Path | None, database_url: str | None) -> None:
        if database_url is None and count > 1:
            raise BenchError(
                f"--instances {count} needs --database-url postgresql://...: several instances "
                "on one SQLite file are not supported (each keeps its games in its own memory)"
            )
        store = (["--database-url", database_url] if database_url is not None
                 else ["--database", str(database)])
        if database_url is not None:
            self._check_database_url_option()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT / "server"), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
        self.ports = [free_port() for _ in range(count)]
        self.processes = [
            subprocess.Popen(
                [sys.executable, "-m", "somnium_server", "--host", "127.0.0.1", "--port",
                 str(port), *store, "--access-log", "false", "--log-level", "warning",
                 "--local-accounts", "true", "--keepalive", "15", *GENEROUS],
                env=env, cwd=ROOT,
            )
            for port in self.ports
        ]

    @staticmethod
    def _check_database_url_option() -> None:
        shown = subprocess.run(
            [sys.executable, "-m", "somnium_server", "--help"], capture_output=True, text=True,
            cwd=ROOT, env={**os.environ, "PYTHONPATH": f"{ROOT / 'server'}{os.pathsep}{ROOT}"},
            timeout=60,
        )
        if "--database-url" not in shown.stdout:
            raise BenchError("this checkout's somnium-server has no --database-url option yet "
                             "(PostgreSQL storage): run without --database-url")

    @property
    def bases(self) -> list[str]:
        return [f"http://127.0.0.1:{port}" for port in self.ports]

    def cpu(self) -> CpuSource:
        return CpuSource("server", [p.pid for p in self.processes])

    def check_alive(self) -> None:
        for process in self.processes:
            if process.poll() is not None:
                raise BenchError(f"the server (pid {process.pid}) exited with status "
                                 f"{process.returncode}; its messages are above")

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 15
        for process in self.processes:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
