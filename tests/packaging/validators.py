"""The freedesktop validators, which CI installs (.ci/run): a missing one fails, never skips."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

# tool -> the Debian package that has it
TOOLS = {"desktop-file-validate": "desktop-file-utils", "appstreamcli": "appstream"}


def tool(name: str) -> str:
    path = shutil.which(name)
    assert path is not None, (
        f"{name} is not installed: `apt-get install {TOOLS[name]}` (.ci/run installs it)"
    )
    return path


def validate_desktop_entry(path: Path) -> None:
    run = subprocess.run(
        [tool("desktop-file-validate"), str(path)], capture_output=True, text=True, timeout=60
    )
    # It exits 0 on hints too, printing them: take any output as a failure.
    assert run.returncode == 0 and not run.stdout.strip(), run.stdout + run.stderr


def validate_metainfo(path: Path) -> str:
    """Runs `appstreamcli validate` (errors and warnings fail it); returns its report."""
    run = subprocess.run(
        [tool("appstreamcli"), "validate", "--no-net", str(path)],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout
