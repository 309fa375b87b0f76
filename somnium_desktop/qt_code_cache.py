"""Imports PySide6 with shiboken's embedded support code compiled once, not at every start.

shiboken6 carries its signature support (`shibokensupport`, about a dozen modules) as
Python source zipped inside its library and compiles it with `compile()` each time it is
imported, and those modules compile some twenty regular expressions as they load: together
about 45 ms of CPU at every start of the app, before any window. `import_qt()` keeps the
compiled code (like a `.pyc`, keyed by each source's length and checksum) and the compiled
expressions (the arguments `re` hands to `_sre.compile`, keyed by pattern and flags) in a
cache file for this interpreter, and hands them back while PySide6 imports. Anything
unexpected (a source it does not know, an unreadable file) just compiles as before.
Light on purpose (no Qt, nothing third-party): it runs before Qt is imported.
"""

from __future__ import annotations

import builtins
import marshal
import os
import re
import sys
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from types import CodeType
from typing import Any

_sre: Any = sys.modules["_sre"]  # re's engine (imported with re; it has no type stubs)

# The names shiboken's embedded importer compiles its modules under.
EMBEDDED_PREFIX = "shibokensupport/"

Key = tuple[int, int]  # (length, crc32) of a module's source
# What a cache file was written by: this interpreter and its regular expression engine.
FORMAT = 2  # this file's layout: a cache of another layout is ignored
MAGIC = (FORMAT, sys.implementation.cache_tag, sys.hexversion, sys.flags.optimize, _sre.MAGIC)


class CodeCache:
    """Compiled code of shiboken's embedded modules by file name, and the regular
    expressions compiled while they load, kept in one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.hits = 0
        self.misses = 0
        self.pattern_hits = 0
        self.pattern_misses = 0
        self._code: dict[str, tuple[Key, bytes]] = {}
        self._patterns: dict[tuple[str | bytes, int], tuple[Any, ...]] = {}
        self._used: set[tuple[str | bytes, int]] = set()  # what a save keeps (none gone stale)
        # Only the importing thread's compiles are served or recorded: `compile_pattern` swaps
        # `_sre.compile` for a recorder while it runs, which two threads would confuse.
        self.thread = threading.get_ident()
        try:
            loaded = marshal.loads(path.read_bytes())
            if (isinstance(loaded, dict) and loaded.get("magic") == MAGIC
                    and isinstance(loaded.get("code"), dict)
                    and isinstance(loaded.get("patterns"), dict)):
                self._code = loaded["code"]
                self._patterns = loaded["patterns"]
        except (OSError, ValueError, EOFError, TypeError, KeyError):
            pass  # no cache yet, or a damaged one: compile as usual and write it again

    def compile(self, real: Callable[..., Any], source: Any, filename: Any, mode: str,
                *args: Any, **kwargs: Any) -> Any:
        """`compile()` as shiboken calls it; embedded modules' code comes from the cache."""
        if (args or kwargs or mode != "exec" or not isinstance(filename, str)
                or not filename.startswith(EMBEDDED_PREFIX)
                or not isinstance(source, bytes | str)
                or threading.get_ident() != self.thread):
            return real(source, filename, mode, *args, **kwargs)
        data = source.encode("utf-8") if isinstance(source, str) else source
        key = (len(data), zlib.crc32(data))
        try:  # whatever is wrong with an entry, it is a miss
            entry = self._code.get(filename)
            code = marshal.loads(entry[1]) if entry is not None and tuple(entry[0]) == key else None
        except Exception:
            code = None
        if isinstance(code, CodeType):
            self.hits += 1
            return code
        # dont_inherit: the flags are shiboken's own (none), not this module's __future__ ones.
        code = real(source, filename, mode, 0, True)
        self._code[filename] = (key, marshal.dumps(code))
        self.misses += 1
        return code

    def compile_pattern(self, real: Callable[..., Any], pattern: Any, flags: Any = 0) -> Any:
        """`re._compiler.compile()`: a pattern compiled before is rebuilt from what `re`
        handed `_sre.compile` then (its parse and code generation are pure Python)."""
        if (not isinstance(pattern, str | bytes) or not isinstance(flags, int)
                or threading.get_ident() != self.thread):
            return real(pattern, flags)
        key = (pattern, int(flags))
        self._used.add(key)
        args = self._patterns.get(key)
        if args is not None:
            try:  # whatever is wrong with an entry, it is a miss
                compiled = _sre.compile(*args)
            except Exception:
                compiled = None
            if compiled is not None:
                self.pattern_hits += 1
                return compiled
        calls: list[tuple[Any, ...]] = []
        sre_compile = _sre.compile

        def recorded(*given: Any) -> Any:
            calls.append(given)
            return sre_compile(*given)

        _sre.compile = recorded
        try:
            compiled = real(pattern, flags)
        finally:
            _sre.compile = sre_compile
        if len(calls) == 1 and len(calls[0]) == 6:
            text, all_flags, code, groups, groupindex, indexgroup = calls[0]
            self._patterns[key] = (text, int(all_flags), [int(op) for op in code], int(groups),
                                   dict(groupindex), tuple(indexgroup))
            self.pattern_misses += 1
        return compiled

    def save(self) -> None:
        """Write the cache if anything was compiled (atomically; errors are ignored)."""
        if not self.misses and not self.pattern_misses:
            return
        try:
            patterns = {key: args for key, args in self._patterns.items() if key in self._used}
            data = marshal.dumps({"magic": MAGIC, "code": self._code, "patterns": patterns})
            self.path.parent.mkdir(parents=True, exist_ok=True)
            scratch = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            scratch.write_bytes(data)
            os.replace(scratch, self.path)
        except (OSError, ValueError):
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
    compiler: Any = getattr(re, "_compiler", None)  # (re's internals since Python 3.11)
    real_pattern = getattr(compiler, "compile", None)

    def cached_compile(source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
        return cache.compile(real, source, filename, mode, *args, **kwargs)

    def cached_pattern(pattern: Any, flags: Any = 0) -> Any:
        assert real_pattern is not None
        return cache.compile_pattern(real_pattern, pattern, flags)

    builtins.compile = cached_compile
    if real_pattern is not None:
        compiler.compile = cached_pattern
    try:
        import PySide6.QtWidgets  # noqa: F401
    finally:
        builtins.compile = real
        if real_pattern is not None:
            compiler.compile = real_pattern
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
