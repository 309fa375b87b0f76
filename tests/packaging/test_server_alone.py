"""The host's install: `pip install ./server` gives `somnium-server` and the rules, no Qt."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from somnium_desktop import __version__

ROOT = Path(__file__).resolve().parents[2]
# README.md, "Hosting a lobby server", step 1: the command this test runs.
README_COMMAND = "sudo /opt/somnium-server/bin/pip install ./server"


def _project(pyproject: Path) -> dict[str, Any]:
    project: dict[str, Any] = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    return project


def _dependencies(pyproject: Path) -> set[str]:
    return {re.sub(r"\s+", "", line) for line in _project(pyproject)["dependencies"]}


# The command starts the server through __main__, which imports it only to run it: the
# analyses' workers, spawned from the main module, then load no more than the judging.
ENTRY_POINT = _project(ROOT / "pyproject.toml")["scripts"]["somnium-server"]


def test_the_readme_installs_the_server_alone() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"\n       {README_COMMAND}\n" in readme


def test_the_units_install_the_server_alone_too() -> None:
    for unit in ("somnium-server.service", "somnium-server@.service"):
        comments = (ROOT / "packaging" / "server" / unit).read_text(encoding="utf-8")
        installs = re.findall(r"^#\s+(sudo \S+/pip install \S+)", comments, re.M)
        assert installs == [README_COMMAND], unit


def test_both_distributions_start_the_server_the_same_way() -> None:
    assert ENTRY_POINT == "somnium_server.__main__:main"
    assert _project(ROOT / "server" / "pyproject.toml")["scripts"] == {
        "somnium-server": ENTRY_POINT
    }


def test_the_player_gets_every_dependency_of_the_server() -> None:
    # The app runs the server built in: its distribution lists the server's needs too.
    server = _dependencies(ROOT / "server" / "pyproject.toml")
    player = _dependencies(ROOT / "pyproject.toml")
    assert server <= player, sorted(server - player)
    assert not [line for line in server if "pyside" in line.lower()]


def test_the_rules_exist_once() -> None:
    # The server's distribution takes the rules from the one source tree, never a copy.
    rules = {path.read_bytes() for path in (ROOT / "somnium_desktop" / "game").rglob("*.py")}
    server = [path for path in (ROOT / "server").rglob("*.py")
              if not {"build", "__pycache__"} & set(path.relative_to(ROOT).parts)]
    assert server and not [path for path in server if path.read_bytes() in rules]


@pytest.mark.slow
def test_the_server_installs_into_a_fresh_venv_without_qt(tmp_path: Path) -> None:
    clean = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    outside = tmp_path / "elsewhere"  # not the checkout, whose packages `python -c` would see
    outside.mkdir()

    def run(*command: str | Path) -> str:
        done = subprocess.run([str(part) for part in command], capture_output=True, text=True,
                              timeout=600, env=clean, cwd=outside)
        assert done.returncode == 0, f"{command}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", ROOT / "server")

    installed = run(python, "-m", "pip", "list", "--format=freeze").lower()
    assert "somnium-server==" + __version__ in installed
    assert "pyside6" not in installed and "shiboken6" not in installed
    assert "somnium-desktop" not in installed
    assert run(venv / "bin" / "somnium-server", "--version").strip() == (
        f"somnium-server {__version__}"
    )
    usage = run(venv / "bin" / "somnium-server", "--help")
    assert usage.startswith("usage: somnium-server") and "--database" in usage
    command = run(python, "-c", "from importlib.metadata import entry_points; "
                  "print(entry_points(group='console_scripts')['somnium-server'].value)")
    assert command.strip() == ENTRY_POINT

    # The rules came along, and nothing of the app that would need Qt.
    package = Path(run(python, "-c", "import somnium_desktop as s; print(s.__file__)").strip())
    assert package.is_relative_to(venv)
    assert sorted(p.name for p in package.parent.glob("*.py")) == ["__init__.py"]
    assert sorted(p.name for p in package.parent.iterdir() if p.is_dir()
                  and p.name != "__pycache__") == ["game"]
    played = run(python, "-c",
                 "from somnium_desktop.game import new_game; print(type(new_game(seed=1)))")
    assert "GameState" in played
