"""Imports PySide6 with shiboken's embedded support code compiled once, not at every start.

shiboken6 carries its signature support (`shibokensupport`, about a dozen modules) as
Python source zipped inside its library and compiles it with `compile()` each time it is
imported: about 30 ms of CPU at every start of the app, before any window. `import_qt()`
keeps the compiled code in a cache file (like a `.pyc`, keyed by the interpreter and by
each source's length and checksum) and hands it back instead while shiboken imports.
Anything unexpected (a source it does not know, an unreadable file) just compiles as before.
Light on purpose (no Qt, nothing third-party): it runs before Qt is imported.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from types import CodeType
from typing import Any

# The names shiboken's embedded importer compiles its modules under.
EMBEDDED_PREFIX = "shibokensupport/"

Key = tuple[int, int]  # (length, crc32) of a module's source


class CodeCache:
    """Compiled code of shiboken's embedded modules by file name, kept in one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.hits = 0
        self.misses = 0
        self._code: dict[str, tuple[Key, bytes]] = {}
        try:
            loaded = marshal.loads(path.read_bytes())
            if isinstance(loaded, dict):
                self._code = loaded
        except (OSError, ValueError, EOFError, TypeError):
            pass  # no cache yet, or a damaged one: compile as usual and write it again

    def compile(self, real: Callable[..., Any], source: Any, filename: Any, mode: str,
                *args: Any, **kwargs: Any) -> Any:
        """`compile()` as shiboken calls it; embedded modules' code comes from the cache."""
        if (args or kwargs or mode != "exec" or not isinstance(filename, str)
                or not filename.startswith(EMBEDDED_PREFIX)
                or not isinstance(source, bytes | str)):
            return real(source, filename, mode, *args, **kwargs)
        data = source.encode("utf-8") if isinstance(source, str) else source
        key = (len(data), zlib.crc32(data))
        entry = self._code.get(filename)
        if entry is not None and tuple(entry[0]) == key:
            try:
                code = marshal.loads(entry[1])
            except (ValueError, EOFError, TypeError):
                code = None
            if isinstance(code, CodeType):
                self.hits += 1
                return code
        # dont_inherit: the flags are shiboken's own (none), not this module's __future__ ones.
        code = real(source, filename, mode, 0, True)
        self._code[filename] = (key, marshal.dumps(code))
        self.misses += 1
        return code

    def save(self) -> None:
        """Write the cache if anything was compiled (atomically; errors are ignored)."""
        if not self.misses:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            scratch = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            scratch.write_bytes(marshal.dumps(self._code))
            os.replace(scratch, self.path)
        except OSError:
            pass


def cache_file(cache_dir: Path) -> Path:
    """The cache for this interpreter (bytecode differs between Python versions)."""
    return cache_dir / f"shiboken-support.{sys.implementation.cache_tag}.marshal"


def import_qt(cache_dir: Path | None) -> CodeCache | None:
    """Import PySide6's QtCore, QtGui and QtWidgets, with the code cache in `cache_dir`.

    Returns the cache used (None when Qt was already imported or no folder was given)."""
    if "shiboken6" in sys.modules or cache_dir is None:
        import PySide6.QtWidgets

        return None
    cache = CodeCache(cache_file(cache_dir))
    real = builtins.compile

    def cached_compile(source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
        return cache.compile(real, source, filename, mode, *args, **kwargs)

    builtins.compile = cached_compile
    try:
        import PySide6.QtWidgets  # noqa: F401
    finally:
        builtins.compile = real
    cache.save()
    return cache


def user_cache_dir(organization: str, application: str) -> Path:
    """The app's cache folder, where Qt's QStandardPaths.CacheLocation puts it."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        return base / organization / application / "cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / organization / application
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / organization / application
