"""The server's settings: flags over SOMNIUM_* environment variables over a TOML file."""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import platformdirs

from somnium_server import __version__
from somnium_server.signin.config import SigninConfig, check_local_accounts, load_signin_config

ENV_PREFIX = "SOMNIUM_"


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most `count` requests per `seconds` for one user (a token bucket of that size)."""

    count: int
    seconds: float

    @classmethod
    def parse(cls, text: str) -> RateLimit:
        count, sep, seconds = text.partition("/")
        try:
            limit = cls(int(count), float(seconds) if sep else 1.0)
        except ValueError:
            raise ValueError(f"a rate is COUNT/SECONDS, e.g. 30/1, not {text!r}") from None
        if limit.count < 1 or limit.seconds <= 0:
            raise ValueError(f"a rate needs a positive count and period, not {text!r}")
        return limit

    def __str__(self) -> str:
        return f"{self.count}/{self.seconds:g}"


def default_database() -> Path:
    """The SQLite file in the platform's data directory."""
    return Path(platformdirs.user_data_dir("somnium-server")) / "somnium.sqlite3"


def database_url(text: str) -> str:
    """A postgresql:// URL, checked for form only (start-up connects to it)."""
    if not text:
        return text
    scheme, sep, _ = text.partition("://")
    if not sep or scheme not in ("postgresql", "postgres"):
        raise ValueError("a PostgreSQL URL starts with postgresql://, e.g. "
                         "postgresql://somnium@127.0.0.1:5432/somnium")
    import psycopg  # here: a server on SQLite never loads it
    from psycopg.conninfo import conninfo_to_dict

    try:
        conninfo_to_dict(text)
        urlsplit(text).port  # noqa: B018 (libpq would find a bad port only when connecting)
    except (psycopg.Error, ValueError) as error:
        raise ValueError(f"not a PostgreSQL URL: {error}") from None
    return text


def _url_from_file(chosen: Mapping[str, Any]) -> str:
    """The PostgreSQL URL in the file database_url_file names (alone on its first line)."""
    path = chosen["database_url_file"]
    if chosen.get("database_url"):
        raise ValueError("give database_url or database_url_file, not both")
    try:
        text = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read database_url_file {path}: {error}") from None
    return database_url(text)


def _positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        value = kind(text)
        if value <= 0:
            raise ValueError(f"must be positive, not {text!r}")
        return value

    return convert


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise ValueError(f"a port is 0-65535, not {text!r}")
    return value


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the server can be told; each field is a flag, an env var and a TOML key."""

    host: str = field(default="127.0.0.1", metadata={"help": "address to listen on"})
    port: int = field(
        default=8000, metadata={"help": "port to listen on (0: any free port)", "type": _port}
    )
    database: Path = field(
        default_factory=default_database,
        metadata={"help": "SQLite database file (default: in the platform's data directory)",
                  "type": Path},
    )
    database_url: str = field(
        default="",
        metadata={"help": "a postgresql:// URL: keep the games in that PostgreSQL database "
                          "instead of the SQLite file", "type": database_url},
    )
    database_url_file: str = field(
        default="",
        metadata={"help": "a file holding the postgresql:// URL instead (e.g. a systemd "
                          "credential: the password stays out of flags and the environment)"},
    )
    public_url: str = field(
        default="", metadata={"help": "the URL people reach this server at (for links)"}
    )
    keepalive: float = field(
        default=15.0,
        metadata={"help": "seconds between keep-alive comments on event streams",
                  "type": _positive(float)},
    )
    computer_pause: float = field(
        default=0.8,
        metadata={"help": "seconds a computer player waits before each action",
                  "type": float},
    )
    observer_flush: float = field(
        default=0.5,
        metadata={"help": "seconds over which observer-count changes are gathered into one event",
                  "type": float},
    )
    away_after: float = field(
        default=20.0,
        metadata={"help": "seconds a seated player may be without the game's event stream before "
                          "showing as away", "type": _positive(float)},
    )
    claim_after: float = field(
        default=120.0,
        metadata={"help": "seconds a player must be away from a running game before the other "
                          "may claim the win", "type": _positive(float)},
    )
    # -- clocks (play/clocks.py) --
    clock_min: int = field(
        default=10,
        metadata={"help": "the shortest per-move clock a game may be created with, in seconds",
                  "type": _positive(int)},
    )
    clock_sweep: float = field(
        default=1.0,
        metadata={"help": "seconds between looks for games whose clock ran out",
                  "type": _positive(float)},
    )
    event_window: int = field(
        default=512,
        metadata={"help": "events kept per game for Last-Event-ID resume (older: a snapshot)",
                  "type": _positive(int)},
    )
    max_body: int = field(
        default=16384, metadata={"help": "largest request body in bytes", "type": _positive(int)}
    )
    max_streams: int = field(
        default=16,
        metadata={"help": "event streams one client address may hold open at once",
                  "type": _positive(int)},
    )
    rate_create: RateLimit = field(
        default=RateLimit(10, 60),
        metadata={"help": "games one user may create, COUNT/SECONDS", "type": RateLimit.parse},
    )
    rate_join: RateLimit = field(
        default=RateLimit(30, 60),
        metadata={"help": "joins and leaves per user (and, counted apart, "
                          "blocks and unblocks), COUNT/SECONDS", "type": RateLimit.parse},
    )
    rate_act: RateLimit = field(
        default=RateLimit(30, 1),
        metadata={"help": "game actions per user, COUNT/SECONDS", "type": RateLimit.parse},
    )
    rate_chat: RateLimit = field(
        default=RateLimit(10, 30),
        metadata={"help": "chat messages per user, COUNT/SECONDS", "type": RateLimit.parse},
    )
    rate_analysis: RateLimit = field(
        default=RateLimit(10, 60),
        metadata={"help": "finished games' analyses asked for per user (or client address), "
                          "COUNT/SECONDS", "type": RateLimit.parse},
    )
    rate_signin: RateLimit = field(
        default=RateLimit(30, 60),
        metadata={"help": "sign-in requests (/auth/...) per client address, and renames per "
                          "user, COUNT/SECONDS", "type": RateLimit.parse},
    )
    log_level: str = field(
        default="info", metadata={"help": "log level: debug, info, warning or error"}
    )
    access_log: bool = field(
        default=True, metadata={"help": "log every request (true/false)", "type": "bool"}
    )
    local_accounts: bool = field(
        default=False,
        metadata={"help": "offer local accounts (a name only), for a server on loopback only "
                          "(true/false)", "type": "bool"},
    )
    # Not a flag: the [signin] table of the TOML file and SOMNIUM_PROVIDER_* variables.
    signin: SigninConfig = field(default_factory=SigninConfig, metadata={"table": True})


def _convert(name: str, raw: Any) -> Any:
    meta = next(f.metadata for f in fields(Settings) if f.name == name)
    kind = meta.get("type", str)
    if kind == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{name}: expected true or false, not {raw!r}")
    if isinstance(raw, bool | list | dict):
        raise ValueError(f"{name}: unexpected value {raw!r}")
    try:
        return kind(str(raw))
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None


def build_parser() -> argparse.ArgumentParser:
    """The command line: one flag per setting, each documented in --help."""
    parser = argparse.ArgumentParser(
        prog="somnium-server",
        description=(
            "Somnium's lobby server. Every option can also be set with an environment variable "
            f"({ENV_PREFIX}NAME, e.g. {ENV_PREFIX}PORT) or a key in the TOML file given with "
            f"--config or {ENV_PREFIX}CONFIG (e.g. port = 8000). Flags win over the environment, "
            "which wins over the file. Sign-in providers: a [signin.providers.KEY] table in the "
            f"file or {ENV_PREFIX}PROVIDER_KEY_FIELD variables (see docs/providers.md)."
        ),
    )
    parser.add_argument(
        "--config", type=Path, default=None, help=f"TOML settings file (env {ENV_PREFIX}CONFIG)"
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    defaults = Settings()
    for f in fields(Settings):
        if f.metadata.get("table"):
            continue
        flag = "--" + f.name.replace("_", "-")
        env = ENV_PREFIX + f.name.upper()
        parser.add_argument(
            flag,
            dest=f.name,
            default=None,
            metavar=f.name.upper(),
            help=f"{f.metadata['help']} (env {env}; default {getattr(defaults, f.name)})",
        )
    return parser


def load_settings(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Settings from flags, then SOMNIUM_* environment variables, then the TOML file."""
    environ = os.environ if environ is None else environ
    parser = build_parser()
    args = parser.parse_args(argv)
    config_path: Path | None = args.config
    if config_path is None and environ.get(ENV_PREFIX + "CONFIG"):
        config_path = Path(environ[ENV_PREFIX + "CONFIG"])
    from_file: dict[str, Any] = {}
    if config_path is not None:
        try:
            from_file = tomllib.loads(config_path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            parser.error(f"cannot read the settings file {config_path}: {error}")
    names = {f.name for f in fields(Settings) if not f.metadata.get("table")}
    unknown = sorted(set(from_file) - names - {"signin"})
    if unknown:
        parser.error(f"unknown settings in {config_path}: {', '.join(unknown)}")
    chosen: dict[str, Any] = {}
    try:
        for name in names:
            flag_value = getattr(args, name)
            env_value = environ.get(ENV_PREFIX + name.upper())
            if flag_value is not None:
                chosen[name] = _convert(name, flag_value)
            elif env_value is not None:
                chosen[name] = _convert(name, env_value)
            elif name in from_file:
                chosen[name] = _convert(name, from_file[name])
        if chosen.get("database_url_file"):
            chosen["database_url"] = _url_from_file(chosen)
        chosen["signin"] = load_signin_config(from_file.get("signin"), environ)
        check_local_accounts(chosen.get("local_accounts", False), chosen.get("host", "127.0.0.1"),
                             chosen.get("public_url", ""))
    except ValueError as error:
        parser.error(str(error))
    return replace(Settings(), **chosen)
