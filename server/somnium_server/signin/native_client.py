"""The desktop app as a native public OAuth client: its id, loopback redirects, PKCE S256 checks."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from urllib.parse import urlsplit

CLIENT_ID = "somnium-desktop"
CALLBACK_PATH = "/callback"
LOOPBACK_HOSTS = ("127.0.0.1", "[::1]")
# RFC 7636: a verifier is 43-128 unreserved characters; an S256 challenge is 43 base64url ones.
# (fullmatch: `$` would take a string with a newline at its end)
_VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
_CHALLENGE = re.compile(r"[A-Za-z0-9\-_]{43}")
_PORT = re.compile(r"[1-9][0-9]{0,4}")


def redirect_uri_problem(uri: str) -> str | None:
    """Why a redirect URI is refused, or None for http://127.0.0.1:<port>/callback or [::1].

    RFC 8252 section 7.3: loopback IP literals with any port; 'localhost' is refused (it can
    resolve elsewhere), as is every other host, scheme, path, query or fragment.
    """
    if len(uri) > 100:
        return "the redirect_uri is too long"
    if not uri.isascii() or not uri.isprintable() or " " in uri or "#" in uri:
        # (urlsplit drops tabs and newlines, and a '#' would put the code in a fragment)
        return "the redirect_uri holds characters a loopback callback never has"
    try:
        url = urlsplit(uri)
        port = url.port
    except ValueError:
        return "the redirect_uri is not a valid URL"
    host, sep, port_text = url.netloc.rpartition(":")
    if url.scheme != "http" or not sep or host not in LOOPBACK_HOSTS:
        return (
            "the redirect_uri must be http://127.0.0.1:<port>/callback or "
            "http://[::1]:<port>/callback (loopback only, no 'localhost')"
        )
    if not _PORT.fullmatch(port_text) or port is None or not 0 < port < 65536:
        return "the redirect_uri needs a port between 1 and 65535"
    if url.path != CALLBACK_PATH or url.query or url.fragment or "@" in url.netloc:
        return f"the redirect_uri's path must be exactly {CALLBACK_PATH}, with no query"
    return None


def valid_challenge(challenge: str) -> bool:
    return bool(_CHALLENGE.fullmatch(challenge))


def pkce_matches(verifier: str, challenge: str) -> bool:
    """Does the verifier hash (S256) to the challenge given at the start of the flow?"""
    if not _VERIFIER.fullmatch(verifier):
        return False
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    computed = base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
    return hmac.compare_digest(computed, challenge)
