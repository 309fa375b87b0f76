"""The operator's files: a systemd-checked unit that agrees with the settings and nginx."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from somnium_server.config import load_settings

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "packaging" / "server" / "somnium-server.service"
SITE = ROOT / "packaging" / "server" / "nginx-somnium.conf"
EXAMPLE = ROOT / "docs" / "server.example.toml"
INSTALLED_COMMAND = "/opt/somnium-server/bin/somnium-server"


def _systemd_analyze() -> str:
    found = shutil.which("systemd-analyze")
    assert found is not None, "systemd-analyze is missing: `apt-get install systemd` (.ci/run does)"
    return found


def _settings(key: str) -> list[str]:
    return re.findall(rf"^{key}=(.*)$", UNIT.read_text(encoding="utf-8"), re.M)


def _unit_here(tmp_path: Path) -> Path:
    """The unit with ExecStart pointing at this checkout's somnium-server (verify needs one)."""
    command = Path(sys.executable).parent / "somnium-server"
    assert command.is_file()
    text = UNIT.read_text(encoding="utf-8")
    assert text.count(INSTALLED_COMMAND) == 1
    unit = tmp_path / UNIT.name
    unit.write_text(text.replace(INSTALLED_COMMAND, str(command)), encoding="utf-8")
    return unit


def test_systemd_finds_the_unit_sound(tmp_path: Path) -> None:
    unit = _unit_here(tmp_path)
    run = subprocess.run(
        [_systemd_analyze(), "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0 and unit.name not in run.stdout + run.stderr, run.stderr


def test_the_unit_is_hardened(tmp_path: Path) -> None:
    # systemd's own rating, 0 (locked down) to 10 (exposed); 2 or less is "OK".
    run = subprocess.run(
        [_systemd_analyze(), "security", "--offline=true", "--threshold=20",
         str(_unit_here(tmp_path))],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    level = re.search(r"Overall exposure level for \S+: (\d+\.\d+) (\w+)", run.stdout)
    assert level is not None and float(level[1]) <= 2.0, run.stdout[-500:]
    for setting in ("DynamicUser", "NoNewPrivileges", "PrivateTmp", "ProtectHome"):
        assert _settings(setting) == ["yes"], setting
    assert _settings("ProtectSystem") == ["strict"]


def test_the_unit_the_example_settings_and_nginx_agree() -> None:
    (exec_start,) = _settings("ExecStart")
    assert exec_start == f"{INSTALLED_COMMAND} --config %d/server.toml"
    assert _settings("LoadCredential") == ["server.toml:/etc/somnium-server/server.toml"]
    (state,) = _settings("StateDirectory")
    (database,) = [e.split("=", 1)[1] for e in _settings("Environment")
                   if e.startswith("SOMNIUM_DATABASE=")]
    assert Path(database).parent == Path("/var/lib") / state

    # The example file, as the service reads it: the database from the unit's environment.
    settings = load_settings(["--config", str(EXAMPLE)], environ={"SOMNIUM_DATABASE": database})
    assert settings.database == Path(database)
    assert settings.host == "127.0.0.1"  # loopback only: nginx is the way in
    site = SITE.read_text(encoding="utf-8")
    assert re.search(rf"^\s*server {settings.host}:{settings.port};", site, re.M)
    host_name = settings.public_url.removeprefix("https://")
    assert settings.public_url.startswith("https://")
    assert re.findall(r"^\s*server_name (\S+);", site, re.M) == [host_name, host_name]
