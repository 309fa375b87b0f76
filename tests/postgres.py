"""A throw-away PostgreSQL cluster in a temp dir, for the tests and the benchmarks.

Debian's binaries (package `postgresql`) are not on PATH and refuse to run as root: as root,
the cluster's directory is given to the `postgres` user and the binaries run as that user.
The cluster listens on a unix socket in its directory and on 127.0.0.1 at a free port.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import psycopg

BIN = Path(os.environ.get("SOMNIUM_PG_BIN", "/usr/lib/postgresql/15/bin"))
SUPERUSER = "somnium"
# For tests: nothing waits for the disk (a crashed cluster is thrown away anyway).
FAST = ("fsync=off", "synchronous_commit=off", "full_page_writes=off")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Cluster:
    """initdb + pg_ctl start in a fresh temp dir; `stop()` removes it all."""

    def __init__(self, settings: Sequence[str] = FAST, bin_dir: Path = BIN) -> None:
        initdb = bin_dir / "initdb"
        if not initdb.exists():
            raise RuntimeError(
                f"PostgreSQL's binaries are not in {bin_dir} (install Debian's `postgresql`, "
                "or set SOMNIUM_PG_BIN to the directory holding initdb and pg_ctl)"
            )
        self.bin = bin_dir
        self.dir = Path(tempfile.mkdtemp(prefix="somnium-pg-"))
        self._as: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL refuses root: run it as the postgres user
            owner = pwd.getpwnam("postgres")
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self.port = _free_port()
        self.data = self.dir / "data"
        self._names = itertools.count(1)
        self._run(str(initdb), "-D", str(self.data), "-U", SUPERUSER, "--auth=trust",
                  "--encoding=UTF8", "--no-sync", "--no-instructions")
        options = [f"-k {self.dir}", "-h 127.0.0.1", f"-p {self.port}", "-c max_connections=300"]
        options += [f"-c {setting}" for setting in settings]
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "log"),
                      "-o", " ".join(options), "-w", "-t", "30", "start")
        except BaseException:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise

    def _run(self, *command: str) -> None:
        done = subprocess.run([*self._as, *command], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            log = self.dir / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(
                f"{Path(command[0]).name} failed ({done.returncode}): {done.stderr}{tail}"
            )

    def url(self, database: str = "postgres") -> str:
        """The connection URL of one database, over TCP."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh empty database; its URL."""
        name = f"test_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w",
                      "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
