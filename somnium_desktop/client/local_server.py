"""Finds the built-in lobby server on this computer, or starts it: one per data directory.

Why a child process and not uvicorn on a thread of the app: the server's imports alone take
most of a second of CPU, and its computer players think for up to tens of milliseconds a move;
in the app's process both would hold the GIL and stall the table's animations. A process of
its own also survives a crash of the window that started it, and is shared by every app
instance on the computer: it holds a lock in the data directory and writes `server.json`
(port, pid) there, so a second instance finds it and never starts a second server on the same
SQLite file. When the app that started it quits, the server stays while another instance is
connected and leaves a few seconds after the last one (see somnium_server.embedded); an
instance that finds it gone starts a new one (`ensure` again).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from .errors import LobbyError

STATE_FILE = "server.json"
LOG_FILE = "server.log"
START_TIMEOUT = 60.0
FIRST_RETRY = 2.0  # seconds before starting ours again when another holds the lock...
LAST_RETRY = 16.0  # ...doubled each time, up to this
PRIVATE_FOLDER = 0o700  # the data directory: games, the decks' order, sign-ins (the server
PRIVATE_FILE = 0o600  # makes an older, wider one 0700 again), and its log

log = logging.getLogger("somnium_desktop.local_server")


class LocalServerError(LobbyError):
    """The built-in server could not be started; the message says why, in plain words."""


def data_dir_for(application: str, organization: str) -> Path:
    """Where the built-in server keeps its games and accounts (the user's data directory)."""
    import platformdirs

    return Path(platformdirs.user_data_dir(application, organization)) / "local-server"


def server_command() -> list[str]:
    """How to run the built-in server: this Python with the server package."""
    return [sys.executable, "-m", "somnium_server.embedded"]


HEALTH_LIMIT = 65536  # bytes: /health answers with a few dozen


def is_alive(base_url: str, timeout: float = 1.0) -> bool:
    """True when a Somnium lobby server answers at `base_url` (http://127.0.0.1:port).

    One plain HTTP/1.1 request on a socket, not http.client nor requests: this runs at
    start-up, on a thread beside the UI thread's work right after the first paint, and
    http.client's imports (email, ssl) alone took about a tenth of the CPU of the window's start."""
    host, _, port = base_url.removeprefix("http://").partition(":")
    request = (f"GET /health HTTP/1.1\r\nHost: {host}:{port or 80}\r\n"
               "Connection: close\r\n\r\n").encode("ascii")
    answer = b""
    try:
        with socket.create_connection((host, int(port or 80)), timeout=timeout) as sock:
            sock.sendall(request)
            while len(answer) <= HEALTH_LIMIT:
                chunk = sock.recv(4096)
                if not chunk:  # the server closed the connection: the answer is whole
                    break
                answer += chunk
    except (OSError, ValueError):
        return False
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].split()
    if len(status_line) < 2 or status_line[1] != b"200":
        return False
    try:
        found = json.loads(body)
    except ValueError:  # a chunked or cut answer: not the server we know
        return False
    return isinstance(found, dict) and found.get("status") == "ok"


class LocalServer:
    """The built-in server for one data directory: found if it runs, else started.

    `ensure()` blocks (run it off the UI thread). `close()` lets go of a server this
    instance started: it leaves once no other instance uses it.
    """

    def __init__(
        self,
        data_dir: Path,
        command: Sequence[str] | None = None,
        *,
        idle: float = 5.0,
        start_timeout: float = START_TIMEOUT,
    ) -> None:
        self.data_dir = data_dir
        self.command = list(command) if command is not None else server_command()
        self.idle = idle
        self.start_timeout = start_timeout
        self.base_url: str | None = None
        self.child: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._lock = threading.Lock()
        self._warming = False
        self._told = ""  # what was last logged of a server holding the lock

    @property
    def key(self) -> str:
        """A name for this server that stays the same when its port changes (for sign-ins)."""
        return f"somnium-local:{self.data_dir}"

    @property
    def owned(self) -> bool:
        """True while a server this instance started is running."""
        return self.child is not None and self.child.poll() is None

    def find(self) -> str | None:
        """The address of the server running for this data directory, if one answers."""
        try:
            state = json.loads((self.data_dir / STATE_FILE).read_text(encoding="utf-8"))
            base = f"http://127.0.0.1:{int(state['port'])}"
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return base if is_alive(base) else None

    def warm_up(self) -> None:
        """Find or start the server on a thread of its own, so that it boots while the app
        does other things; a later ensure() waits for it (and says what went wrong, if so).

        The app calls it right after its window's first paint (never before: the boot, most
        of a second of CPU, would share the cores with the window's start), just before online
        play's own imports, which then load on the UI thread while the server boots. Not an
        Operations job: it has nothing to call back (the ensure() that online play runs
        through Operations right after picks up its outcome)."""

        def find_or_start() -> None:
            with contextlib.suppress(LobbyError):
                self.ensure()

        if self._warming:
            return
        self._warming = True
        threading.Thread(target=find_or_start, name="local-server-start", daemon=True).start()

    def ensure(self) -> str:
        """The address of a running built-in server, starting one if there is none.

        A server of ours that finds another holding the lock gives up: that one is starting
        (it answers soon) or does not answer (hung, stopped). Either way it is looked for
        again and again, but ours is started again only after a growing delay, not every
        tenth of a second: a hung one would have us start dozens of processes a second."""
        with self._lock:
            deadline = time.monotonic() + self.start_timeout
            delay, again_at = FIRST_RETRY, 0.0
            while True:
                found = self.find()
                if found is not None:
                    self.base_url = found
                    return found
                if time.monotonic() > deadline:
                    held = "" if self.owned else self._holder_words()
                    raise LocalServerError(held or (
                        "The built-in server did not start in time. See "
                        f"{self.data_dir / LOG_FILE} for what it said."))
                if self.owned or time.monotonic() >= again_at:
                    if not self.owned:
                        self._spawn()
                    started = self._wait_for_child(deadline)
                    if started is not None:
                        self.base_url = started
                        return started
                    if not self.owned:  # another server holds the lock
                        again_at = time.monotonic() + delay
                        delay = min(delay * 2, LAST_RETRY)
                        self._tell_holder()
                time.sleep(0.1)  # another instance's server is starting: look again

    def _holder_words(self) -> str:
        """What to say of another server that holds the lock and wrote server.json, yet does
        not answer ("" when there is no such file: that one is still starting)."""
        try:
            state = json.loads((self.data_dir / STATE_FILE).read_text(encoding="utf-8"))
            pid = int(state["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return ""
        return (f"Another Somnium server (pid {pid}) holds {self.data_dir} but does not "
                "answer. End that process, or wait for it to come back.")

    def _tell_holder(self) -> None:
        """Log once that a server that does not answer holds the lock (the lobby says so
        when the wait is over)."""
        words = self._holder_words()
        if words and words != self._told:
            log.warning("%s", words)
        self._told = words

    def _spawn(self) -> None:
        try:
            self.data_dir.mkdir(mode=PRIVATE_FOLDER, parents=True, exist_ok=True)
            log = open_private_log(self.data_dir / LOG_FILE)
        except OSError as error:
            raise LocalServerError(
                f"The built-in server cannot keep its games in {self.data_dir}: "
                f"{error.strerror or error}."
            ) from None
        flags = 0
        if sys.platform == "win32":
            flags = subprocess.CREATE_NO_WINDOW | subprocess.CREATE_NEW_PROCESS_GROUP
        try:
            self.child = subprocess.Popen(
                [*self.command, "--data-dir", str(self.data_dir), "--idle", str(self.idle)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                start_new_session=sys.platform != "win32", creationflags=flags,
            )
        except OSError as error:
            raise LocalServerError(f"The built-in server could not be started: {error}.") from None
        finally:
            log.close()
        self._lines = queue.Queue()
        assert self.child.stdout is not None
        threading.Thread(target=_read_lines, args=(self.child.stdout, self._lines),
                         name="local-server", daemon=True).start()

    def _wait_for_child(self, deadline: float) -> str | None:
        """The address our child announces; None if it found another server starting."""
        child = self.child
        assert child is not None
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, min(0.2, deadline - time.monotonic())))
            except queue.Empty:
                if time.monotonic() > deadline:
                    return None
                continue
            if not line:  # its output ended: it exited
                child.wait()
                _release(child)
                if child.returncode == 3:  # another server holds the lock
                    self.child = None
                    return None
                raise LocalServerError(
                    f"The built-in server stopped at start (exit status {child.returncode}). "
                    f"See {self.data_dir / LOG_FILE} for what it said."
                )
            with contextlib.suppress(ValueError):
                said = json.loads(line)
                if "port" in said:
                    return f"http://127.0.0.1:{int(said['port'])}"

    def close(self) -> None:
        """Let go of our server: it leaves once no other app instance is connected."""
        child = self.child
        if child is not None and child.stdin is not None:
            with contextlib.suppress(OSError):
                child.stdin.close()

    def wait_stopped(self, timeout: float) -> bool:
        """Wait until the server we started has exited (after close); True if it has."""
        child = self.child
        if child is None:
            return True
        try:
            child.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        _release(child)
        return True

    def stop(self, timeout: float = 10.0) -> None:
        """End the server we started now (tests; the app lets it leave by itself)."""
        child = self.child
        if child is None:
            return
        self.close()
        if child.poll() is None:
            child.terminate()
        if not self.wait_stopped(timeout):
            child.kill()
            self.wait_stopped(timeout)


def open_private_log(path: Path) -> IO[bytes]:
    """`path` opened for appending, readable by this user only (made so if it was not)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE)
    if sys.platform != "win32":
        with contextlib.suppress(OSError):  # not ours to change: still ours to write
            os.fchmod(fd, PRIVATE_FILE)
    return os.fdopen(fd, "ab")


def _release(child: subprocess.Popen[bytes]) -> None:
    """Close our ends of an exited child's pipes."""
    for pipe in (child.stdin, child.stdout):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


def _read_lines(stream: IO[bytes], lines: queue.Queue[bytes]) -> None:
    with contextlib.suppress(OSError, ValueError):
        for line in stream:
            lines.put(line)
    lines.put(b"")
