"""Letting go of the source text PySide6 reads from every module imported after it.

PySide6 (6.8 to 6.11 at least) looks at each newly imported module's source to see whether it
uses PySide6 (for its `__feature__` switches), through `inspect.getsource`, which leaves the
whole text of every such module in `linecache`: about 11 MB of Python strings in the app's
process once online play is imported, kept for nothing (tracebacks read the lines again when
they need them). `forget_source_lines()` empties that cache (`linecache.clearcache()`, the
documented way); called after each burst of imports at start-up, each burst reuses the memory
the one before freed instead of adding to it.
"""

from __future__ import annotations

import linecache


def forget_source_lines() -> None:
    """Drop the source lines read so far (they are read again if a traceback wants them)."""
    linecache.clearcache()
