"""Sign-in settings: OpenID providers (a TOML table, SOMNIUM_PROVIDER_* variables), lifetimes."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

ENV_PREFIX = "SOMNIUM_PROVIDER_"
PROVIDER_FIELDS = ("display_name", "issuer", "client_id", "client_secret", "scopes")
LOCAL_PROVIDER = "local"
_KEY = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")


class SigninConfigError(ValueError):
    """The sign-in configuration is wrong; the message says what to fix."""


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """One OpenID provider the server signs people in with, as a confidential client."""

    key: str
    display_name: str
    issuer: str
    client_id: str
    client_secret: str = field(repr=False)
    scopes: str = "openid profile"


@dataclass(frozen=True, slots=True)
class SigninConfig:
    """Everything sign-in needs to know besides the server's own address."""

    providers: tuple[ProviderConfig, ...] = ()
    access_token_seconds: int = 900
    refresh_token_days: float = 30.0
    code_seconds: int = 60
    login_seconds: int = 600

    def provider(self, key: str) -> ProviderConfig | None:
        return next((p for p in self.providers if p.key == key), None)


def is_loopback_host(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and 'localhost'; the only hosts local accounts may listen on."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_loopback_url(url: str) -> bool:
    """True for no URL at all, or one whose host is loopback (see is_loopback_host)."""
    return not url or is_loopback_host(urlsplit(url).hostname or "")


def check_local_accounts(enabled: bool, listen_host: str, public_url: str = "") -> None:
    """Refuse local accounts on a server reachable from anywhere but this machine: one that
    listens beyond loopback, or whose public URL (the address a proxy serves it at) is not
    loopback."""
    if not enabled:
        return
    if not is_loopback_host(listen_host):
        raise SigninConfigError(
            f"local accounts are only offered by a server listening on loopback "
            f"(127.0.0.1 or ::1), not on {listen_host!r}"
        )
    if not is_loopback_url(public_url):
        raise SigninConfigError(
            f"local accounts are only offered by a server used on this machine: its public "
            f"URL {public_url!r} is not a loopback address"
        )


def _check_provider(p: ProviderConfig) -> ProviderConfig:
    where = f"sign-in provider {p.key!r}"
    if not _KEY.match(p.key) or p.key == LOCAL_PROVIDER:
        raise SigninConfigError(
            f"{where}: a provider key is 1-32 of a-z, 0-9 and '-', and not {LOCAL_PROVIDER!r}"
        )
    for name in ("issuer", "client_id", "client_secret"):
        if not getattr(p, name):
            raise SigninConfigError(f"{where}: {name} is missing")
    url = urlsplit(p.issuer)
    secure = url.scheme == "https" or (
        url.scheme == "http" and is_loopback_host(url.hostname or "")
    )
    if not secure or not url.hostname or url.query or url.fragment:
        raise SigninConfigError(
            f"{where}: the issuer must be an https URL without query (http only on loopback), "
            f"not {p.issuer!r}"
        )
    if "openid" not in p.scopes.split():
        raise SigninConfigError(f"{where}: the scopes must include 'openid'")
    return p


def load_signin_config(
    table: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> SigninConfig:
    """Sign-in settings from a TOML `[signin]` table, then SOMNIUM_PROVIDER_<KEY>_<FIELD> variables.

    The environment wins over the file field by field, so a secret can stay out of the file.
    """
    if table is not None and not isinstance(table, Mapping):
        raise SigninConfigError("[signin] must be a table")
    table = dict(table or {})
    environ = environ or {}
    raw: dict[str, dict[str, str]] = {}
    providers_table = table.pop("providers", {})
    if not isinstance(providers_table, Mapping):
        raise SigninConfigError("[signin.providers] must be a table of providers")
    for key, entries in providers_table.items():
        if not isinstance(entries, Mapping):
            raise SigninConfigError(f"[signin.providers.{key}] must be a table")
        unknown = sorted(set(entries) - set(PROVIDER_FIELDS))
        if unknown:
            raise SigninConfigError(
                f"[signin.providers.{key}]: unknown keys {', '.join(unknown)} "
                f"(known: {', '.join(PROVIDER_FIELDS)})"
            )
        raw[str(key)] = {name: str(value) for name, value in entries.items()}
    for name, value in environ.items():
        if not name.startswith(ENV_PREFIX):
            continue
        rest = name[len(ENV_PREFIX):].lower()
        for field_name in PROVIDER_FIELDS:
            if rest.endswith("_" + field_name):
                key = rest[: -len(field_name) - 1].replace("_", "-")
                raw.setdefault(key, {})[field_name] = value
                break
        else:
            raise SigninConfigError(
                f"{name}: expected {ENV_PREFIX}<KEY>_<FIELD> with FIELD one of "
                f"{', '.join(f.upper() for f in PROVIDER_FIELDS)}"
            )
    providers = tuple(
        _check_provider(
            ProviderConfig(
                key=key,
                display_name=entries.get("display_name") or key,
                issuer=entries.get("issuer", "").rstrip("/"),
                client_id=entries.get("client_id", ""),
                client_secret=entries.get("client_secret", ""),
                scopes=entries.get("scopes") or "openid profile",
            )
        )
        for key, entries in sorted(raw.items())
    )
    config = SigninConfig(providers=providers)
    known = {"access_token_seconds", "refresh_token_days", "code_seconds", "login_seconds"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise SigninConfigError(f"[signin]: unknown keys {', '.join(unknown)}")
    values: dict[str, Any] = table
    try:
        config = replace(
            config,
            access_token_seconds=int(values.get("access_token_seconds", 900)),
            refresh_token_days=float(values.get("refresh_token_days", 30.0)),
            code_seconds=int(values.get("code_seconds", 60)),
            login_seconds=int(values.get("login_seconds", 600)),
        )
    except (TypeError, ValueError) as error:
        raise SigninConfigError(f"[signin]: {error}") from None
    if min(config.access_token_seconds, config.code_seconds, config.login_seconds) <= 0 or (
        config.refresh_token_days <= 0
    ):
        raise SigninConfigError("[signin]: lifetimes must be positive")
    return config

