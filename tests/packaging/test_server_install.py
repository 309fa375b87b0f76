"""The operator's files: a systemd-checked unit that agrees with the settings and nginx."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from somnium_server.config import load_settings

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "packaging" / "server" / "somnium-server.service"
TEMPLATE = ROOT / "packaging" / "server" / "somnium-server@.service"
SITE = ROOT / "packaging" / "server" / "nginx-somnium.conf"
INSTANCES_SITE = ROOT / "packaging" / "server" / "nginx-somnium-instances.conf"
# Each unit file, under the name systemd checks it by (a template as one of its instances).
UNITS = {"somnium-server.service": UNIT, "somnium-server@8001.service": TEMPLATE}
EXAMPLE = ROOT / "docs" / "server.example.toml"
INSTALLED_COMMAND = "/opt/somnium-server/bin/somnium-server"


def _systemd_analyze() -> str:
    found = shutil.which("systemd-analyze")
    assert found is not None, "systemd-analyze is missing: `apt-get install systemd` (.ci/run does)"
    return found


def _settings(key: str, unit: Path = UNIT) -> list[str]:
    return re.findall(rf"^{key}=(.*)$", unit.read_text(encoding="utf-8"), re.M)


def _unit_here(tmp_path: Path, name: str = UNIT.name) -> Path:
    """The unit with ExecStart pointing at this checkout's somnium-server (verify needs one)."""
    command = Path(sys.executable).parent / "somnium-server"
    assert command.is_file()
    text = UNITS[name].read_text(encoding="utf-8")
    assert text.count(INSTALLED_COMMAND) == 1
    unit = tmp_path / name
    unit.write_text(text.replace(INSTALLED_COMMAND, str(command)), encoding="utf-8")
    return unit


@pytest.mark.parametrize("name", UNITS)
def test_systemd_finds_the_unit_sound(tmp_path: Path, name: str) -> None:
    unit = _unit_here(tmp_path, name)
    run = subprocess.run(
        [_systemd_analyze(), "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0 and unit.name not in run.stdout + run.stderr, run.stderr


@pytest.mark.parametrize("name", UNITS)
def test_the_unit_is_hardened(tmp_path: Path, name: str) -> None:
    # systemd's own rating, 0 (locked down) to 10 (exposed); 2 or less is "OK".
    run = subprocess.run(
        [_systemd_analyze(), "security", "--offline=true", "--threshold=20",
         str(_unit_here(tmp_path, name))],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    level = re.search(r"Overall exposure level for \S+: (\d+\.\d+) (\w+)", run.stdout)
    assert level is not None and float(level[1]) <= 2.0, run.stdout[-500:]
    for setting in ("DynamicUser", "NoNewPrivileges", "PrivateTmp", "ProtectHome"):
        assert _settings(setting, UNITS[name]) == ["yes"], setting
    assert _settings("ProtectSystem", UNITS[name]) == ["strict"]


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


def _hardening(unit: Path) -> str:
    return unit.read_text(encoding="utf-8").split("\n# Hardening", 1)[1].split("\n", 1)[1]


def _site_past_upstream(site: Path) -> str:
    after = site.read_text(encoding="utf-8").split("upstream somnium_server {", 1)[1]
    return after.split("}", 1)[1]


def test_the_instances_template_the_database_credential_and_the_upstream_agree() -> None:
    (exec_start,) = _settings("ExecStart", TEMPLATE)
    assert exec_start == (f"{INSTALLED_COMMAND} --config %d/server.toml --port %i"
                          " --database-url-file %d/database-url")
    assert _settings("LoadCredential", TEMPLATE) == [
        "server.toml:/etc/somnium-server/server.toml",
        "database-url:/etc/somnium-server/database-url",
    ]
    assert not _settings("StateDirectory", TEMPLATE)  # the database holds everything
    assert _hardening(TEMPLATE) == _hardening(UNIT)  # the same hardening, kept in step

    site = INSTANCES_SITE.read_text(encoding="utf-8")
    upstream = site.split("upstream somnium_server {", 1)[1].split("}", 1)[0]
    assert re.search(r"^\s*least_conn;", upstream, re.M)
    ports = [int(p) for p in re.findall(r"^\s*server 127\.0\.0\.1:(\d+);", upstream, re.M)]
    assert len(ports) >= 2 and all(1024 <= p <= 65535 for p in ports)  # instance names
    # past the upstream, the two sites are one: the event-stream settings are the same
    assert _site_past_upstream(INSTANCES_SITE) == _site_past_upstream(SITE)
