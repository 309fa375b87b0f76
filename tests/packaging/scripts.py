"""Loads the packaging scripts' modules by path: packaging/ is a folder, not a package."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

PACKAGING = Path(__file__).resolve().parents[2] / "packaging"


def packaging_module(relative: str) -> ModuleType:
    """The module at packaging/<relative> (e.g. "metainfo.py", "bundle/libraries.py")."""
    path = PACKAGING / relative
    spec = importlib.util.spec_from_file_location(f"_packaging_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
