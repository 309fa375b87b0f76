"""Every benchmark command a docstring, a doc or the README shows starts as written (--help)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = sorted((ROOT / "benchmarks").glob("*.py"))
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# "python benchmarks/name.py" or "python -m benchmarks.name", as the docstrings and docs write them
COMMAND = re.compile(r"python (-m benchmarks\.(\w+)|benchmarks/(\w+)\.py)")


def texts() -> list[tuple[str, str]]:
    """(where, text) of every place that shows benchmark commands."""
    docstrings = [(path.stem, ast.get_docstring(ast.parse(path.read_text())) or "")
                  for path in BENCHMARKS]
    return docstrings + [(path.name, path.read_text()) for path in DOCS]


def documented() -> list[tuple[str, list[str]]]:
    """(where, the command's arguments up to the script) for each distinct documented form."""
    found: dict[tuple[str, ...], str] = {}
    for where, doc in texts():
        for match in COMMAND.finditer(doc):
            args: tuple[str, ...]
            if match.group(2):
                args = ("-m", f"benchmarks.{match.group(2)}")
            else:
                args = (f"benchmarks/{match.group(3)}.py",)
            found.setdefault(args, where)
    return [(stem, list(args)) for args, stem in found.items()]


def test_the_docstrings_do_document_commands() -> None:
    stems = {stem for stem, _ in documented()}
    assert {"bots", "calibrate", "correction", "regret", "engine"} <= stems


@pytest.mark.parametrize(("stem", "args"), documented(), ids=lambda v: str(v))
def test_a_documented_command_runs_from_the_checkout(stem: str, args: list[str]) -> None:
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    env["QT_QPA_PLATFORM"] = "offscreen"
    done = subprocess.run(
        [sys.executable, *args, "--help"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{stem}: {done.stderr[-800:]}"
    assert "usage" in done.stdout.lower(), done.stdout[-400:]
