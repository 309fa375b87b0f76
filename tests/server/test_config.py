"""Settings: flags over SOMNIUM_* variables over the TOML file; --help documents every option."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from somnium_server.config import RateLimit, Settings, load_settings


def test_flags_win_over_the_environment_which_wins_over_the_file(tmp_path: Path) -> None:
    config = tmp_path / "server.toml"
    config.write_text('port = 9001\nhost = "127.0.0.2"\nkeepalive = 3.5\nrate_act = "5/2"\n')
    settings = load_settings(
        ["--config", str(config), "--port", "9003"],
        {"SOMNIUM_PORT": "9002", "SOMNIUM_HOST": "127.0.0.3", "SOMNIUM_ACCESS_LOG": "false"},
    )
    assert settings.port == 9003
    assert settings.host == "127.0.0.3"
    assert settings.keepalive == 3.5
    assert settings.rate_act == RateLimit(5, 2.0)
    assert settings.access_log is False
    assert settings.database == Settings().database
    from_env_file = load_settings([], {"SOMNIUM_CONFIG": str(config)})
    assert from_env_file.port == 9001


def test_defaults_listen_on_loopback_and_keep_data_in_the_platform_directory() -> None:
    settings = load_settings([], {})
    assert settings.host == "127.0.0.1"
    assert settings.database.name == "somnium.sqlite3"
    assert "somnium-server" in str(settings.database)


@pytest.mark.parametrize(
    ("argv", "environ"),
    [
        (["--port", "70000"], {}),
        (["--rate-act", "fast"], {}),
        ([], {"SOMNIUM_KEEPALIVE": "-1"}),
        ([], {"SOMNIUM_ACCESS_LOG": "maybe"}),
        (["--database-url", "mysql://somnium@127.0.0.1/somnium"], {}),
        ([], {"SOMNIUM_DATABASE_URL": "postgresql://127.0.0.1:port/x"}),
        ([], {"SOMNIUM_DATABASE_URL": "postgresql://127.0.0.1/x?no_such_option=1"}),
    ],
)
def test_bad_values_are_refused_with_a_message(
    argv: list[str], environ: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        load_settings(argv, environ)
    assert "error" in capsys.readouterr().err


def test_unknown_keys_in_the_file_are_refused(tmp_path: Path) -> None:
    config = tmp_path / "server.toml"
    config.write_text("prot = 1\n")
    with pytest.raises(SystemExit):
        load_settings(["--config", str(config)], {})


def test_help_documents_every_option() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "somnium_server", "--help"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout
    for f in fields(Settings):
        if f.metadata.get("table"):  # [signin] in the TOML file, documented in the description
            assert f"[{f.name}" in shown
            continue
        assert "--" + f.name.replace("_", "-") in shown
        assert "SOMNIUM_" + f.name.upper() in shown
    assert "--config" in shown and "TOML" in shown


def test_the_database_url_is_a_flag_a_variable_and_a_key(tmp_path: Path) -> None:
    config = tmp_path / "server.toml"
    config.write_text('database_url = "postgresql://somnium@db.example:5432/from_file"\n')
    assert load_settings([], {}).database_url == ""  # SQLite
    from_file = load_settings(["--config", str(config)], {})
    assert from_file.database_url == "postgresql://somnium@db.example:5432/from_file"
    from_env = load_settings(
        ["--config", str(config)], {"SOMNIUM_DATABASE_URL": "postgresql:///from_env"}
    )
    assert from_env.database_url == "postgresql:///from_env"
    flag = load_settings(["--database-url", "postgres://h/from_flag"],
                         {"SOMNIUM_DATABASE_URL": "postgresql:///from_env"})
    assert flag.database_url == "postgres://h/from_flag"


def test_the_database_url_may_come_from_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # as a systemd credential hands it over (packaging/server/somnium-server@.service)
    secret = tmp_path / "database-url"
    secret.write_text("postgresql://somnium:s3cret@127.0.0.1:5432/somnium\n")
    settings = load_settings([], {"SOMNIUM_DATABASE_URL_FILE": str(secret)})
    assert settings.database_url == "postgresql://somnium:s3cret@127.0.0.1:5432/somnium"
    refused = [
        (["--database-url-file", str(tmp_path / "missing")], "cannot read database_url_file"),
        (["--database-url-file", str(secret), "--database-url", "postgresql:///x"], "not both"),
    ]
    secret_bad = tmp_path / "bad"
    secret_bad.write_text("mysql://somnium@127.0.0.1/somnium")
    refused.append((["--database-url-file", str(secret_bad)], "starts with postgresql://"))
    for argv, message in refused:
        with pytest.raises(SystemExit):
            load_settings(argv, {})
        assert message in capsys.readouterr().err


def test_an_unreachable_database_stops_the_server_at_start_with_a_message() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "somnium_server", "--port", "0",
         "--database-url", "postgresql://somnium:hidden@127.0.0.1:1/somnium"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 1
    assert "cannot use the database somnium@127.0.0.1:1/somnium" in done.stderr
    assert "Traceback" not in done.stderr and "hidden" not in done.stderr
