"""Sign-in settings: the [signin] TOML table, SOMNIUM_PROVIDER_* variables and the example file."""

from __future__ import annotations

from pathlib import Path

import pytest

from somnium_server.config import load_settings
from somnium_server.signin.config import SigninConfigError, load_signin_config

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "server.example.toml"


def test_the_example_file_loads(tmp_path: Path) -> None:
    settings = load_settings(["--config", str(EXAMPLE), "--database", str(tmp_path / "db")],
                             environ={})
    keys = [p.key for p in settings.signin.providers]
    assert keys == ["gitlab", "google", "keycloak"]
    gitlab = settings.signin.provider("gitlab")
    assert gitlab is not None and gitlab.issuer == "https://gitlab.com"
    assert gitlab.display_name == "GitLab" and gitlab.scopes == "openid profile"
    assert settings.signin.access_token_seconds == 900
    assert "client_secret" not in repr(gitlab)  # Secrets stay out of logs.


def test_the_environment_wins_over_the_file_field_by_field(tmp_path: Path) -> None:
    settings = load_settings(["--config", str(EXAMPLE)], environ={
        "SOMNIUM_PROVIDER_GITLAB_CLIENT_SECRET": "from-the-environment",
        "SOMNIUM_PROVIDER_MY_IDP_ISSUER": "https://idp.example.net/",
        "SOMNIUM_PROVIDER_MY_IDP_CLIENT_ID": "lobby",
        "SOMNIUM_PROVIDER_MY_IDP_CLIENT_SECRET": "s3cret",
    })
    gitlab = settings.signin.provider("gitlab")
    assert gitlab is not None and gitlab.client_secret == "from-the-environment"
    assert gitlab.client_id == "your-application-id"
    mine = settings.signin.provider("my-idp")
    assert mine is not None
    assert (mine.issuer, mine.client_id, mine.display_name) == (
        "https://idp.example.net", "lobby", "my-idp")


def test_no_providers_by_default() -> None:
    assert load_settings([], environ={}).signin.providers == ()


@pytest.mark.parametrize(
    ("table", "environ", "problem"),
    [
        ({"providers": {"x": {"issuer": "https://i", "client_id": "c"}}}, {},
         "client_secret is missing"),
        ({"providers": {"x": {"issuer": "http://idp.example.net", "client_id": "c",
                              "client_secret": "s"}}}, {}, "https URL"),
        ({"providers": {"x": {"issuer": "https://i", "client_id": "c", "client_secret": "s",
                              "scopes": "profile"}}}, {}, "openid"),
        ({"providers": {"local": {"issuer": "https://i", "client_id": "c",
                                  "client_secret": "s"}}}, {}, "not 'local'"),
        ({"providers": {"x": {"issuer": "https://i", "clientid": "c"}}}, {}, "unknown keys"),
        ({"lifetime": 3}, {}, "unknown keys"),
        ({"code_seconds": 0}, {}, "positive"),
        ({}, {"SOMNIUM_PROVIDER_X_SECRET": "s"}, "SOMNIUM_PROVIDER_<KEY>_<FIELD>"),
    ],
)
def test_mistakes_are_named(table: dict[str, object], environ: dict[str, str],
                            problem: str) -> None:
    with pytest.raises(SigninConfigError, match=problem):
        load_signin_config(table, environ)


def test_a_bad_signin_table_stops_the_command_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "server.toml"
    config.write_text('[signin.providers.x]\nissuer = "ftp://nowhere"\n', encoding="utf-8")
    with pytest.raises(SystemExit):
        load_settings(["--config", str(config)], environ={})
    assert "sign-in provider 'x'" in capsys.readouterr().err
