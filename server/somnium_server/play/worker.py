"""What the analyses' worker process does first: step aside for the server's own work."""

from __future__ import annotations

import os
import sys

NICENESS = 10  # added to the worker's niceness


def yield_cores() -> None:
    """Niced, and on Linux scheduled only when a core has nothing else to run (SCHED_IDLE):
    the server's process, and the players' moves, get the cores first."""
    os.nice(NICENESS)
    if sys.platform == "linux":
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
