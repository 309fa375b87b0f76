"""What a server sent when it answered, but not as a lobby server does, in the player's words.

"Cannot be reached" is for no answer at all; a server that answers with an error page, a
web page or bytes that are no HTTP is named as such (the address may be wrong, or the
server broken), so the player knows what to look at.
"""

from __future__ import annotations

import re
from http.client import BadStatusLine, RemoteDisconnected

import requests

NOT_A_LOBBY = "is the address that of a Somnium lobby server?"


LONGEST_WAIT = 300.0  # seconds: a Retry-After longer than this is waited this long


class Misanswered(Exception):
    """The server answered, but not as a lobby server; str() says what it sent (no period).
    `wait` is how long it asked to be left alone (its Retry-After), in seconds."""

    def __init__(self, what: str, wait: float = 0.0) -> None:
        super().__init__(what)
        self.wait = wait


def status_words(response: requests.Response) -> str:
    """An answer's status as the player reads it: 'HTTP 502 Bad Gateway'."""
    return f"HTTP {response.status_code} {response.reason or ''}".strip()


def http_error(response: requests.Response) -> str:
    """An HTTP error status in words: 'it failed (HTTP 500 Internal Server Error)'; a 429
    with the server's reason: 'it refuses more just now (HTTP 429 ...: too many streams)'."""
    status = status_words(response)
    if response.status_code >= 500:
        return f"it failed ({status})"
    if response.status_code == 429:  # (a lobby server's limit: the address is right)
        reason = lobby_message(response)
        return f"it refuses more just now ({status}{': ' + reason if reason else ''})"
    if response.status_code == 413:  # (a proxy's size limit, smaller than the server's)
        return f"it refused what the app sent as too large ({status})"
    return f"it refused the request ({status}; {NOT_A_LOBBY})"


def gateway_words(response: requests.Response) -> str:
    """A 502, 503 or 504 in words: 'is not answering just now (HTTP 502 Bad Gateway)' for a
    proxy's page (the lobby server behind it is down or slow), the lobby server's own reason
    when it sent one."""
    status = status_words(response)
    reason = lobby_message(response)
    if reason:
        return f"could not do it just now ({status}: {reason})"
    return f"is not answering just now ({status})"


def retry_after(response: requests.Response) -> float:
    """The seconds a server's Retry-After asks for (0 without one, or one in another form),
    at most LONGEST_WAIT."""
    found = re.fullmatch(r"\s*([0-9]{1,9})\s*", response.headers.get("Retry-After", ""))
    return min(float(found[1]), LONGEST_WAIT) if found else 0.0


def lobby_message(response: requests.Response) -> str:
    """The `message` of a lobby server's JSON error body ("" without one: another server's
    error page, say)."""
    try:
        body = response.json()
    except ValueError:
        return ""
    message = body.get("message") if isinstance(body, dict) else None
    return message.strip().rstrip(".") if isinstance(message, str) else ""


def what_it_sent(response: requests.Response, wanted: str) -> str:
    """A 2xx answer of the wrong kind in words: 'it sent a web page, not <wanted> (...)'."""
    kind = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if kind in ("text/html", "application/xhtml+xml"):
        sent = "a web page"
    elif kind:
        sent = f"“{kind}”"
    else:
        sent = "something without a type"
    return f"it sent {sent}, not {wanted} ({NOT_A_LOBBY})"


def not_http(error: BaseException) -> bool:
    """True when the other end answered with bytes that are no HTTP at all (a connection
    closed without a word is not that: it is a server going away)."""
    seen: set[int] = set()
    stack: list[object] = [error]
    while stack:
        item = stack.pop()
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, BadStatusLine) and not isinstance(item, RemoteDisconnected):
            return True
        stack.extend([*item.args, item.__cause__, item.__context__])
    return False


NO_HTTP = f"what it sent is not HTTP ({NOT_A_LOBBY})"
