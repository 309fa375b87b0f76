"""The source text read at import (PySide6 reads every module imported after it) is let go,
and tracebacks still quote their lines."""

from __future__ import annotations

import importlib
import linecache
import sys
import traceback
from pathlib import Path

import PySide6.QtCore  # noqa: F401  (as in the app: imports after PySide6)
import pytest

from somnium_desktop.ui.source_lines import forget_source_lines


def test_forgotten_lines_come_back_for_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module_file = tmp_path / "somnium_probe_module.py"
    module_file.write_text("def fail():\n    raise ValueError('the probe failed here')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("somnium_probe_module")
    linecache.getlines(str(module_file))  # read, as PySide6's import hook does
    assert str(module_file) in linecache.cache
    forget_source_lines()
    assert linecache.cache == {}
    try:
        module.fail()
    except ValueError:
        quoted = traceback.format_exc()
    assert "raise ValueError('the probe failed here')" in quoted
    sys.modules.pop("somnium_probe_module", None)
