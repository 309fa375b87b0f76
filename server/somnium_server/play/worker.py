"""What the analyses' worker process does first: step aside for the server's own work."""

from __future__ import annotations

import contextlib
import os
import sys

NICENESS = 10  # added to the worker's niceness


def yield_cores() -> None:
    """Niced, and on Linux scheduled only when a core has nothing else to run (SCHED_IDLE):
    the server's process, and the players' moves, get the cores first. Where a sandbox refuses
    SCHED_IDLE the worker is niced only, and where it refuses both it runs as it is."""
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    if sys.platform == "linux":
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
