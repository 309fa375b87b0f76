"""The compiled-code cache for shiboken's embedded modules: hits on the second start, the same
signatures and error messages as a plain import, the same regular expressions, and a compile
whenever a source changed."""

from __future__ import annotations

import builtins
import json
import marshal
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from somnium_desktop.early import APPLICATION, ORGANIZATION
from somnium_desktop.qt_code_cache import MAGIC, CodeCache, cache_file, user_cache_dir

# What PySide builds from shiboken's embedded modules: a method's signature text and the
# message of a call with wrong arguments (its error handler).
PROBE = """
import json, sys
from pathlib import Path
cache = None
if len(sys.argv) > 1:
    from somnium_desktop.qt_code_cache import import_qt
    cache = import_qt(Path(sys.argv[1]))
from PySide6.QtCore import QObject
try:
    QObject().setObjectName(3)
    refused = ""
except TypeError as error:
    refused = str(error)
print(json.dumps({"hits": cache.hits if cache else None, "misses": cache.misses if cache else None,
                  "pattern_hits": cache.pattern_hits if cache else None,
                  "pattern_misses": cache.pattern_misses if cache else None,
                  "doc": QObject.setObjectName.__doc__, "refused": refused}))
"""


def probe(*args: str) -> dict[str, object]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, capture_output=True,
                          text=True, check=True, timeout=60)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_second_import_takes_the_code_from_the_cache(tmp_path: Path) -> None:
    plain = probe()
    first = probe(str(tmp_path))
    second = probe(str(tmp_path))
    assert first["hits"] == 0 and isinstance(first["misses"], int) and first["misses"] > 5
    assert cache_file(tmp_path).is_file()
    assert second["hits"] == first["misses"] and second["misses"] == 0
    assert isinstance(first["pattern_misses"], int) and first["pattern_misses"] > 5
    assert second["pattern_hits"] == first["pattern_misses"] and second["pattern_misses"] == 0
    for run in (first, second):
        assert run["doc"] == plain["doc"]
        assert run["refused"] == plain["refused"]
    assert "setObjectName" in str(plain["doc"]) and "setObjectName" in str(plain["refused"])


def test_a_changed_source_is_compiled_again(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    name = "shibokensupport/example.py"
    cache = CodeCache(path)
    code = cache.compile(builtins.compile, b"answer = 41\n", name, "exec")
    cache.save()
    again = CodeCache(path)
    space: dict[str, object] = {}
    exec(again.compile(builtins.compile, b"answer = 41\n", name, "exec"), space)
    assert (again.hits, again.misses, space["answer"]) == (1, 0, 41)
    exec(again.compile(builtins.compile, b"answer = 42\n", name, "exec"), space)
    assert (again.hits, again.misses, space["answer"]) == (1, 1, 42)
    assert code.co_filename == name


def test_other_compiles_and_a_damaged_file_pass_through(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    path.write_bytes(b"not marshal data")
    cache = CodeCache(path)
    space: dict[str, object] = {}
    exec(cache.compile(builtins.compile, "x = 1", "elsewhere.py", "exec"), space)
    exec(cache.compile(builtins.compile, b"y = 2\n", "shibokensupport/y.py", "exec"), space)
    assert (space["x"], space["y"], cache.hits, cache.misses) == (1, 2, 0, 1)
    cache.save()
    assert CodeCache(path).compile(builtins.compile, b"y = 2\n", "shibokensupport/y.py",
                                   "exec") is not None
    # qt_code_cache has __future__ annotations: the code it compiles must not inherit them
    code = cache.compile(builtins.compile, b"def f(a: int) -> None: pass\n",
                         "shibokensupport/z.py", "exec")
    exec(code, space)
    assert getattr(space["f"], "__annotations__", None) == {"a": int, "return": None}


def test_cached_expressions_equal_freshly_compiled_ones(tmp_path: Path) -> None:
    cache = CodeCache(tmp_path / "code.marshal")
    real = re._compiler.compile  # type: ignore[attr-defined]
    samples = [(r"(?P<name>\w+)\s*=\s*(\d+)", 0), (r"^[a-z]+$", re.IGNORECASE | re.MULTILINE),
               (rb"\x00(?:ab|cd)+", 0)]
    fresh = [cache.compile_pattern(real, pattern, int(flags)) for pattern, flags in samples]
    assert cache.pattern_misses == len(samples)
    cache.save()
    again = CodeCache(tmp_path / "code.marshal")
    for (pattern, flags), first in zip(samples, fresh, strict=True):
        rebuilt = again.compile_pattern(real, pattern, int(flags))
        assert rebuilt == first == real(pattern, int(flags))  # same pattern, flags and program
        assert rebuilt.groupindex == first.groupindex
    assert again.pattern_hits == len(samples)
    assert again.compile_pattern(real, r"(?P<x>a)", 0).match("a")["x"] == "a"  # a miss works


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's Linux cache folder")
def test_the_cache_folder_is_qts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    qt_says = subprocess.run(
        [sys.executable, "-c",
         "from PySide6.QtCore import QCoreApplication, QStandardPaths as P; "
         f"QCoreApplication.setOrganizationName({ORGANIZATION!r}); "
         f"QCoreApplication.setApplicationName({APPLICATION!r}); "
         "print(P.writableLocation(P.StandardLocation.CacheLocation))"],
        env=os.environ, capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert user_cache_dir(ORGANIZATION, APPLICATION) == Path(qt_says)


def test_a_cache_of_the_right_magic_but_a_wrong_shape_is_a_miss(tmp_path: Path) -> None:
    name = "shibokensupport/example.py"
    path = tmp_path / "code.marshal"
    real = re._compiler.compile  # type: ignore[attr-defined]
    for code, patterns in (({name: 5}, {("a+", 0): 7}), ({name: ((1, 2),)}, {("a+", 0): (1,)}),
                           ([], 3)):
        path.write_bytes(marshal.dumps({"magic": MAGIC, "code": code, "patterns": patterns}))
        cache = CodeCache(path)
        space: dict[str, object] = {}
        exec(cache.compile(builtins.compile, b"answer = 41\n", name, "exec"), space)
        assert space["answer"] == 41 and cache.misses == 1
        assert cache.compile_pattern(real, "a+", 0).fullmatch("aaa")
        assert cache.pattern_misses == 1 and cache.pattern_hits == 0


def test_only_the_importing_threads_compiles_are_cached(tmp_path: Path) -> None:
    cache = CodeCache(tmp_path / "code.marshal")
    real = re._compiler.compile  # type: ignore[attr-defined]
    found: list[object] = []
    other = threading.Thread(target=lambda: found.append(cache.compile_pattern(real, "b+", 0)))
    other.start()
    other.join()
    assert found[0] == real("b+", 0)  # served, as a plain compile
    assert (cache.pattern_hits, cache.pattern_misses) == (0, 0)  # neither served nor recorded
    cache.compile_pattern(real, "a+", 0)
    assert cache.pattern_misses == 1
