"""A lobby server's address as the player types it: made a URL, checked, https unless local."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

# A host name: dot-separated labels of letters, digits and hyphens (not at a label's ends).
_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


class AddressError(ValueError):
    """The address cannot be used; str() says why, in a sentence for the player."""


def is_loopback(host: str) -> bool:
    """True for this computer: localhost, 127.x.x.x or ::1."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def server_address(text: str) -> str:
    """A lobby server's address as typed, made a URL: https:// unless it is on this computer.
    Empty stays empty (the built-in server); nothing is checked here (see checked_address)."""
    text = text.strip()
    if "://" in text:
        scheme, _, rest = text.partition("://")
        return f"{scheme}://{rest.rstrip('/')}"
    text = text.rstrip("/")
    if not text:
        return text
    host = text.split("/")[0].rsplit(":", 1)[0] if not text.startswith("[") \
        else text[1:].split("]")[0]
    return f"{'http' if is_loopback(host) else 'https'}://{text}"


def checked_address(text: str) -> str:
    """server_address(text) if a lobby server can be reached there safely, else AddressError:
    not a web address at all, or plain http to another computer (sign-ins would cross the
    network unencrypted; http is for a server on this computer only)."""
    url = server_address(text)
    if not url:
        return url
    problem = address_problem(url, typed=text.strip())
    if problem:
        raise AddressError(problem)
    return url


def address_problem(url: str, typed: str = "") -> str:
    """Why a lobby server's URL cannot be used ("" when it can), naming it as `typed`."""
    shown = typed or url
    shown = shown if len(shown) <= 60 else shown[:59] + "…"
    not_url = (f"“{shown}” is not a web address. Give a lobby server's address, "
               "e.g. https://somnium.example.org, or leave it empty for the built-in server.")
    if any(c.isspace() for c in url):
        return not_url
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return not_url
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not _valid_host(host) \
            or parts.query or parts.fragment or parts.username or parts.password:
        return not_url
    if port == 0:
        return not_url
    if parts.scheme == "http" and not is_loopback(host):
        return (f"“{shown}” uses plain http: your sign-in would cross the network "
                "unencrypted. Use https:// (plain http is only for a server on this "
                "computer).")
    return ""


def _valid_host(host: str) -> bool:
    if not host:
        return False
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    if host.replace(".", "").isdigit():  # (all digits, yet no IP address: 999.1.1.1)
        return False
    return len(host) <= 253 and all(_LABEL.match(label) for label in host.rstrip(".").split("."))
