"""Network work off the UI thread: an operation runner in the manner of Anki's.

`Operations.run(work, on_success, on_failure, label)` runs `work` on a worker thread and
calls back on the UI thread. While any operation runs, `busy` is true and `progress` names
the oldest one, so a window can show what it is waiting for. Failures that are LobbyErrors
(the server unreachable, a refusal, signed out), or of the kinds given as `expected`, go to
`on_failure`; anything else is a bug and is raised on the UI thread, where the app's
exception dialog shows it (told first to `on_unexpected`, if given: what waited on the
operation, a move shown as pending say, need not wait for good).

An operation may carry an `owner`: a Stamp of the Generation it was started in (a server
connected to, a sign-in). When that generation has moved on by the time the answer comes (the
server was left, the player signed out), the answer is dropped here, in one place: neither
`on_success` nor `on_failure` is called. `lifetime(widget)` is such a stamp for what a
widget shows: current until the widget is deleted. `on_done` is called first however it ended (what
marks "one at a time" is cleared there). An operation that must run one at a time names
itself `exclusive` (any hashable key, e.g. (game, "resync")): while one with that key runs,
another is not started, and `running(key)` says so.

Workers are daemon threads, one per operation (they are few, and wait on the network): a
request stuck until its timeout never keeps the app from quitting.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal, SignalInstance

from .errors import LobbyError

T = TypeVar("T")
log = logging.getLogger("somnium_desktop.operations")


class _Door:
    """Whether the runner may still be told that a job finished. A worker tells it with the
    lock held, and closing (or the runner's deletion, on the UI thread) takes the lock: so a
    runner is never freed while a worker tells it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open = True

    def shut(self, *_: object) -> None:
        with self.lock:
            self.open = False


class Generation:
    """A count that moves on when what operations were started for is gone (a server left,
    a sign-in ended). A generation may be nested in another (a sign-in on a server): moving
    the outer one on makes the inner one's stamps stale too."""

    def __init__(self, within: Generation | None = None) -> None:
        self.within = within
        self._count = 0

    @property
    def count(self) -> int:
        return self._count

    def move_on(self) -> None:
        self._count += 1

    def stamp(self) -> Stamp:
        """What an operation started now carries: it is current until this moves on."""
        return Stamp(self, self._count, self.within.stamp() if self.within else None)


@dataclass(frozen=True)
class Stamp:
    """The generation an operation was started in."""

    generation: Generation
    count: int
    within: Stamp | None = None

    @property
    def current(self) -> bool:
        return self.generation.count == self.count and (
            self.within is None or self.within.current)


@dataclass
class _Job:
    label: str
    on_success: Callable[[Any], None] | None
    on_failure: Callable[[Any], None] | None
    quiet: bool = False  # a check in the background: the window shows no progress for it
    owner: Stamp | None = None  # its answer is dropped once this is no longer current
    on_done: Callable[[], None] | None = None  # called however it ended, dropped included
    expected: tuple[type[Exception], ...] = (LobbyError,)  # failures for on_failure
    exclusive: Hashable | None = None  # at most one running job with this key
    on_unexpected: Callable[[BaseException], None] | None = None  # a failure not expected


class Operations(QObject):
    """Runs blocking work on worker threads; its outcome comes back on the UI thread."""

    busy_changed = Signal(bool)
    progress = Signal(str)  # what the oldest running operation is doing ("" when idle)
    _finished = Signal(int, bool, object)  # job id, succeeded, result or exception

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs: dict[int, _Job] = {}
        self._ids = itertools.count(1)
        self._closed = False
        self._threads: set[threading.Thread] = set()
        self._threads_lock = threading.Lock()
        self._finished.connect(self._deliver)  # queued: emitted from the workers
        self._door = door = _Door()
        self.destroyed.connect(door.shut)  # (not self: called as it is being deleted)

    @property
    def busy(self) -> bool:
        return any(not job.quiet for job in self._jobs.values())

    @property
    def label(self) -> str:
        return next((job.label for job in self._jobs.values() if job.label and not job.quiet),
                    "")

    def run(
        self,
        work: Callable[[], T],
        on_success: Callable[[T], None] | None = None,
        on_failure: Callable[[Any], None] | None = None,
        label: str = "",
        *,
        quiet: bool = False,
        owner: Stamp | None = None,
        on_done: Callable[[], None] | None = None,
        expected: tuple[type[Exception], ...] = (LobbyError,),
        exclusive: Hashable | None = None,
        on_unexpected: Callable[[BaseException], None] | None = None,
    ) -> bool:
        """Start `work`; False if it was not (closed, or `exclusive` is running already)."""
        if self._closed or (exclusive is not None and self.running(exclusive)):
            return False
        job_id = next(self._ids)
        was_busy = self.busy
        self._jobs[job_id] = _Job(label, on_success, on_failure, quiet, owner, on_done,
                                    expected, exclusive, on_unexpected)
        thread = threading.Thread(target=self._work, args=(job_id, work),
                                  name=f"operation-{job_id}", daemon=True)
        with self._threads_lock:
            self._threads.add(thread)
        thread.start()
        if quiet:
            return True
        if not was_busy:
            self.busy_changed.emit(True)
        self.progress.emit(self.label)
        return True

    def running(self, exclusive: Hashable) -> bool:
        """Whether an operation started with this `exclusive` key is on its way."""
        return any(job.exclusive == exclusive for job in self._jobs.values())

    def _work(self, job_id: int, work: Callable[[], Any]) -> None:
        """On the worker thread."""
        try:
            outcome: tuple[bool, object] = (True, work())
        except Exception as error:
            outcome = (False, error)
        door = self._door
        with door.lock, contextlib.suppress(RuntimeError):
            if door.open:  # (else the runner was closed or deleted: no one to tell)
                self._finished.emit(job_id, *outcome)
        with self._threads_lock:
            self._threads.discard(threading.current_thread())

    def _deliver(self, job_id: int, succeeded: bool, result: object) -> None:
        job = self._jobs.pop(job_id, None)
        if job is None or self._closed:
            return
        if not job.quiet:
            if not self.busy:
                self.busy_changed.emit(False)
            self.progress.emit(self.label)
        if job.on_done is not None:
            job.on_done()
        if job.owner is not None and not job.owner.current:
            log.info("%s answered too late: dropped", job.label or "an operation")
            return
        if succeeded:
            if job.on_success is not None:
                job.on_success(result)
        elif isinstance(result, job.expected) and job.on_failure is not None:
            log.info("%s failed: %s", job.label or "an operation", result)
            job.on_failure(result)
        elif isinstance(result, BaseException):
            if job.on_unexpected is not None:
                job.on_unexpected(result)
            raise result

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until every worker has finished (tests, quitting); True if they all did."""
        with self._threads_lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(timeout)
        return not any(thread.is_alive() for thread in threads)

    def close(self) -> None:
        """Forget every running operation: none of their callbacks will be called."""
        self._closed = True
        self._door.shut()
        if self._jobs:
            self._jobs.clear()
            self.busy_changed.emit(False)


def lifetime(owner: QObject) -> Stamp:
    """A stamp current while `owner` lives: an answer meant for a dialog deleted meanwhile is
    dropped rather than shown on its deleted widgets."""
    generation = Generation()
    owner.destroyed.connect(lambda *_: generation.move_on())
    return generation.stamp()


def emit_from_thread(signal: SignalInstance, *args: object) -> None:
    """Emit from a worker or reader thread (queued to the UI thread), unless the QObject the
    signal belongs to was deleted meanwhile: then there is no one left to tell."""
    with contextlib.suppress(RuntimeError):
        signal.emit(*args)
